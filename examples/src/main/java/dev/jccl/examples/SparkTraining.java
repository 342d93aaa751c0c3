package dev.jccl.examples;

import dev.jccl.spark.JcclSpark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The data-parallel training of {@link DataParallelTraining}, with Spark barrier tasks as the ranks: Spark starts them
 * together, {@link JcclSpark} joins them into one communicator, and their gradients are averaged with Jccl's AllReduce.
 * The driver prints rank 0's progress and the weights' fingerprint, which equals a single process's on the whole batch
 * (up to float rounding).
 *
 * <pre>
 * ./mvnw -q -pl examples -am package -DskipTests
 * spark-submit --master 'local[4,4]' --class dev.jccl.examples.SparkTraining \
 *     examples/target/jccl-examples.jar --ranks 4
 * </pre>
 *
 * Without {@code --master} (started with plain {@code java}) it runs on {@code local[ranks,4]}: ranks task slots, and
 * up to 4 tries per task (plain {@code local[n]} gives up after one). The cluster needs {@code --ranks} free task slots
 * at once. If a task fails, Spark fails the others and runs the stage again.
 */
public final class SparkTraining {
    static final String USAGE = """
            Usage: spark-submit [--master M] --class dev.jccl.examples.SparkTraining jccl-examples.jar \\
                     [--ranks N] [training options]
              --ranks N        barrier tasks = ranks (default 4); N must divide --batch
            """;

    /** What a rank sends back to the driver: its printed progress (rank 0 only) and its final weights. */
    record RankResult(String log, float[] weights) implements Serializable {}

    private SparkTraining() {}

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.print(USAGE + TrainingOptions.USAGE);
            return;
        }
        int ranks = 4;
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        int at = rest.indexOf("--ranks");
        TrainingOptions options;
        try {
            if (at >= 0) {
                if (at + 1 >= rest.size()) throw new IllegalArgumentException("--ranks needs a number");
                ranks = Integer.parseInt(rest.get(at + 1));
                rest.subList(at, at + 2).clear();
            }
            options = TrainingOptions.parse(rest.toArray(String[]::new));
            if (ranks < 1 || options.batch() % ranks != 0) {
                throw new IllegalArgumentException(
                        "--ranks " + ranks + " must be at least 1 and divide --batch " + options.batch());
            }
        } catch (IllegalArgumentException e) {
            System.err.println("SparkTraining: " + e.getMessage());
            System.err.print(USAGE + TrainingOptions.USAGE);
            System.exit(2);
            return;
        }
        SparkConf conf = new SparkConf().setAppName("Jccl data-parallel training");
        if (!conf.contains("spark.master")) conf.setMaster("local[" + ranks + ",4]");
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            List<RankResult> results = train(spark, ranks, options);
            System.out.print(results.get(0).log());
        }
    }

    /** Trains on {@code ranks} barrier tasks of {@code spark}; returns each rank's result, by rank. */
    static List<RankResult> train(JavaSparkContext spark, int ranks, TrainingOptions options) {
        return JcclSpark.run(spark, ranks, comm -> {
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            try (PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8)) {
                float[] weights = DataParallelTraining.train(comm, options, comm.rank() == 0 ? out : null);
                return new RankResult(log.toString(StandardCharsets.UTF_8), weights);
            }
        });
    }
}
