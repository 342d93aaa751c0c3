package dev.jccl.transport;

import java.io.IOException;

/**
 * A peer announced that it is in a different operation at the sequence number this rank is waiting on (shared memory
 * publishes what each rank is doing, so a waiter can tell). The runtime describes both sides from {@code descriptor}
 * (see {@code OpContext.descriptor()}).
 */
public final class OperationMismatchException extends IOException {
    private final int peer;
    private final long sequence;
    private final long descriptor;
    private final long count;

    public OperationMismatchException(int peer, long sequence, long descriptor, long count) {
        super("rank " + peer + " is in another operation at sequence " + sequence);
        this.peer = peer;
        this.sequence = sequence;
        this.descriptor = descriptor;
        this.count = count;
    }

    public int peer() {
        return peer;
    }

    public long sequence() {
        return sequence;
    }

    public long descriptor() {
        return descriptor;
    }

    public long count() {
        return count;
    }
}
