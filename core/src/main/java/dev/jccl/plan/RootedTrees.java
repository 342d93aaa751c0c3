package dev.jccl.plan;

/**
 * The two binary trees of a pipelined Broadcast or Reduce, which carry half the data each. The root stands above both:
 * the other size − 1 ranks, counted on from the root, form two {@link BinaryTree}s, the second with the first's leaves
 * as its inner nodes, and the root has one edge to the top of each. So every rank but the root forwards for one tree
 * only, and a rank's port carries about one piece in and one out per step: the chain's bandwidth, with a pipeline that
 * fills in about log2 size steps instead of size.
 *
 * <p>Depths count from the root: the tops of the two trees are at depth 1.
 */
final class RootedTrees {
    private final int size;
    private final int root;
    private final BinaryTree[] trees;

    RootedTrees(int size, int root) {
        if (size < 2) throw new IllegalArgumentException("rooted trees need at least two ranks, got " + size);
        this.size = size;
        this.root = root;
        int others = size - 1;
        trees = new BinaryTree[] {
            new BinaryTree(others, BinaryTree.Layout.IDENTITY),
            new BinaryTree(others, BinaryTree.Layout.secondFor(others))
        };
    }

    /** The edges from the root to the deepest leaf, the same in both trees. */
    int height() {
        return trees[0].height() + 1;
    }

    /** {@code rank}'s distance from the root in tree {@code t} (0 or 1). */
    int depthOf(int t, int rank) {
        return rank == root ? 0 : trees[t].depthOf(member(rank)) + 1;
    }

    /** {@code rank}'s parent in tree {@code t}, or -1 for the root. */
    int parentOf(int t, int rank) {
        if (rank == root) return -1;
        int parent = trees[t].parentOf(member(rank));
        return parent < 0 ? root : rankOf(parent);
    }

    /** {@code rank}'s children in tree {@code t}: the top of the tree for the root, else none, one or two. */
    int[] childrenOf(int t, int rank) {
        if (rank == root) return new int[] {rankOf(trees[t].rankOf(0))};
        int[] children = trees[t].childrenOf(member(rank));
        for (int i = 0; i < children.length; i++) children[i] = rankOf(children[i]);
        return children;
    }

    /** The rank's number among the others, 0 … size − 2, counting on from the root. */
    private int member(int rank) {
        return Math.floorMod(rank - root, size) - 1;
    }

    private int rankOf(int member) {
        return Math.floorMod(root + member + 1, size);
    }
}
