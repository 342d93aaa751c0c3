package dev.jccl.spark;

import dev.jccl.Communicator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskInterruptListener;

/**
 * Ends this task's Jccl waits when Spark kills the task. Spark kills the other tasks of a barrier stage when one fails,
 * but without interrupting their threads: a killed task only notices at its next record. One blocked in Jccl's set-up
 * or in a collective would wait for its timeout, holding its task slot, and the stage's retry with it.
 */
final class TaskKill {
    /** Completes with Spark's reason when the task is killed (at once if it already was). */
    private final CompletableFuture<String> reason = new CompletableFuture<>();

    private TaskKill() {}

    /** Starts watching {@code task}: Spark calls the listener from the thread that kills it. */
    static TaskKill watch(TaskContext task) {
        TaskKill kill = new TaskKill();
        task.addTaskInterruptListener((TaskInterruptListener) (context, why) -> kill.reason.complete(why));
        return kill;
    }

    /**
     * Runs {@code join} (Jccl.init) on a thread of its own and returns its communicator, or throws Spark's
     * {@code TaskKilledException} as soon as the task is killed: a peer that died during set-up must not keep this task
     * waiting until the bootstrap times out. A communicator that still forms after the kill is aborted.
     */
    Communicator awaitJoin(TaskContext task, Supplier<Communicator> join, String threadName) {
        CompletableFuture<Communicator> joining = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name(threadName).start(() -> {
            try {
                joining.complete(join.get());
            } catch (Throwable t) {
                joining.completeExceptionally(t);
            }
        });
        try {
            CompletableFuture.anyOf(joining, reason).join();
        } catch (CompletionException e) {
            // joining failed: rethrown below
        }
        if (!joining.isDone()) {
            joining.thenAccept(TaskKill::abortQuietly);
            task.killTaskIfInterrupted();
            throw new IllegalStateException("task killed while joining its communicator: " + reason.getNow(""));
        }
        try {
            return joining.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error r) throw r;
            throw e;
        }
    }

    /**
     * Aborts {@code comm} when the task is killed, so that a rank blocked in a collective fails at once and its peers
     * with it. Runs off Spark's killing thread: an abort closes connections, and must not delay other kills.
     */
    void abortOnKill(Communicator comm) {
        reason.thenRunAsync(
                () -> abortQuietly(comm),
                runnable ->
                        Thread.ofPlatform().daemon().name("jccl-spark-abort").start(runnable));
    }

    /** Aborts; an error here has no one to go to, and must not end the executor through an uncaught exception. */
    static void abortQuietly(Communicator comm) {
        try {
            comm.abort();
        } catch (RuntimeException e) {
            // The task is being killed anyway; the abort's own log line says what went wrong.
        }
    }
}
