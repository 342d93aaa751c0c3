package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * ReduceScatter as a ring, one chunk of every block at a time. The partial sum of block {@code j} starts at rank
 * {@code j+1} and travels {@code size - 1} hops, each rank adding its own SEND block, to end at rank {@code j}:
 *
 * <pre>
 * step k = 0 .. size-2:  send partial of block (r-k-1)   (SEND's block itself at k = 0)
 *                        recv block (r-k-2), combined with SEND's block, into SCRATCH half k%2
 *                        — or, at k = size-2 where that block is r, into RECV
 * </pre>
 *
 * The partial received at step k is sent at step k+1 from SCRATCH half k%2 while step k+1 receives into the other half,
 * so a block being sent is never overwritten. SCRATCH is two chunks (one when {@code size == 3}, none when {@code size
 * == 2}).
 *
 * <p>In place (RECV is SEND's block r) is correct: SEND's block r is read only by the final combine, element-wise into
 * the same memory it reads from.
 */
final class RingReduceScatter {
    private RingReduceScatter() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        long n = r.count();
        Pieces chunks = Pieces.of(n, r.chunkCount());
        long half = chunks.longest();
        int stepsPerChunk = size - 1;
        int transferSteps = Math.multiplyExact(chunks.steps(), stepsPerChunk);
        boolean avg = r.op() == ReduceOp.AVG && n > 0;
        b.steps(transferSteps + (avg ? 1 : 0)).scratch(half * Math.min(2, size - 2));
        for (int c = 0; c < chunks.steps(); c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            int base = c * stepsPerChunk;
            for (int k = 0; k < size - 1; k++) {
                int out = r.ringRank(-k - 1);
                int in = r.ringRank(-k - 2);
                Region from = k == 0 ? Region.send(out * n + off, len) : Region.scratch(((k - 1) % 2) * half, len);
                Region into = k == size - 2 ? Region.recv(off, len) : Region.scratch((k % 2) * half, len);
                b.ringStep(base + k, from, into, Region.send(in * n + off, len));
            }
        }
        if (avg) {
            b.divide(transferSteps, Region.recv(0, n));
        }
    }
}
