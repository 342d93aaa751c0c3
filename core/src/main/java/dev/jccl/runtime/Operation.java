package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import java.lang.foreign.MemorySegment;

/**
 * One checked call, as {@link OperationChecks} builds it for every kind of memory: what to do, on which buffers, before
 * the {@link Sequencer} gives it a number and an executor runs it.
 *
 * <p>{@code send} and {@code recv} are sliced to exactly the bytes the operation touches, and never null: a Broadcast's
 * non-root reads nothing, so its {@code send} is its {@code recv}; a Reduce's non-root writes nothing, so its
 * {@code recv} is its {@code send}; a Send or Recv has one buffer, passed as both. For {@link MemoryKind#DEVICE}
 * buffers the segments only carry a device address and a length: host code must never read or write them.
 *
 * @param root the root, the peer of a Send or Recv, or the peer a SendRecv sends to; -1 if none
 * @param recvPeer the peer a SendRecv receives from; -1 otherwise
 * @param op the reduction, null for operations that do not reduce
 */
public record Operation(
        Collective collective,
        MemorySegment send,
        MemorySegment recv,
        long count,
        DataType type,
        ReduceOp op,
        int root,
        int recvPeer,
        MemoryKind kind) {

    /** Whether every rank of the communicator takes part (a collective), rather than one or two peers. */
    public boolean isCollective() {
        return !collective.isPointToPoint();
    }

    /** Whether the operation writes where it reads (the same memory passed as both buffers). */
    public boolean inPlace() {
        return Memory.same(send, recv);
    }

    /** Bytes this rank contributes: one block for most operations, every block for ReduceScatter and AllToAll. */
    public long bytesPerRank(int ranks) {
        long bytes = count * type.byteSize();
        return collective == Collective.REDUCE_SCATTER || collective == Collective.ALL_TO_ALL ? bytes * ranks : bytes;
    }
}
