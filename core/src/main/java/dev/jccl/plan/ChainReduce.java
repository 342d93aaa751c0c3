package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * Reduce as a pipelined chain towards the root: root+1, root+2, …, root+size-1, root. The rank at position 0 sends its
 * SEND chunk c at step c; the rank at position q receives chunk c at step c+q-1, combined with its own SEND chunk, and
 * forwards it at step c+q. Middle ranks keep the partial in SCRATCH, in the half chosen by c's parity, so the chunk
 * being forwarded is not the one being received; the root receives straight into RECV. Non-root ranks never write RECV.
 * {@code chunks + size - 2} steps, one more for AVG's division at the root.
 */
final class ChainReduce {
    private ChainReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        int position = r.ringRank(-r.root() - 1);
        int next = r.ringRank(1);
        int prev = r.ringRank(-1);
        boolean root = position == size - 1;
        long n = r.count();
        Pieces chunks = Pieces.of(n, r.chunkCount());
        long half = chunks.longest();
        int transferSteps = chunks.count() == 0 ? 0 : chunks.steps() + size - 2;
        boolean avg = r.op() == ReduceOp.AVG && n > 0;
        b.steps(transferSteps + (avg ? 1 : 0));
        boolean middle = position > 0 && !root;
        if (middle) {
            b.scratch(half * Math.min(2, chunks.count()));
        }
        for (int c = 0; c < chunks.steps(); c++) {
            Region mine = Region.send(chunks.offset(c), chunks.length(c));
            if (position == 0) {
                b.send(c, next, mine);
            } else if (middle) {
                Region partial = Region.scratch((c % 2) * half, mine.count());
                b.receive(c + position - 1, prev, partial, mine);
                b.send(c + position, next, partial);
            } else {
                b.receive(c + position - 1, prev, Region.recv(mine.offset(), mine.count()), mine);
            }
        }
        if (avg && root) {
            b.divide(transferSteps, Region.recv(0, n));
        }
    }
}
