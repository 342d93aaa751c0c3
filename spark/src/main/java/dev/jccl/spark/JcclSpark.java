package dev.jccl.spark;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.UniqueId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * Jccl inside Spark's barrier execution mode: the tasks of a barrier stage, which Spark starts all together or not at
 * all, become the ranks of one communicator.
 *
 * <pre>{@code
 * rdd.barrier().mapPartitions(rows -> {
 *     Communicator comm = JcclSpark.communicator(BarrierTaskContext.get());   // rank = partition id
 *     comm.allReduce(gradients, ReduceOp.SUM);
 *     ...
 * });
 * // or, from the driver: run a function on 4 barrier tasks and collect what each rank returns
 * List<Double> sums = JcclSpark.run(sparkContext, 4, comm -> { ...; return x; });
 * }</pre>
 *
 * <p>What it takes care of: the {@link UniqueId} is made on partition 0 and reaches the others through
 * {@link BarrierTaskContext#allGather} (no port or tracker to configure); sockets use the interface that holds the
 * executor's Spark address; the timeout is {@code spark.network.timeout} unless {@code JCCL_TIMEOUT} is set; the
 * communicator is closed when the task ends, aborted when the task fails or is killed, so that a dead task fails every
 * task of its stage within moments, also while they are still joining. Spark then retries the whole gang where the
 * barrier stage is followed by a shuffle ({@link #run} makes it so); a failed barrier stage that ends the job (a
 * {@code collect()} right on the barrier RDD) fails the job instead.
 */
public final class JcclSpark {
    /** Spark's own default for {@code spark.network.timeout}. */
    private static final String SPARK_NETWORK_TIMEOUT_DEFAULT = "120s";

    private JcclSpark() {}

    /**
     * The communicator of the barrier stage this thread's task belongs to, as {@link #communicator(BarrierTaskContext)}
     * with {@code BarrierTaskContext.get()}; refuses, saying why, where there is no task or it is not a barrier
     * stage's.
     */
    public static Communicator communicator() {
        return communicator(SparkChecks.currentBarrierTask());
    }

    /**
     * The communicator of this barrier stage's tasks, as rank {@code task.partitionId()} of
     * {@code task.getTaskInfos().length}; settings from the executor's environment ({@link Config#fromEnvironment()}).
     * Every task of the stage must call it, as with any collective, and once: a second call in the same task is
     * refused.
     */
    public static Communicator communicator(BarrierTaskContext task) {
        return communicator(task, Config.fromEnvironment());
    }

    /** As {@link #communicator(BarrierTaskContext)}, starting from {@code config}. */
    public static Communicator communicator(BarrierTaskContext task, Config config) {
        if (task == null) {
            throw new IllegalArgumentException("task is null: call JcclSpark.communicator(BarrierTaskContext.get()) "
                    + "inside a barrier stage, i.e. in rdd.barrier().mapPartitions(...)");
        }
        if (config == null) throw new IllegalArgumentException("config is null; use Config.fromEnvironment()");
        BarrierTaskInfo[] tasks = task.getTaskInfos();
        int rank = task.partitionId();
        int size = tasks.length;
        if (rank >= size) {
            throw new IllegalStateException("partition " + rank + " of a barrier stage with " + size
                    + " tasks: the stage must cover every partition of its RDD");
        }
        Config settings = withSparkTimeout(ExecutorNetwork.onExecutorInterface(config, tasks[rank].address()));
        SparkChecks.claimCommunicator(task);

        TaskKill kill = TaskKill.watch(task);
        UniqueId created = rank == 0 ? UniqueId.create(settings) : null;
        Communicator comm;
        try {
            String[] all = task.allGather(created == null ? "" : created.toString());
            if (all.length != size || all[0].isEmpty()) {
                throw new IllegalStateException("barrier allGather returned " + all.length
                        + " messages without partition 0's communicator id;"
                        + " was JcclSpark.communicator called on every task?");
            }
            UniqueId id = UniqueId.parse(all[0]);
            try {
                comm = kill.awaitJoin(task, () -> Jccl.init(rank, size, id, settings), "jccl-spark-init-p" + rank);
            } catch (JcclException e) {
                throw SparkChecks.joinFailed(e, settings, tasks[rank].address());
            }
        } catch (RuntimeException | Error e) {
            // The bootstrap listener rank 0 reserved is released by a successful join only.
            if (created != null) closeQuietly(created.takeReservedListener());
            SparkChecks.releaseCommunicator(task);
            throw e;
        }
        kill.abortOnKill(comm);
        task.addTaskFailureListener((TaskFailureListener) (context, error) -> TaskKill.abortQuietly(comm));
        task.addTaskCompletionListener((TaskCompletionListener) context -> {
            comm.close();
            SparkChecks.releaseCommunicator(context);
        });
        return comm;
    }

    private static void closeQuietly(java.nio.channels.ServerSocketChannel listener) {
        if (listener == null) return;
        try {
            listener.close();
        } catch (java.io.IOException e) {
            // Closing a listener that no one connected to: nothing to report.
        }
    }

    /**
     * Runs {@code rankTask} on {@code ranks} barrier tasks (one per partition of a fresh RDD) and returns what each
     * rank returned, indexed by rank. The cluster needs {@code ranks} free task slots at once; Spark waits for them. If
     * a task fails, all of them do, and Spark retries the stage ({@code spark.stage.maxConsecutiveAttempts}).
     */
    public static <T> List<T> run(SparkContext spark, int ranks, RankTask<T> rankTask) {
        if (spark == null) throw new IllegalArgumentException("spark context is null");
        if (ranks < 1) throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        if (rankTask == null) throw new IllegalArgumentException("rankTask is null");
        SparkChecks.refuseDynamicAllocation(spark.getConf());
        JavaSparkContext java = JavaSparkContext.fromSparkContext(spark);
        JavaRDD<Integer> partitions =
                java.parallelize(IntStream.range(0, ranks).boxed().toList(), ranks);
        ClassTag<Tuple2<Integer, T>> pairs = anyRef();
        RDD<Tuple2<Integer, T>> byRank =
                partitions.rdd().barrier().mapPartitions(new RankPartition<>(rankTask), false, pairs);
        // Spark retries a failed barrier stage only when it is a shuffle map stage ("Could not recover from a failed
        // barrier ResultStage" otherwise): the results go through a one-partition shuffle to make it one.
        List<Tuple2<Integer, T>> results = JavaPairRDD.fromRDD(byRank, anyRef(), anyRef())
                .partitionBy(new HashPartitioner(1))
                .collect();
        List<T> ordered = new ArrayList<>(Collections.nCopies(ranks, null));
        for (Tuple2<Integer, T> r : results) ordered.set(r._1(), r._2());
        return ordered;
    }

    /** As {@link #run(SparkContext, int, RankTask)}, for Java's Spark context. */
    public static <T> List<T> run(JavaSparkContext spark, int ranks, RankTask<T> rankTask) {
        if (spark == null) throw new IllegalArgumentException("spark context is null");
        return run(spark.sc(), ranks, rankTask);
    }

    /** Spark's network timeout, where the user did not give Jccl one. */
    private static Config withSparkTimeout(Config config) {
        SparkEnv env = SparkEnv.get();
        if (!config.sourceOf("timeout").equals("default") || env == null) return config;
        long millis = env.conf().getTimeAsMs("spark.network.timeout", SPARK_NETWORK_TIMEOUT_DEFAULT);
        return config.toBuilder().timeout(Duration.ofMillis(millis)).build();
    }

    @SuppressWarnings("unchecked")
    private static <T> ClassTag<T> anyRef() {
        return (ClassTag<T>) ClassTag$.MODULE$.AnyRef();
    }

    /** One barrier task of {@link #run}: joins the communicator, runs the rank's task, returns its result. */
    private static final class RankPartition<T>
            extends AbstractFunction1<Iterator<Integer>, Iterator<Tuple2<Integer, T>>> implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        private final RankTask<T> rankTask;

        RankPartition(RankTask<T> rankTask) {
            this.rankTask = rankTask;
        }

        @Override
        public Iterator<Tuple2<Integer, T>> apply(Iterator<Integer> partition) {
            BarrierTaskContext task = BarrierTaskContext.get();
            Communicator comm = communicator(task);
            T result;
            try {
                result = rankTask.run(comm);
            } catch (Throwable e) {
                // Abort, not close: close would first wait for this rank's queued async operations, and the
                // peers should hear of the failure now.
                TaskKill.abortQuietly(comm);
                if (e instanceof RuntimeException r) throw r;
                if (e instanceof Error r) throw r;
                throw new IllegalStateException("rank " + task.partitionId() + " failed: " + e, e);
            }
            comm.close();
            return scala.package$.MODULE$.Iterator().single(new Tuple2<>(task.partitionId(), result));
        }
    }
}
