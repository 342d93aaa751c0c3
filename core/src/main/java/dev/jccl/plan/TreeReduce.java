package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * Reduce up a {@link BinomialTree binomial tree} towards the root: ⌈log2 size⌉ steps of the whole message (one more for
 * AVG's division at the root). Inner ranks keep their partial in SCRATCH, since only the root may write RECV; the root
 * combines straight into RECV.
 */
final class TreeReduce {
    private TreeReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        BinomialTree tree = new BinomialTree(r.size(), r.root(), false);
        boolean root = r.rank() == r.root();
        boolean avg = r.op() == ReduceOp.AVG;
        b.steps(tree.rounds() + (avg ? 1 : 0));
        Region all = Region.recv(0, n);
        BufferRole held = tree.reduce(b, 0, r.rank(), all, root ? BufferRole.RECV : BufferRole.SCRATCH);
        if (held == BufferRole.SCRATCH) b.scratch(n);
        if (root && avg) b.divide(tree.rounds(), all);
    }
}
