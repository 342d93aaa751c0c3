package dev.jccl.transport;

import java.io.IOException;

/** The connection to {@code peer} closed or failed; the runtime turns this into a PeerFailedException. */
public final class PeerLostException extends IOException {
    private final int peer;

    public PeerLostException(int peer, String detail, Throwable cause) {
        super(detail, cause);
        this.peer = peer;
    }

    public int peer() {
        return peer;
    }
}
