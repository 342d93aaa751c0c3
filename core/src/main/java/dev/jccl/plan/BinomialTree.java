package dev.jccl.plan;

/**
 * A binomial tree over {@code size} ranks, rooted at {@code root}: ranks are renumbered so that the root is 0 (counting
 * up from the root, or down from it when {@code mirrored}), and in round j a rank whose number v has bit j as its
 * lowest set bit talks to v − 2^j. Broadcast and Reduce take ⌈log2 size⌉ rounds of the whole message; MPICH and Open
 * MPI use it for small ones. The mirrored tree rooted at the last rank makes every odd rank of the first tree an inner
 * node, so that two trees carrying half the data each share the load ({@link TreeAllReduce}).
 */
record BinomialTree(int size, int root, boolean mirrored) {

    int virtualOf(int rank) {
        return mirrored ? Math.floorMod(root - rank, size) : Math.floorMod(rank - root, size);
    }

    int rankOf(int v) {
        return mirrored ? Math.floorMod(root - v, size) : Math.floorMod(root + v, size);
    }

    /** ⌈log2 size⌉. */
    int rounds() {
        return rounds(size);
    }

    /** The rounds of a binomial tree of {@code size} ranks, ⌈log2 size⌉: what the tuner's tree estimates count. */
    static int rounds(int size) {
        return 32 - Integer.numberOfLeadingZeros(size - 1);
    }

    /**
     * Reduces {@code region} (given in RECV's coordinates) up the tree from step {@code firstStep}: a rank combines
     * what each child sends into {@code partial} (its first with its own SEND), then sends the partial to its parent.
     * Returns where this rank's partial ends: SEND for a leaf, else {@code partial} (at the root, the result).
     */
    BufferRole reduce(ScheduleBuilder b, int firstStep, int rank, Region region, BufferRole partial) {
        int v = virtualOf(rank);
        BufferRole held = BufferRole.SEND;
        for (int j = 0; j < rounds(); j++) {
            int mask = 1 << j;
            if ((v & mask) != 0) {
                b.sendAll(firstStep + j, rankOf(v - mask), region.in(held));
                return held;
            }
            if (v + mask < size) {
                b.receiveAll(firstStep + j, rankOf(v + mask), region.in(partial), region.in(held));
                held = partial;
            }
        }
        return held;
    }

    /**
     * Broadcasts {@code region} (RECV's coordinates) down the tree from step {@code firstStep}: the root sends from
     * {@code rootSource}, every other rank receives into RECV and passes it on from there.
     */
    void broadcast(ScheduleBuilder b, int firstStep, int rank, Region region, BufferRole rootSource) {
        int v = virtualOf(rank);
        for (int j = 0; j < rounds(); j++) {
            int mask = 1 << j;
            if (v < mask && v + mask < size) {
                b.sendAll(firstStep + j, rankOf(v + mask), region.in(v == 0 ? rootSource : BufferRole.RECV));
            } else if (v >= mask && v < 2 * mask) {
                b.receiveAll(firstStep + j, rankOf(v - mask), region.in(BufferRole.RECV), null);
            }
        }
    }
}
