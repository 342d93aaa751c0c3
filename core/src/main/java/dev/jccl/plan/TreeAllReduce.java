package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce over two trees, each carrying half the data. A message of several pieces runs over a double binary tree,
 * pipelined (NCCL's tree algorithm): the first half of the data is reduced up one {@link BinaryTree} to its root and
 * broadcast back down it, the second half over a second tree whose inner nodes are the first's leaves, both at once.
 * Each half is cut into pieces that follow each other through the tree one step apart, so after the pipeline fills
 * (about 2·log2 size steps) every link carries a piece each way on every step: the latency of a tree and, for large
 * messages, a bandwidth that does not fall with the rank count as the unpipelined trees' did (at 512 ranks on 64 hosts,
 * 16 MiB: 195 ms in {@code jccl sim} before, against the ring's 27; 23 ms now).
 *
 * <p>Timing, for a rank at depth δ in a tree of height D and piece c: it receives the piece's partials from its
 * children at step c + D − δ − 1 and sends its own partial to its parent at step c + D − δ; the root (δ = 0) holds the
 * result of piece c after step c + D − 1 and sends it down at step c + D; a rank at depth δ receives it at step c + D +
 * δ − 1 and passes it to its children at step c + D + δ. Leaves nearer the root than D wait, so that both children of a
 * rank send a piece in the same step. The schedule has pieces + 2D − 1 steps.
 *
 * <p>Memory: partials and results live in RECV (an AllReduce writes all of RECV anyway); a leaf sends from SEND. The
 * first child's partial is combined with this rank's input on arrival; the second child's lands in SCRATCH (two pieces
 * per tree, used in turn) and is combined at the start of the next step, before the partial goes up: one arrival cannot
 * be combined into memory another arrival of the same step is being combined into. AVG divides each piece at its root
 * before it goes down.
 */
final class TreeAllReduce {
    private TreeAllReduce() {}

    /**
     * The most pieces a half is cut into unless the transport's chunk forces more: a piece per step costs a step's
     * latency, so past a few hundred pieces the pipeline's fill (2·log2 size steps) is already a small share.
     */
    static final long MAX_PIECES = 256;

    /**
     * The smallest piece as a share of the transport's chunk: a pipeline of small pieces fills fast, but each piece
     * pays a step's latency (1/16 of the 1 MiB default chunk is 64 KiB).
     */
    static final long MIN_PIECE_SHARE = 16;

    /** How many pieces a tree's half of {@code half} elements is cut into: also what the tuner's estimate counts. */
    static long pieces(long half, long chunkCount) {
        long minPiece = Math.max(1, chunkCount / MIN_PIECE_SHARE);
        return Math.max(Math.ceilDiv(half, chunkCount), Math.min(Math.ceilDiv(half, minPiece), MAX_PIECES));
    }

    static void build(ScheduleBuilder b, OpRequest r) {
        long half = Math.ceilDiv(r.count(), 2);
        if (pieces(half, r.chunkCount()) == 1) {
            binomial(b, r);
        } else {
            pipelined(b, r);
        }
    }

    /**
     * Two binomial trees, each carrying half the data, unpipelined: for a message that is one piece it has the same
     * 2·⌈log2 size⌉ steps as the binary trees, and an inner rank takes its children's partials in separate rounds
     * rather than two at once, which {@code jccl sim} puts 15-45% faster for small messages (8 hosts × 8 ranks, 8 B: 81
     * µs against 116, the host links taking one message at a time).
     */
    private static void binomial(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        int size = r.size();
        long half = Math.ceilDiv(n, 2);
        Region first = Region.recv(0, half);
        Region second = Region.recv(half, n - half);
        BinomialTree up = new BinomialTree(size, 0, false);
        BinomialTree mirrored = new BinomialTree(size, size - 1, true);
        int rounds = up.rounds();
        b.steps(2 * rounds);
        up.reduce(b, 0, r.rank(), first, BufferRole.RECV);
        mirrored.reduce(b, 0, r.rank(), second, BufferRole.RECV);
        if (r.op() == ReduceOp.AVG) {
            if (r.rank() == 0) b.divide(rounds, first);
            if (r.rank() == size - 1) b.divide(rounds, second);
        }
        up.broadcast(b, rounds, r.rank(), first, BufferRole.RECV);
        mirrored.broadcast(b, rounds, r.rank(), second, BufferRole.RECV);
    }

    private static void pipelined(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        int size = r.size();
        long half = Math.ceilDiv(n, 2);
        BinaryTree first = new BinaryTree(size, BinaryTree.Layout.IDENTITY);
        BinaryTree second = new BinaryTree(size, BinaryTree.Layout.secondFor(size));
        long count = pieces(half, r.chunkCount());
        Pieces firstPieces = new Pieces(half, count);
        Pieces secondPieces = new Pieces(n - half, count);
        long firstScratch = 2 * firstPieces.longest();
        b.scratch(firstScratch + 2 * secondPieces.longest());
        b.steps((int) count + 2 * first.height() - 1);
        // Both trees' actions in the same order on every rank, the first tree's before the second's, so that two
        // transfers between the same pair in one step pair up in list order.
        for (int c = 0; c < count; c++) {
            pipe(b, r, first, Region.recv(0, half), firstPieces, c, 0);
            pipe(b, r, second, Region.recv(half, n - half), secondPieces, c, firstScratch);
        }
    }

    /** This rank's part in moving piece {@code c} of {@code region} up {@code tree} and back down. */
    private static void pipe(
            ScheduleBuilder b, OpRequest r, BinaryTree tree, Region region, Pieces pieces, int c, long scratchAt) {
        Region piece = region.slice(pieces.offset(c), pieces.length(c));
        int rank = r.rank();
        int height = tree.height();
        int depth = tree.depthOf(rank);
        int parent = tree.parentOf(rank);
        int[] children = tree.childrenOf(rank);
        int up = c + height - depth; // the step this rank sends its partial of piece c to its parent
        BufferRole partial = BufferRole.SEND;
        if (children.length > 0) {
            b.receive(up - 1, children[0], piece, piece.in(BufferRole.SEND));
            partial = BufferRole.RECV;
        }
        if (children.length > 1) {
            Region arrived = Region.scratch(scratchAt + (c % 2) * pieces.longest(), piece.count());
            b.receive(up - 1, children[1], arrived, null);
            b.reduce(up, piece, arrived, piece);
        }
        if (parent >= 0) {
            b.send(up, parent, piece.in(partial));
            b.receive(c + height + depth - 1, parent, piece, null);
        } else if (r.op() == ReduceOp.AVG) {
            b.divide(c + height, piece);
        }
        for (int child : children) b.send(c + height + depth, child, piece);
    }
}
