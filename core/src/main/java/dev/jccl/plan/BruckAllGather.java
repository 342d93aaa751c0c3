package dev.jccl.plan;

/**
 * AllGather by Bruck's algorithm: in round j (distance d = 2^j) each rank sends the blocks it has, those of ranks r …
 * r+d−1, to rank r−d and receives those of ranks r+d … r+2d−1 from rank r+d (all modulo size; the last round only what
 * is still missing). ⌈log2 size⌉ steps for any number of ranks, against the ring's size − 1, with the ring's bytes: the
 * small-message AllGather of MPICH and Open MPI, and recursive doubling's generalisation to every rank count.
 *
 * <p>Blocks stay where the result wants them (block b at RECV offset b·count), so no final rotation is needed: a run of
 * blocks that wraps past the last rank is sent as two runs, which sender and receiver cut alike.
 */
final class BruckAllGather {
    private BruckAllGather() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        int size = r.size();
        int me = r.rank();
        b.copy(0, Region.send(0, n), Region.recv(me * n, n));
        int step = 0;
        for (int d = 1; d < size; d <<= 1, step++) {
            int blocks = Math.min(d, size - d);
            b.steps(step + 1);
            blocksFrom(b, step, r.ringRank(-d), me, blocks, n, size, true);
            blocksFrom(b, step, r.ringRank(d), (me + d) % size, blocks, n, size, false);
        }
    }

    /** Sends (or receives) blocks {@code first} … {@code first+blocks−1} modulo size: one or two runs of RECV. */
    private static void blocksFrom(
            ScheduleBuilder b, int step, int peer, int first, int blocks, long n, int size, boolean send) {
        int beforeWrap = Math.min(blocks, size - first);
        run(b, step, peer, Region.recv(first * n, beforeWrap * n), send);
        if (blocks > beforeWrap) run(b, step, peer, Region.recv(0, (blocks - beforeWrap) * n), send);
    }

    private static void run(ScheduleBuilder b, int step, int peer, Region blocks, boolean send) {
        if (send) {
            b.sendAll(step, peer, blocks);
        } else {
            b.receiveAll(step, peer, blocks, null);
        }
    }
}
