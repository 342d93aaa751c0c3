package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * What the planner needs to know about one operation on one rank. {@code count} follows the public API: per-rank count
 * for AllGather ({@code sendCount}), ReduceScatter ({@code recvCount}) and AllToAll ({@code countPerPeer}). {@code op}
 * is null where nothing is reduced. {@code chunkCount} is the largest number of elements one transfer may carry (at
 * least 1).
 *
 * <p>Peers: {@code root} is the root for Broadcast/Reduce, the peer for Send/Recv, the peer sent to for SendRecv, and
 * -1 otherwise. {@code recvPeer} is the peer SendRecv receives from, and -1 for every other operation (the one peer of
 * Send/Recv is {@code root}).
 *
 * <p>{@code inPlace} says that SEND and RECV are the same memory on this rank. Only SendRecv's plan depends on it (in
 * place it must stage what arrives, out of place it need not); every other algorithm is written to be right either way
 * and ignores it.
 *
 * <p>{@code algorithm} is the {@link Tuner}'s choice; a collective without a schedule for it is planned with its ring
 * (or chain, or pairwise) schedule.
 */
public record OpRequest(
        Collective collective,
        int rank,
        int size,
        long count,
        ReduceOp op,
        int root,
        int recvPeer,
        boolean inPlace,
        long chunkCount,
        Tuner.Algorithm algorithm) {
    public OpRequest {
        if (size < 1 || rank < 0 || rank >= size) throw new IllegalArgumentException("rank " + rank + " of " + size);
        if (count < 0) throw new IllegalArgumentException("count " + count);
        if (chunkCount < 1) throw new IllegalArgumentException("chunkCount " + chunkCount);
        if (algorithm == null) algorithm = Tuner.Algorithm.RING;
    }

    /**
     * The rank {@code offset} places after this one on the ring of all ranks (before it for a negative offset): a
     * ring's next rank is {@code ringRank(1)}, and this rank's place in a chain that starts at {@code root} is
     * {@code ringRank(-root)}.
     */
    public int ringRank(int offset) {
        return Math.floorMod(rank + offset, size);
    }

    /** The same request with another algorithm. */
    public OpRequest with(Tuner.Algorithm a) {
        return new OpRequest(collective, rank, size, count, op, root, recvPeer, inPlace, chunkCount, a);
    }

    /**
     * Any operation but SendRecv, with the default algorithm (ring, chain, pairwise or point-to-point, as the
     * collective has): no second peer ({@code recvPeer} -1), not marked in place.
     */
    public OpRequest(Collective collective, int rank, int size, long count, ReduceOp op, int root, long chunkCount) {
        this(collective, rank, size, count, op, root, -1, false, chunkCount, Tuner.Algorithm.RING);
    }

    /** SendRecv: send {@code count} elements to {@code sendPeer} while receiving as many from {@code recvPeer}. */
    public static OpRequest sendRecv(
            int rank, int size, long count, int sendPeer, int recvPeer, boolean inPlace, long chunkCount) {
        return new OpRequest(
                Collective.SEND_RECV,
                rank,
                size,
                count,
                null,
                sendPeer,
                recvPeer,
                inPlace,
                chunkCount,
                Tuner.Algorithm.RING);
    }
}
