package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce in one round per chunk: every rank sends its chunk to every other rank, receives theirs into SCRATCH (one
 * block per rank, its own copied there too), and reduces the blocks in rank order into RECV, so every rank computes the
 * same bits. One step of latency instead of the ring's 2(P-1), for P-1 times the traffic: what small operations over
 * the network want.
 *
 * <pre>
 * step c:    [reduce chunk c-1: RECV = B0 op B1, RECV = RECV op B2, …; avg]  copy SEND chunk c → B(r)
 *            send SEND chunk c → every peer | recv chunk c ← peer p into B(p), for every peer
 * step m:    reduce chunk m-1 (local actions only)
 * </pre>
 *
 * The reduce of a chunk runs before the copy and receives of the next, which reuse the blocks. In place is safe: the
 * sends of chunk c read SEND before the reduce of chunk c writes RECV, a step later, and the reduce reads only SCRATCH.
 */
final class OneShotAllReduce {
    private OneShotAllReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        Pieces chunks = Pieces.of(r.count(), r.chunkCount());
        long block = chunks.longest();
        b.scratch(block * size).steps(chunks.count() == 0 ? 0 : chunks.steps() + 1);
        for (int s = 0; s <= chunks.steps() && chunks.count() > 0; s++) {
            if (s > 0) {
                long off = chunks.offset(s - 1);
                long len = chunks.length(s - 1);
                Region into = Region.recv(off, len);
                b.reduce(s, Region.scratch(0, len), Region.scratch(block, len), into);
                for (int p = 2; p < size; p++) b.reduce(s, into, Region.scratch(p * block, len), into);
                if (r.op() == ReduceOp.AVG) b.divide(s, into);
            }
            if (s == chunks.steps()) break;
            long off = chunks.offset(s);
            long len = chunks.length(s);
            b.copy(s, Region.send(off, len), Region.scratch(r.rank() * block, len));
            for (int k = 1; k < size; k++) {
                int peer = r.ringRank(k);
                b.send(s, peer, Region.send(off, len));
            }
            for (int k = 1; k < size; k++) {
                int peer = r.ringRank(-k);
                b.receive(s, peer, Region.scratch(peer * block, len), null);
            }
        }
    }
}
