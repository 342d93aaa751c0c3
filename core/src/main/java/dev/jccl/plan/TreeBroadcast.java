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
 * from there.
 */
final class TreeBroadcast {
    private TreeBroadcast() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        Region all = Region.recv(0, n);
        if (r.rank() == r.root()) b.copy(0, all.in(BufferRole.SEND), all);
        long pieces = pieces(r.size(), n, r.chunkCount());
        if (pieces > 1) {
            pipelined(b, r, (int) pieces);
            return;
        }
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

    private static void pipelined(ScheduleBuilder b, OpRequest r, int pieces) {
        long n = r.count();
        long half = Math.ceilDiv(n, 2);
        RootedTrees trees = new RootedTrees(r.size(), r.root());
        Region[] halves = {Region.recv(0, half), Region.recv(half, n - half)};
        Pieces[] cuts = {new Pieces(half, pieces), new Pieces(n - half, pieces)};
        int rank = r.rank();
        BufferRole source = rank == r.root() ? BufferRole.SEND : BufferRole.RECV;
        b.steps(pieces + trees.height() - 1);
        // Both trees' actions in the same order on every rank, so two transfers between one pair in a step pair up.
        for (int c = 0; c < pieces; c++) {
            for (int t = 0; t < 2; t++) {
                Region piece = halves[t].slice(cuts[t].offset(c), cuts[t].length(c));
                int depth = trees.depthOf(t, rank);
                if (depth > 0) b.receive(c + depth - 1, trees.parentOf(t, rank), piece, null);
                for (int child : trees.childrenOf(t, rank)) b.send(c + depth, child, piece.in(source));
            }
        }
    }
}
