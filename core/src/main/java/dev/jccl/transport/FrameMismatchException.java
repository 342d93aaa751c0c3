package dev.jccl.transport;

import java.io.IOException;

/** A peer sent a chunk whose header differs from what this rank expects at this point. */
public final class FrameMismatchException extends IOException {
    private final int peer;
    private final FrameHeader expected;
    private final FrameHeader actual;

    public FrameMismatchException(int peer, FrameHeader expected, FrameHeader actual) {
        super("frame mismatch from peer " + peer);
        this.peer = peer;
        this.expected = expected;
        this.actual = actual;
    }

    public int peer() {
        return peer;
    }

    public FrameHeader expected() {
        return expected;
    }

    /** Null when the bytes were not a Jccl frame at all. */
    public FrameHeader actual() {
        return actual;
    }
}
