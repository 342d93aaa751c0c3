package dev.jccl.cuda;

/**
 * A point in a {@link DeviceStream}: complete once everything issued to the stream before it has finished (a
 * {@code cudaEvent_t} recorded on the stream). Polled, never waited on with a blocking call, so that every wait can
 * keep its deadline.
 */
public interface DeviceEvent extends AutoCloseable {
    /**
     * True once the work before the event has finished; false while it runs. Throws {@link CudaException} when that
     * work failed.
     */
    boolean isComplete();

    /** Releases the event; safe to call twice. */
    @Override
    void close();
}
