package dev.jccl.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.jccl.ReduceOp;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ranks in separate executor JVMs, as on a cluster: Spark's {@code local-cluster[2,2,1024]} starts a master, two
 * workers and two executor JVMs of two task slots each, all on loopback.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JcclSparkLocalClusterTest {
    @Test
    void fourRanksInTwoExecutorJvmsReduceTogether() {
        SparkHomeForTests.create();
        var conf = SparkSessions.conf("local-cluster[2,2,1024]", "JcclSparkLocalClusterTest")
                .set("spark.executor.extraClassPath", SparkHomeForTests.classDirectories())
                .set("spark.executor.extraJavaOptions", "--enable-native-access=ALL-UNNAMED");
        List<long[]> results;
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            results = JcclSpark.run(spark, 4, comm -> {
                long[] x = {comm.rank() + 1L, 1L << comm.rank()};
                comm.allReduce(x, ReduceOp.SUM);
                return new long[] {ProcessHandle.current().pid(), x[0], x[1]};
            });
        }
        Set<Long> pids = new TreeSet<>();
        for (long[] r : results) {
            assertEquals(10, r[1], "sum of ranks + 1");
            assertEquals(15, r[2], "OR of rank bits, as a sum");
            pids.add(r[0]);
        }
        assertEquals(2, pids.size(), "the four ranks ran in two executor JVMs: " + pids);
        assertFalse(pids.contains(ProcessHandle.current().pid()), "no rank ran in the driver");
    }
}
