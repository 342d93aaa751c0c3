package dev.jccl.cuda;

/**
 * Told when each phase of each chunk of a staged operation started and ended, as the driving thread saw it
 * ({@link System#nanoTime}): from issuing the copies to seeing their event complete, from starting the host collective
 * to seeing its future done. For tests and tracing; called on the thread that drives the pipeline, so it must be quick.
 */
@FunctionalInterface
public interface StagingListener {
    /** The three steps each chunk goes through, in this order. */
    enum Phase {
        /**
         * From queuing the chunk's device-to-host copies to seeing the event recorded after them complete; not reported
         * for a chunk this rank had nothing to copy out for.
         */
        TO_HOST,
        /** From starting the chunk's host collective to seeing its future complete normally. */
        EXCHANGE,
        /**
         * From queuing the chunk's host-to-device copies to seeing their event complete; not reported for a chunk this
         * rank had nothing to copy back for.
         */
        TO_DEVICE
    }

    /**
     * Called once {@code phase} of chunk {@code chunk} (0-based, of {@code chunks}) of {@code operation} (e.g.
     * {@code AllReduce #7}) has ended; a phase that failed is not reported.
     *
     * @param startNanos when the phase started, in {@link System#nanoTime} units
     * @param endNanos when the driving thread saw it end, in {@link System#nanoTime} units
     */
    void phase(String operation, Phase phase, int chunk, int chunks, long startNanos, long endNanos);

    /** Ignores every call: the listener of {@link CudaSupport.Options#fromEnvironment}'s settings. */
    StagingListener NONE = (operation, phase, chunk, chunks, startNanos, endNanos) -> {};
}
