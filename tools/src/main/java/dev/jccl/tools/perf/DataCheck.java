package dev.jccl.tools.perf;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One rank's side of {@code jccl perf -c}: writes this rank's inputs, writes what its receive buffer must hold
 * afterwards, and counts the elements that differ (bit for bit). Each rank computes every peer's inputs itself from the
 * shared seed, so nothing but the collective under test moves data between ranks.
 */
final class DataCheck {
    private final PerfCollective collective;
    private final DataType type;
    private final int root;
    private final int rank;
    private final int ranks;
    private final CheckValues values;

    DataCheck(PerfCollective collective, DataType type, ReduceOp op, int root, int rank, int ranks, long seed) {
        this.collective = collective;
        this.type = type;
        this.root = root;
        this.rank = rank;
        this.ranks = ranks;
        this.values = new CheckValues(type, collective.reduces() ? op : null, ranks, seed);
    }

    /**
     * Zeroes {@code recv}, then writes this rank's inputs into {@code send} (in that order, so an in-place send inside
     * recv keeps its data) and the expected result into {@code expected}.
     */
    void prepare(MemorySegment send, MemorySegment recv, MemorySegment expected, PerfCollective.Geometry g) {
        recv.asSlice(0, g.recvCount() * type.byteSize()).fill((byte) 0);
        for (long k = 0; k < g.sendCount(); k++) set(send, k, values.encode(values.input(inputRank(), k)));
        long block = g.paramCount();
        long checked = checkedCount(g);
        for (long i = 0; i < checked; i++) set(expected, i, expectedAt(i, block));
    }

    /** Elements of the receive buffer this rank checks (Reduce: the root's only). */
    long checkedCount(PerfCollective.Geometry g) {
        return collective == PerfCollective.REDUCE && rank != root ? 0 : g.recvCount();
    }

    /** Elements of {@code recv} that differ from {@code expected}. */
    long countWrong(MemorySegment recv, MemorySegment expected, PerfCollective.Geometry g) {
        long wrong = 0;
        long checked = checkedCount(g);
        for (long i = 0; i < checked; i++) {
            if (get(recv, i) != get(expected, i)) wrong++;
        }
        return wrong;
    }

    /** Flips one bit of one checked element, for the hidden option that proves the check can fail. */
    boolean corrupt(MemorySegment recv, PerfCollective.Geometry g) {
        long checked = checkedCount(g);
        if (checked == 0) return false;
        long at = (checked / 2) * type.byteSize();
        recv.set(ValueLayout.JAVA_BYTE, at, (byte) (recv.get(ValueLayout.JAVA_BYTE, at) ^ 1));
        return true;
    }

    /**
     * Whose inputs this rank's send buffer holds: its own, except that Broadcast's payload is the root's everywhere.
     */
    private int inputRank() {
        return collective == PerfCollective.BROADCAST ? root : rank;
    }

    private long expectedAt(long i, long block) {
        return switch (collective) {
            case ALL_REDUCE, REDUCE -> values.encode(values.reduced(i));
            case REDUCE_SCATTER -> values.encode(values.reduced(rank * block + i));
            case BROADCAST -> values.encode(values.input(root, i));
            case ALL_GATHER -> values.encode(values.input((int) (i / block), i % block));
            case ALL_TO_ALL -> values.encode(values.input((int) (i / block), rank * block + i % block));
            case SENDRECV -> values.encode(values.input((rank - 1 + ranks) % ranks, i));
        };
    }

    private void set(MemorySegment s, long index, long bits) {
        switch (type.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, index, (byte) bits);
            case 2 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, index * 2, (short) bits);
            case 4 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, index * 4, (int) bits);
            default -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, index * 8, bits);
        }
    }

    private long get(MemorySegment s, long index) {
        return switch (type.byteSize()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, index);
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, index * 2);
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, index * 4);
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, index * 8);
        };
    }
}
