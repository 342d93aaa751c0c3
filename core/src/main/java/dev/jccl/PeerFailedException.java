package dev.jccl;

/** A peer went away (its connection closed or reset) while this rank depended on it. */
public class PeerFailedException extends JcclException {
    /** The lost peer's rank; see {@link #peer()}. */
    private final int peer;

    /**
     * Rank {@code peer} was lost, as {@code message} explains; {@code cause} is the I/O error that showed it, if any.
     */
    public PeerFailedException(int peer, String message, Throwable cause) {
        super(message, cause);
        this.peer = peer;
    }

    /** Rank of the lost peer in the communicator that reported it. */
    public int peer() {
        return peer;
    }
}
