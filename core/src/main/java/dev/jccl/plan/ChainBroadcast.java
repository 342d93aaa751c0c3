package dev.jccl.plan;

/**
 * Broadcast as a pipelined chain root, root+1, …, root+size-1. The rank at chain position p receives chunk c at step
 * c+p-1 from its predecessor and forwards it at step c+p, so after the pipeline fills every link carries a chunk each
 * step: {@code chunks + size - 2} steps in all. The root copies SEND into RECV (skipped in place) and sends from SEND;
 * the others receive into RECV and forward from there. A forwarding rank's step sends chunk c and receives chunk c+1.
 * The root copies after its last send, while the chain drains (on two ranks there is no such step, and it copies
 * first), so that no rank waits for the copy.
 */
final class ChainBroadcast {
    private ChainBroadcast() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        int position = r.ringRank(-r.root());
        int next = r.ringRank(1);
        int prev = r.ringRank(-1);
        long n = r.count();
        Pieces chunks = Pieces.of(n, r.chunkCount());
        int steps = chunks.count() == 0 ? 0 : chunks.steps() + size - 2;
        b.steps(steps);
        if (position == 0) {
            b.copy(chunks.steps() < steps ? chunks.steps() : 0, Region.send(0, n), Region.recv(0, n));
        }
        for (int c = 0; c < chunks.steps(); c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            if (position == 0) {
                b.send(c, next, Region.send(off, len));
                continue;
            }
            b.receive(c + position - 1, prev, Region.recv(off, len), null);
            if (position < size - 1) {
                b.send(c + position, next, Region.recv(off, len));
            }
        }
    }
}
