package dev.jccl;

/** A peer went away (its connection closed or reset) while this rank depended on it. */
public class PeerFailedException extends JcclException {
    private final int peer;

    public PeerFailedException(int peer, String message, Throwable cause) {
        super(message, cause);
        this.peer = peer;
    }

    /** Rank of the lost peer in the communicator that reported it. */
    public int peer() {
        return peer;
    }
}
