package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce as a ring: a reduce-scatter followed by an all-gather, over slices of at most {@code size × chunkCount}
 * elements, one slice after the other. A slice is cut into {@code size} blocks of {@code ceil(sliceLength / size)}
 * elements (the last ones shorter or empty), so every transfer is at most one chunk. Each slice takes {@code 2 × (size
 * - 1)} steps; every step moves one block over every link of the ring, so the links never idle between slices.
 *
 * <pre>
 * reduce-scatter, step k = 0 .. size-2:  send block (r-k)   (from SEND at k = 0, else RECV)
 *                                        recv block (r-k-1) into RECV, combined with SEND's block
 *   → rank r now holds block (r+1) fully reduced; AVG divides it before the next step's sends
 * all-gather,     step k = 0 .. size-2:  send block (r+1-k) from RECV, recv block (r-k) into RECV
 * </pre>
 *
 * <p>In place (SEND and RECV the same memory) is correct because no SEND element is read after RECV's element at the
 * same index was written, except within the very element-wise combine that writes it: in the reduce-scatter each block
 * is written at most once (block r-k-1 at step k, for blocks r-1, r-2, …, r+1), reading SEND's same block in that same
 * combine; block r itself is only read (sent at step 0) and is first written at all-gather step 0. The all-gather reads
 * no SEND. Slices are disjoint, so one slice never disturbs another.
 */
final class RingAllReduce {
    private RingAllReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        long count = r.count();
        // Fewest slices of at most size × chunkCount elements, written so the product cannot overflow.
        long slices = r.chunkCount() >= Math.ceilDiv(count, size)
                ? Math.min(count, 1)
                : Math.ceilDiv(count, size * r.chunkCount());
        Pieces sliceSplit = new Pieces(count, slices);
        int stepsPerSlice = 2 * (size - 1);
        b.steps(Math.multiplyExact(sliceSplit.steps(), stepsPerSlice));
        for (int s = 0; s < sliceSplit.steps(); s++) {
            Blocks blocks = new Blocks(sliceSplit.offset(s), sliceSplit.length(s), size);
            int base = s * stepsPerSlice;
            for (int k = 0; k < size - 1; k++) {
                int out = r.ringRank(-k);
                int in = r.ringRank(-k - 1);
                b.ringStep(
                        base + k,
                        blocks.in(k == 0 ? BufferRole.SEND : BufferRole.RECV, out),
                        blocks.in(BufferRole.RECV, in),
                        blocks.in(BufferRole.SEND, in));
            }
            int owned = r.ringRank(1);
            int gather = base + size - 1;
            if (r.op() == ReduceOp.AVG) {
                b.divide(gather, blocks.in(BufferRole.RECV, owned));
            }
            for (int k = 0; k < size - 1; k++) {
                b.ringStep(
                        gather + k,
                        blocks.in(BufferRole.RECV, r.ringRank(1 - k)),
                        blocks.in(BufferRole.RECV, r.ringRank(-k)),
                        null);
            }
        }
    }

    /** One slice cut into {@code size} blocks of {@code ceil(length / size)}; trailing blocks may be short or empty. */
    private record Blocks(long sliceOffset, long sliceLength, int size) {
        Region in(BufferRole role, int block) {
            long blockLength = Math.ceilDiv(sliceLength, size);
            long start = Math.min(block * blockLength, sliceLength);
            return new Region(role, sliceOffset + start, Math.min(blockLength, sliceLength - start));
        }
    }
}
