package dev.jccl.transport;

/** A posted send or receive; done once its last byte has been handed to the kernel or delivered. */
public final class TransferHandle {
    private final int peer;
    private boolean done;

    public TransferHandle(int peer) {
        this.peer = peer;
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
}
