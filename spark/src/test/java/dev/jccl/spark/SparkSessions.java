package dev.jccl.spark;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/** Spark contexts for the tests: loopback only, no web UI, Jccl's timeout far above any test's deadline. */
final class SparkSessions {
    private SparkSessions() {}

    static SparkConf conf(String master, String app) {
        return new SparkConf()
                .setMaster(master)
                .setAppName(app)
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1")
                // Jccl takes its timeout from here: ten minutes, so that a test which ends within its JUnit
                // deadline (two minutes) was ended by failure detection, never by a timeout.
                .set("spark.network.timeout", "600s")
                .set("spark.executor.heartbeatInterval", "10s");
    }

    static JavaSparkContext start(String master, String app) {
        return new JavaSparkContext(conf(master, app));
    }
}
