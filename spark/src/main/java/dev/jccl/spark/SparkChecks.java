package dev.jccl.spark;

import dev.jccl.BootstrapException;
import dev.jccl.Config;
import dev.jccl.JcclException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;

/**
 * The ways a Spark job can misuse Jccl, each refused with what is wrong and which call or Spark setting fixes it,
 * before anything waits.
 */
final class SparkChecks {
    /** Tasks (by attempt id) of this executor that hold a communicator now. */
    private static final Set<Long> JOINED = ConcurrentHashMap.newKeySet();

    private SparkChecks() {}

    /** This thread's barrier task, or an error saying why there is none. */
    static BarrierTaskContext currentBarrierTask() {
        TaskContext task = TaskContext.get();
        if (task == null) {
            throw new IllegalStateException("JcclSpark.communicator() was called outside a Spark task (driver code?):"
                    + " call it inside rdd.barrier().mapPartitions(...), or use JcclSpark.run(sparkContext, n, fn)");
        }
        if (!(task instanceof BarrierTaskContext barrier)) {
            throw new IllegalStateException("JcclSpark.communicator() was called in a task of an ordinary stage"
                    + " (partition " + task.partitionId() + "): a communicator needs all its ranks running at once,"
                    + " which only a barrier stage promises. Use rdd.barrier().mapPartitions(...) instead of"
                    + " rdd.mapPartitions(...), or JcclSpark.run(sparkContext, n, fn)");
        }
        return barrier;
    }

    /** Refuses dynamic allocation, under which Spark cannot run barrier stages. */
    static void refuseDynamicAllocation(SparkConf conf) {
        if (conf.getBoolean("spark.dynamicAllocation.enabled", false)) {
            throw new IllegalArgumentException("Jccl's ranks run as a barrier stage, and Spark runs no barrier stage"
                    + " with dynamic allocation: set spark.dynamicAllocation.enabled=false for this application");
        }
    }

    /** Records that {@code task} joins a communicator; refuses a second one in the same task. */
    static void claimCommunicator(TaskContext task) {
        if (!JOINED.add(task.taskAttemptId())) {
            throw new IllegalStateException("partition " + task.partitionId() + " already joined a Jccl communicator"
                    + " in this task: one per barrier task. Keep the one JcclSpark.communicator returned (or that"
                    + " JcclSpark.run passes to your function) and use it for every collective of the task");
        }
    }

    /** Forgets {@code task}'s communicator (it ended). */
    static void releaseCommunicator(TaskContext task) {
        JOINED.remove(task.taskAttemptId());
    }

    /**
     * {@code failure} of joining, with what to change in Spark: the ranks connect on the interface that holds the
     * executor's Spark address, within {@code spark.network.timeout}, unless the job sets Jccl's own variables.
     */
    static BootstrapException joinFailed(JcclException failure, Config settings, String executorAddress) {
        return new BootstrapException(
                failure.getMessage() + "\nJccl's ranks in Spark connect to each other on interface "
                        + (settings.socketIfname() == null ? "(automatic)" : settings.socketIfname())
                        + " (the one holding this executor's Spark address " + executorAddress + "), within "
                        + settings.timeout().toSeconds() + " s (spark.network.timeout unless JCCL_TIMEOUT is set)."
                        + " If the executors cannot reach each other there, set"
                        + " spark.executorEnv.JCCL_SOCKET_IFNAME to an interface they share; if they need longer to"
                        + " start, raise spark.network.timeout or set spark.executorEnv.JCCL_TIMEOUT.",
                failure);
    }
}
