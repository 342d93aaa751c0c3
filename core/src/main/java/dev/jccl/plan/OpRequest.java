package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * What the planner needs to know about one operation on one rank. {@code count} follows the
 * public API: per-rank count for AllGather ({@code sendCount}), ReduceScatter ({@code recvCount})
 * and AllToAll ({@code countPerPeer}). {@code root} is the root for Broadcast/Reduce and the peer
 * for Send/Recv, -1 otherwise. {@code op} is null where nothing is reduced.
 * {@code chunkCount} is the largest number of elements one transfer may carry (at least 1).
 */
public record OpRequest(Collective collective, int rank, int size, long count, ReduceOp op, int root, long chunkCount) {
    public OpRequest {
        if (size < 1 || rank < 0 || rank >= size) throw new IllegalArgumentException("rank " + rank + " of " + size);
        if (count < 0) throw new IllegalArgumentException("count " + count);
        if (chunkCount < 1) throw new IllegalArgumentException("chunkCount " + chunkCount);
    }
}
