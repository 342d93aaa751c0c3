package dev.jccl.cuda;

/**
 * Told when each phase of each chunk of a staged operation started and ended, as the driving thread saw it
 * ({@link System#nanoTime}): from issuing the copies to seeing their event complete, from starting the host collective
 * to seeing its future done. For tests and tracing; called on the thread that drives the pipeline, so it must be quick.
 */
@FunctionalInterface
public interface StagingListener {
    enum Phase {
        TO_HOST,
        EXCHANGE,
        TO_DEVICE
    }

    void phase(String operation, Phase phase, int chunk, int chunks, long startNanos, long endNanos);

    StagingListener NONE = (operation, phase, chunk, chunks, startNanos, endNanos) -> {};
}
