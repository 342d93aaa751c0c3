package dev.jccl.plan;

/**
 * AllToAll as rounds of pairwise exchanges. In each round every rank is paired with one partner (the round-robin
 * tournament schedule: partner(r, k) = (k - r) mod m, so the pairing is its own inverse) and the two swap the blocks
 * meant for each other, one chunk per step. With an even size that is {@code size - 1} rounds; with an odd size
 * {@code size} rounds, each rank sitting one out.
 *
 * <p>Why pairs and not the shift order (send to r+k, receive from r-k): in place, the block a rank receives from r-k in
 * round k is the block it must still send to r-k in round size-k. With pairs, the block sent to a partner and the block
 * received from it are the same block, sent once and then overwritten. The incoming chunk lands in one chunk of SCRATCH
 * and is copied to RECV at the start of the next step, once the outgoing chunk from that memory has been sent — a local
 * copy per chunk, and one trailing step, buy correctness in place.
 */
final class PairwiseAllToAll {
    private PairwiseAllToAll() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        int me = r.rank();
        long n = r.count();
        Pieces chunks = Pieces.of(n, r.chunkCount());
        int rounds = rounds(size);
        int transferSteps = Math.multiplyExact(rounds, chunks.steps());
        b.steps(transferSteps == 0 ? 0 : transferSteps + 1).scratch(chunks.longest());
        b.copy(0, Region.send(me * n, n), Region.recv(me * n, n));
        for (int k = 0; k < rounds; k++) {
            int peer = partner(me, k, size);
            if (peer < 0) {
                continue;
            }
            for (int c = 0; c < chunks.steps(); c++) {
                int step = k * chunks.steps() + c;
                long off = peer * n + chunks.offset(c);
                long len = chunks.length(c);
                b.send(step, peer, Region.send(off, len));
                b.receive(step, peer, Region.scratch(0, len), null);
                b.copy(step + 1, Region.scratch(0, len), Region.recv(off, len));
            }
        }
    }

    static int rounds(int size) {
        return size % 2 == 0 ? size - 1 : size;
    }

    /** The rank paired with {@code rank} in round {@code round}, or -1 if it sits this round out. */
    static int partner(int rank, int round, int size) {
        if (size % 2 == 1) {
            int p = Math.floorMod(round - rank, size);
            return p == rank ? -1 : p;
        }
        // Even size: tournament over the first size-1 ranks; whoever would sit out meets the last rank.
        int m = size - 1;
        if (rank == m) {
            return Math.floorMod(round * ((m + 1) / 2), m); // the i with 2i ≡ round (mod m); m is odd
        }
        int p = Math.floorMod(round - rank, m);
        return p == rank ? m : p;
    }
}
