package dev.jccl.plan;

/**
 * How the recursive algorithms (recursive doubling, Rabenseifner's) run on a number of ranks that is not a power of
 * two, as MPICH does it. With {@code P} ranks and {@code p2} the largest power of two not above it, the first
 * {@code 2·(P − p2)} ranks form pairs: before the recursion the even rank of each pair hands its whole input to the odd
 * one, which combines it with its own, and the even rank sits the recursion out; after it, the odd rank hands it the
 * result. The {@code p2} ranks that take part are numbered 0 … p2−1 (their "virtual" ranks), the odd rank of pair
 * {@code i} being {@code i}. Two extra steps, each moving the whole input once, for any rank count that is not a power
 * of two.
 */
record Fold(int size, int powerOfTwo, int rank) {

    static Fold of(OpRequest r) {
        return new Fold(r.size(), Integer.highestOneBit(r.size()), r.rank());
    }

    /** Ranks beyond the power of two: the number of pairs. */
    int pairs() {
        return size - powerOfTwo;
    }

    /** Whether this rank hands its input to its pair's odd rank and waits for the result. */
    boolean sitsOut() {
        return rank < 2 * pairs() && rank % 2 == 0;
    }

    /** Whether this rank combines its pair's input with its own before the recursion. */
    boolean combines() {
        return rank < 2 * pairs() && rank % 2 == 1;
    }

    /** This rank's number among the ranks that take part (not for one that sits out). */
    int virtualRank() {
        return rank < 2 * pairs() ? rank / 2 : rank - pairs();
    }

    /** The rank whose virtual rank is {@code v}. */
    int realRank(int v) {
        return v < pairs() ? 2 * v + 1 : v + pairs();
    }

    /** Rounds of the recursion: log2 of the power of two. */
    int rounds() {
        return Integer.numberOfTrailingZeros(powerOfTwo);
    }

    /** Steps before the recursion: one for the pairs' hand-over where there are pairs, else none. */
    int firstRound() {
        return pairs() > 0 ? 1 : 0;
    }

    /**
     * The hand-over before the recursion, in step 0, for an AllReduce of {@code all} (RECV): a rank that sits out sends
     * its input and takes the result back at step {@code last}, which completes its schedule; a rank that combines
     * receives its pair's input into RECV, combined with its own. Returns where this rank's input now is: SEND, RECV
     * for a rank that combined, or null for one that sat out (its schedule is done).
     */
    BufferRole handOver(ScheduleBuilder b, Region all, int last) {
        if (sitsOut()) {
            b.sendAll(0, rank + 1, all.in(BufferRole.SEND));
            b.receiveAll(last, rank + 1, all, null);
            return null;
        }
        if (combines()) {
            b.receiveAll(0, rank - 1, all, all.in(BufferRole.SEND));
            return BufferRole.RECV;
        }
        return BufferRole.SEND;
    }

    /** The hand-back at step {@code last}: a rank that combined sends its pair the result in RECV. */
    void handBack(ScheduleBuilder b, Region all, int last) {
        if (combines()) b.sendAll(last, rank - 1, all);
    }
}
