package dev.jccl.spark;

import dev.jccl.Communicator;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.TaskContext;

/**
 * Aborts a communicator when Spark kills its task. Spark kills the other tasks of a barrier stage when one fails, but
 * without interrupting them: a killed task only notices at its next record. One blocked in a collective would wait for
 * its timeout; aborting the communicator ends that wait at once, and tells the peers.
 */
final class KillWatch implements AutoCloseable {
    /** How often the task's kill flag is read: a volatile read, ten times a second. */
    private static final long POLL_MILLIS = 100;

    private final AtomicBoolean stopped = new AtomicBoolean();
    private final Thread thread;

    private KillWatch(TaskContext task, Communicator comm) {
        this.thread = Thread.ofPlatform()
                .daemon()
                .name("jccl-spark-killwatch-p" + task.partitionId())
                .unstarted(() -> watch(task, comm));
    }

    static KillWatch start(TaskContext task, Communicator comm) {
        KillWatch w = new KillWatch(task, comm);
        w.thread.start();
        return w;
    }

    private void watch(TaskContext task, Communicator comm) {
        while (!stopped.get()) {
            if (task.isInterrupted()) {
                comm.abort();
                return;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        stopped.set(true);
        thread.interrupt();
    }
}
