package dev.jccl.plan;

/**
 * Broadcast down trees. A message of one piece goes down a {@link BinomialTree binomial tree}: ⌈log2 size⌉ steps of the
 * whole message, against the chain's {@code chunks + size − 2} steps of one chunk each. A longer one is cut into pieces
 * as {@link TreeAllReduce} cuts its halves, and its two halves go down the two {@link RootedTrees} at once, pipelined:
 * piece c of a half leaves the root at step c and a rank at depth δ receives it at step c + δ − 1 and passes it to its
 * children at step c + δ. That is pieces + height − 1 steps, each moving about a piece in and a piece out of every
 * port, where the binomial tree sends the whole message once per round and the chain fills in size − 1 steps
 * ({@code jccl sim}, 4096 ranks on 32 hosts, 16 MiB: the binomial tree 4.3 s, the chain 0.74 s, the two-level tree 56
 * ms).
 *
 * <p>The root copies SEND into RECV (skipped in place) and sends from SEND; the others receive into RECV and pass it on
 * from there. Pipelined, the root copies once its last piece has left, while the trees drain, so no rank waits for the
 * copy (done before the first send, it was half of the simulated 16 MiB Broadcast on 8 ranks); a single piece goes out
 * from the root in every round, and the copy comes first.
 */
final class TreeBroadcast {
    private TreeBroadcast() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        Region all = Region.recv(0, n);
        boolean root = r.rank() == r.root();
        long pieces = pieces(r.size(), n, r.chunkCount());
        if (pieces > 1) {
            int steps = pipelined(b, r, (int) pieces);
            // The root's last pieces leave at step pieces - 1; the steps after it only drain the trees.
            if (root) b.copy(pieces < steps ? (int) pieces : 0, all.in(BufferRole.SEND), all);
            return;
        }
        if (root) b.copy(0, all.in(BufferRole.SEND), all);
        BinomialTree tree = new BinomialTree(r.size(), r.root(), false);
        b.steps(tree.rounds());
        tree.broadcast(b, 0, r.rank(), all, BufferRole.SEND);
    }

    /**
     * How many pieces each half of {@code count} elements is cut into, as {@link TreeAllReduce} cuts its halves; one
     * (the binomial tree) on two ranks, where the trees are a single hop and pieces would only add messages
     * ({@code jccl sim}, 2 hosts, 256 KiB: 178 µs in pieces against 160 whole). Also what the tuner's estimates count.
     */
    static long pieces(int size, long count, long chunkCount) {
        return size <= 2 ? 1 : TreeAllReduce.pieces(Math.ceilDiv(count, 2), chunkCount);
    }

    /** Builds the pipelined schedule and returns its step count. */
    private static int pipelined(ScheduleBuilder b, OpRequest r, int pieces) {
        long n = r.count();
        long half = Math.ceilDiv(n, 2);
        RootedTrees trees = new RootedTrees(r.size(), r.root());
        Region[] halves = {Region.recv(0, half), Region.recv(half, n - half)};
        Pieces[] cuts = {new Pieces(half, pieces), new Pieces(n - half, pieces)};
        int rank = r.rank();
        BufferRole source = rank == r.root() ? BufferRole.SEND : BufferRole.RECV;
        int steps = pieces + trees.height() - 1;
        b.steps(steps);
        // Both trees' actions in the same order on every rank, so two transfers between one pair in a step pair up.
        for (int c = 0; c < pieces; c++) {
            for (int t = 0; t < 2; t++) {
                Region piece = halves[t].slice(cuts[t].offset(c), cuts[t].length(c));
                int depth = trees.depthOf(t, rank);
                if (depth > 0) b.receive(c + depth - 1, trees.parentOf(t, rank), piece, null);
                for (int child : trees.childrenOf(t, rank)) b.send(c + depth, child, piece.in(source));
            }
        }
        return steps;
    }
}
