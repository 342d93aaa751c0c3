package dev.jccl.plan;

import java.util.Arrays;
import java.util.Random;

/**
 * One simulated rank's memory: a single {@code long[]} in which each {@link BufferRole} is a window {@code [base, base
 * + length)}. In place is modelled the way the API defines it, by windows that overlap: SEND and RECV at the same base,
 * AllGather's SEND as RECV's block r, ReduceScatter's RECV as SEND's block r. Everything starts as random garbage, so
 * reading memory nobody wrote shows up as a wrong result.
 */
final class RankMemory {
    final long[] cells;
    private final long[] base = new long[BufferRole.values().length];
    private final long[] length = new long[BufferRole.values().length];

    private RankMemory(long size) {
        cells = new long[Math.toIntExact(size)];
    }

    /** SEND, RECV and SCRATCH one after the other, disjoint. */
    static RankMemory separate(long sendLength, long recvLength, long scratchLength, Random garbage) {
        RankMemory m = new RankMemory(sendLength + recvLength + scratchLength);
        m.window(BufferRole.SEND, 0, sendLength);
        m.window(BufferRole.RECV, sendLength, recvLength);
        m.window(BufferRole.SCRATCH, sendLength + recvLength, scratchLength);
        return m.fill(garbage);
    }

    /**
     * SEND and RECV overlapping: the larger one at 0, the other at {@code innerOffset} inside it (0 for the same
     * memory), SCRATCH after both.
     */
    static RankMemory overlapping(
            long sendLength, long recvLength, long innerOffset, long scratchLength, Random garbage) {
        long outer = Math.max(sendLength, recvLength);
        RankMemory m = new RankMemory(outer + scratchLength);
        boolean sendIsOuter = sendLength >= recvLength;
        m.window(BufferRole.SEND, sendIsOuter ? 0 : innerOffset, sendLength);
        m.window(BufferRole.RECV, sendIsOuter ? innerOffset : 0, recvLength);
        m.window(BufferRole.SCRATCH, outer, scratchLength);
        return m.fill(garbage);
    }

    long base(BufferRole role) {
        return base[role.ordinal()];
    }

    long length(BufferRole role) {
        return length[role.ordinal()];
    }

    /** The cell index of a region's first element, after checking the region fits its window. */
    int address(Region r) {
        if (r.offset() + r.count() > length(r.buffer())) {
            throw new AssertionError("region " + ScheduleText.region(r) + " overruns " + r.buffer() + " of "
                    + length(r.buffer()) + " elements");
        }
        return Math.toIntExact(base(r.buffer()) + r.offset());
    }

    long[] read(BufferRole role) {
        int from = Math.toIntExact(base(role));
        return Arrays.copyOfRange(cells, from, from + Math.toIntExact(length(role)));
    }

    void write(BufferRole role, long[] values) {
        System.arraycopy(values, 0, cells, Math.toIntExact(base(role)), values.length);
    }

    private void window(BufferRole role, long at, long len) {
        base[role.ordinal()] = at;
        length[role.ordinal()] = len;
    }

    private RankMemory fill(Random garbage) {
        for (int i = 0; i < cells.length; i++) {
            cells[i] = garbage.nextLong();
        }
        return this;
    }
}
