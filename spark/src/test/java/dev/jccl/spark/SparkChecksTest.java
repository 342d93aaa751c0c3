package dev.jccl.spark;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.BootstrapException;
import dev.jccl.Config;
import dev.jccl.JcclException;
import java.time.Duration;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bad-input messages that need no running Spark: each names what is wrong and the call or setting that fixes it.
 */
@Timeout(30)
class SparkChecksTest {
    @Test
    void dynamicAllocationIsRefusedNamingTheSetting() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> SparkChecks.refuseDynamicAllocation(
                        new SparkConf().set("spark.dynamicAllocation.enabled", "true")));
        assertTrue(e.getMessage().contains("spark.dynamicAllocation.enabled=false"), e.getMessage());
        assertDoesNotThrow(() -> SparkChecks.refuseDynamicAllocation(new SparkConf()));
    }

    @Test
    void outsideATaskTheCallSaysWhereItBelongs() {
        IllegalStateException e = assertThrows(IllegalStateException.class, JcclSpark::communicator);
        assertTrue(e.getMessage().contains("outside a Spark task"), e.getMessage());
        assertTrue(e.getMessage().contains("rdd.barrier().mapPartitions"), e.getMessage());
    }

    @Test
    void aFailedJoinSaysWhichInterfaceAndWhichSparkSettingsToChange() {
        JcclException cause = new JcclException("rank 2 did not arrive within 120 s");
        Config settings = Config.builder()
                .socketIfname("=eth1")
                .timeout(Duration.ofSeconds(120))
                .build();
        BootstrapException e = SparkChecks.joinFailed(cause, settings, "10.1.2.3:7078");
        assertSame(cause, e.getCause());
        String m = e.getMessage();
        assertTrue(m.startsWith("rank 2 did not arrive within 120 s"), m);
        assertTrue(m.contains("=eth1") && m.contains("10.1.2.3:7078") && m.contains("120 s"), m);
        assertTrue(m.contains("spark.executorEnv.JCCL_SOCKET_IFNAME"), m);
        assertTrue(m.contains("spark.network.timeout"), m);
    }
}
