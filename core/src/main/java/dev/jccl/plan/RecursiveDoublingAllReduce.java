package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce by recursive doubling: in round j each rank exchanges everything it has with the rank whose (virtual)
 * number differs in bit j, and both combine the two. log2(p2) rounds of the whole input: the fewest steps of any
 * algorithm, and the most bytes, so it is the small-message AllReduce (MPICH's and Open MPI's choice up to a few KiB).
 * Rank counts that are not a power of two {@link Fold fold} first.
 *
 * <p>A round sends what the rank holds and receives the partner's into the other of RECV and SCRATCH, combined with
 * what it sent ({@code other = mine op theirs}), so nothing a send is reading is written in the same step; the first
 * round reads SEND (or RECV, for a rank that folded a pair's input into it). A result left in SCRATCH is copied to RECV
 * in the last step, where AVG divides and the pairs' even ranks get theirs; out of place the turns are arranged so that
 * it ends in RECV. Both partners of a round combine the same two values, and floating-point {@code +}, {@code ×}, min
 * and max are commutative, so every rank ends with the same bits.
 */
final class RecursiveDoublingAllReduce {
    private RecursiveDoublingAllReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        Fold fold = Fold.of(r);
        int last = fold.firstRound() + fold.rounds();
        Region all = Region.recv(0, n);
        BufferRole held = fold.handOver(b, all, last);
        if (held == null) return;
        // RECV and SCRATCH take turns; a round never writes what it sends. Out of place, a rank that starts from SEND
        // picks the first so that the last round lands in RECV, which saves the copy.
        BufferRole into = held == BufferRole.SEND && !r.inPlace() && fold.rounds() % 2 == 1
                ? BufferRole.RECV
                : BufferRole.SCRATCH;
        int v = fold.virtualRank();
        for (int j = 0; j < fold.rounds(); j++) {
            int partner = fold.realRank(v ^ (1 << j));
            int step = fold.firstRound() + j;
            b.sendAll(step, partner, all.in(held));
            b.receiveAll(step, partner, all.in(into), all.in(held));
            if (into == BufferRole.SCRATCH) b.scratch(n);
            held = into;
            into = held == BufferRole.RECV ? BufferRole.SCRATCH : BufferRole.RECV;
        }
        if (held != BufferRole.RECV) b.copy(last, all.in(held), all);
        if (r.op() == ReduceOp.AVG) b.divide(last, all);
        fold.handBack(b, all, last);
    }
}
