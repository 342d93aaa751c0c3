package dev.jccl.transport;

/**
 * Where a rank posts which operation it is in, for the peers that can read it (the ranks of its host, through shared
 * memory): a peer waiting on this rank then sees at once that the rank has failed, aborted, or called another
 * operation, instead of waiting for its deadline. The runtime calls it around every operation; transports that cannot
 * offer it are simply not asked.
 */
public interface OperationBoard {
    /** Bit of an announced descriptor: that collective cannot finish on any rank before every rank has joined it. */
    long NEEDS_EVERY_RANK = 1L << 56;

    /**
     * This rank has started collective {@code sequence} with the given signature: a peer that finds it in another
     * operation at the same sequence number fails with an {@link OperationMismatchException}.
     */
    void announce(long sequence, long descriptor, long count);

    /**
     * This rank is in a point-to-point operation ({@code descriptor} × {@code count} describes it for error messages).
     */
    void announcePointToPoint(long descriptor, long count);

    /** This rank has finished {@code collectivesDone} collectives. */
    void finished(long collectivesDone);

    /** This rank has finished its point-to-point operation; the collectives' count stays. */
    void finishedPointToPoint();

    /**
     * A {@link PeerLostException} if {@code peer} is known to have failed or aborted; nothing for peers the board
     * cannot see.
     */
    void checkPeerStopped(int peer) throws PeerLostException;

    /** Marks this rank aborted for the peers that read the board; called before the transports close. */
    void markAborted();
}
