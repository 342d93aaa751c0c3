package dev.jccl.transport;

/**
 * A posted send or receive; done once its last byte has been handed over (to the kernel, or to the shared-memory ring)
 * or delivered.
 *
 * <p>A send may be posted before all of its data exists (the runtime does this to forward what a receive is still
 * reducing, see {@code ScheduleExecutor}): the transport reads only the first {@link #readyBytes()} bytes, and the
 * runtime raises that mark with {@link #ready(long)} as the data is produced. A send posted with all its data ready
 * never needs the mark. Single-threaded, like the transport that owns it.
 */
public final class TransferHandle {
    private final int peer;
    private boolean done;
    private long readyBytes;

    /** A handle whose data is all ready (receives, and sends posted with complete data). */
    public TransferHandle(int peer) {
        this(peer, Long.MAX_VALUE);
    }

    public TransferHandle(int peer, long readyBytes) {
        this.peer = peer;
        this.readyBytes = readyBytes;
    }

    public int peer() {
        return peer;
    }

    public boolean isDone() {
        return done;
    }

    public void markDone() {
        done = true;
    }

    /** How many bytes of a send's data the transport may read now. */
    public long readyBytes() {
        return readyBytes;
    }

    /** Raises the ready mark of a send; it never goes down. */
    public void ready(long bytes) {
        if (bytes > readyBytes) readyBytes = bytes;
    }
}
