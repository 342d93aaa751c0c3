package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Spark example's promise, with real Spark in local mode: four barrier tasks training together reach the weights
 * one process reaches on the whole batches (the same bound as {@link DataParallelTrainingTest}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SparkTrainingTest {
    @Test
    void fourBarrierTasksReachTheWeightsOfOneProcess() {
        float[] reference = DataParallelTrainingTest.trainAlone(DataParallelTrainingTest.SMALL);
        SparkConf conf = new SparkConf()
                .setMaster("local[4]")
                .setAppName("SparkTrainingTest")
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
        List<SparkTraining.RankResult> results;
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            results = SparkTraining.train(spark, 4, DataParallelTrainingTest.SMALL);
        }
        assertEquals(4, results.size());
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(results.get(0).weights(), results.get(r).weights(), "rank " + r + " differs from rank 0");
        }
        double difference =
                DataParallelTrainingTest.relativeDifference(results.get(0).weights(), reference);
        assertTrue(
                difference <= DataParallelTrainingTest.TOLERANCE,
                "4 Spark ranks end " + difference + " of the largest weight away from one process");
        String log = results.get(0).log();
        assertTrue(log.contains("Data-parallel training on 4 ranks"), log);
        assertTrue(log.contains("epoch 3/3"), log);
        assertEquals("", results.get(1).log(), "only rank 0 prints");
    }
}
