package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * Reduce up trees towards the root. A message of one piece goes up a {@link BinomialTree binomial tree}: ⌈log2 size⌉
 * steps of the whole message (one more for AVG's division at the root); inner ranks keep their partial in SCRATCH,
 * since only the root may write RECV, and the root combines straight into RECV. A longer message runs
 * {@link TreeBroadcast}'s pipeline backwards over the two {@link RootedTrees}, a half in each: a rank at depth δ of a
 * tree of height H sends its partial of piece c to its parent at step c + H − δ, having received its children's at the
 * step before, and the root combines piece c into RECV at step c + H − 1. That is pieces + H − 1 steps (one more for
 * AVG).
 *
 * <p>Memory, as in {@link TreeAllReduce}: the first child's piece is combined with this rank's input on arrival into a
 * partial slot, the second child's lands in an arrival slot and is combined at the start of the next step, before the
 * partial goes up. Each kind of slot comes two per tree, used in turn: a slot is written again two steps later, when
 * the step that sent from it has ended. A leaf sends from SEND.
 */
final class TreeReduce {
    private TreeReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        long pieces = TreeBroadcast.pieces(r.size(), n, r.chunkCount());
        if (pieces > 1) {
            pipelined(b, r, (int) pieces);
            return;
        }
        BinomialTree tree = new BinomialTree(r.size(), r.root(), false);
        boolean root = r.rank() == r.root();
        boolean avg = r.op() == ReduceOp.AVG;
        b.steps(tree.rounds() + (avg ? 1 : 0));
        Region all = Region.recv(0, n);
        BufferRole held = tree.reduce(b, 0, r.rank(), all, root ? BufferRole.RECV : BufferRole.SCRATCH);
        if (held == BufferRole.SCRATCH) b.scratch(n);
        if (root && avg) b.divide(tree.rounds(), all);
    }

    private static void pipelined(ScheduleBuilder b, OpRequest r, int pieces) {
        long n = r.count();
        long half = Math.ceilDiv(n, 2);
        RootedTrees trees = new RootedTrees(r.size(), r.root());
        int height = trees.height();
        boolean avg = r.op() == ReduceOp.AVG;
        Region[] halves = {Region.recv(0, half), Region.recv(half, n - half)};
        Pieces[] cuts = {new Pieces(half, pieces), new Pieces(n - half, pieces)};
        long[] slotsAt = {0, 4 * cuts[0].longest()}; // per tree: two partial slots, then two arrival slots
        b.scratch(slotsAt[1] + 4 * cuts[1].longest());
        b.steps(pieces + height - 1 + (avg ? 1 : 0));
        int rank = r.rank();
        // Both trees' actions in the same order on every rank, so two transfers between one pair in a step pair up.
        for (int c = 0; c < pieces; c++) {
            for (int t = 0; t < 2; t++) {
                Region piece = halves[t].slice(cuts[t].offset(c), cuts[t].length(c));
                int depth = trees.depthOf(t, rank);
                int[] children = trees.childrenOf(t, rank);
                int up = c + height - depth; // the step this rank sends its partial of piece c to its parent
                if (depth == 0) {
                    b.receive(up - 1, children[0], piece, piece.in(BufferRole.SEND));
                    if (avg) b.divide(up, piece);
                    continue;
                }
                long longest = cuts[t].longest();
                Region partial = piece.in(BufferRole.SEND);
                if (children.length > 0) {
                    partial = Region.scratch(slotsAt[t] + (c % 2) * longest, piece.count());
                    b.receive(up - 1, children[0], partial, piece.in(BufferRole.SEND));
                }
                if (children.length > 1) {
                    Region arrived = Region.scratch(slotsAt[t] + (2 + c % 2) * longest, piece.count());
                    b.receive(up - 1, children[1], arrived, null);
                    b.reduce(up, partial, arrived, partial);
                }
                b.send(up, trees.parentOf(t, rank), partial);
            }
        }
    }
}
