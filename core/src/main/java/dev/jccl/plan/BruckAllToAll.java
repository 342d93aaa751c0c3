package dev.jccl.plan;

/**
 * AllToAll by Bruck's algorithm: ⌈log2 size⌉ rounds for any number of ranks, against the pairwise exchange's size − 1,
 * at the price of sending each block about log2(size)/2 times and copying it in and out of a staging area each round:
 * the small-message AllToAll of MPICH and Open MPI.
 *
 * <ol>
 *   <li>Rank r copies its blocks into SCRATCH rotated by r: slot i holds the block for rank (r + i) mod size.
 *   <li>In round k (distance d = 2^k) it packs the slots whose index has bit k set into one run, sends it to rank r + d
 *       and receives the same slots from rank r − d, which it unpacks into the same slots next step. After the last
 *       round slot i holds the block that rank (r − i) mod size meant for r.
 *   <li>So the result's block j is slot (r − j) mod size, copied into RECV.
 * </ol>
 *
 * Everything is read from SEND before anything is written to RECV, so in place needs nothing more. SCRATCH holds the
 * size slots and two staging runs of at most ⌈size/2⌉ blocks.
 */
final class BruckAllToAll {
    private BruckAllToAll() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        int me = r.rank();
        long n = r.count();
        int rounds = 32 - Integer.numberOfLeadingZeros(size - 1);
        long staged = (size + 1) / 2 * n; // the most blocks a round moves: the indices below size with one bit set
        long outbox = size * n;
        long inbox = outbox + staged;
        b.steps(rounds + 1).scratch(inbox + staged);
        // Slot i = the block for rank (me + i) mod size: two runs of SEND.
        b.copy(0, Region.send(me * n, (size - me) * n), Region.scratch(0, (size - me) * n));
        b.copy(0, Region.send(0, me * n), Region.scratch((size - me) * n, me * n));
        for (int k = 0; k < rounds; k++) {
            int bit = 1 << k;
            if (k > 0) unpack(b, k, bit >> 1, size, n, inbox); // last round's arrivals, before this round's packing
            long packed = 0;
            for (int i = bit; i < size; i++) {
                if ((i & bit) == 0) continue;
                b.copy(k, Region.scratch(i * n, n), Region.scratch(outbox + packed, n));
                packed += n;
            }
            b.sendAll(k, r.ringRank(bit), Region.scratch(outbox, packed));
            b.receiveAll(k, r.ringRank(-bit), Region.scratch(inbox, packed), null);
        }
        if (rounds > 0) unpack(b, rounds, 1 << (rounds - 1), size, n, inbox);
        // Block j of the result is slot (me − j) mod size.
        for (int j = 0; j < size; j++) {
            b.copy(rounds, Region.scratch(Math.floorMod(me - j, size) * n, n), Region.recv(j * n, n));
        }
    }

    /** Copies the run received in the round of {@code bit} back into the slots with that bit set. */
    private static void unpack(ScheduleBuilder b, int step, int bit, int size, long n, long inbox) {
        long at = 0;
        for (int i = bit; i < size; i++) {
            if ((i & bit) == 0) continue;
            b.copy(step, Region.scratch(inbox + at, n), Region.scratch(i * n, n));
            at += n;
        }
    }
}
