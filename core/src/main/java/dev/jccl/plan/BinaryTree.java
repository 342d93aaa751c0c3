package dev.jccl.plan;

/**
 * An in-order binary tree over {@code size} ranks, one of the two trees of {@link TreeAllReduce}. Ranks are renumbered
 * to virtual numbers v (see {@link Layout}); virtual 0 is the root and has one child, the tree over 1 … size − 1, and
 * the tree over an interval of numbers is rooted at the number in it divisible by the largest power of two, with the
 * trees over the numbers below and above it as its two children. For a power-of-two size that is the tree in which v's
 * lowest set bit 2^k gives its height: the odd numbers are the leaves, v's children are v ± 2^(k−1), and its parent is
 * 2^(k+1) away at most. Every rank has at most two children and one parent, and the depth is at most ⌈log2 size⌉, so a
 * pipeline through it fills in about 2·log2 size steps and then moves a piece per step on every link.
 *
 * <p>Why in-order: the leaves are the odd virtual numbers, so a second tree whose numbering is shifted by one (or
 * mirrored) makes them its inner nodes, and each rank forwards for only one of the two trees (NCCL's double binary tree
 * is built on the same observation). Ranks placed host by host keep every aligned run of a host's ranks in one subtree,
 * so few edges cross hosts.
 */
final class BinaryTree {
    /**
     * How ranks map to virtual numbers: the first tree uses the ranks as they are, the second shifts or mirrors them.
     */
    enum Layout {
        IDENTITY,
        /** v = size − 1 − rank: for an even size, the odd ranks (leaves of the identity tree) get even numbers. */
        MIRRORED,
        /** v = rank − 1 (mod size): for an odd size, the same swap of leaves and inner nodes. */
        SHIFTED;

        /** The layout of the second tree for {@code size} ranks, whose inner nodes are the first's leaves. */
        static Layout secondFor(int size) {
            return size % 2 == 0 ? MIRRORED : SHIFTED;
        }
    }

    private final int size;
    private final Layout layout;
    private final int[] parent;
    private final int[] firstChild;
    private final int[] secondChild;
    private final int[] depth;
    private int height;

    BinaryTree(int size, Layout layout) {
        if (size < 1) throw new IllegalArgumentException("a tree needs at least one rank, got " + size);
        this.size = size;
        this.layout = layout;
        parent = new int[size];
        firstChild = new int[size];
        secondChild = new int[size];
        depth = new int[size];
        java.util.Arrays.fill(firstChild, -1);
        java.util.Arrays.fill(secondChild, -1);
        parent[0] = -1;
        firstChild[0] = attach(1, size - 1, 0, 1);
    }

    /** Roots the tree over virtual numbers [lo, hi] under {@code up} at {@code d}; returns its root, or -1 if empty. */
    private int attach(int lo, int hi, int up, int d) {
        if (lo > hi) return -1;
        int root = mostAligned(lo, hi);
        parent[root] = up;
        depth[root] = d;
        height = Math.max(height, d);
        firstChild[root] = attach(lo, root - 1, root, d + 1);
        secondChild[root] = attach(root + 1, hi, root, d + 1);
        return root;
    }

    /** The number in [lo, hi] (lo ≥ 1) divisible by the largest power of two. */
    private static int mostAligned(int lo, int hi) {
        for (int p = Integer.highestOneBit(hi); ; p >>= 1) {
            int candidate = Math.ceilDiv(lo, p) * p;
            if (candidate <= hi) return candidate;
        }
    }

    /** The depth of the tree: the most edges between the root and a leaf. */
    int height() {
        return height;
    }

    int virtualOf(int rank) {
        return switch (layout) {
            case IDENTITY -> rank;
            case MIRRORED -> size - 1 - rank;
            case SHIFTED -> Math.floorMod(rank - 1, size);
        };
    }

    int rankOf(int v) {
        return switch (layout) {
            case IDENTITY -> v;
            case MIRRORED -> size - 1 - v;
            case SHIFTED -> Math.floorMod(v + 1, size);
        };
    }

    /** Edges between {@code rank} and the root. */
    int depthOf(int rank) {
        return depth[virtualOf(rank)];
    }

    /** {@code rank}'s parent, or -1 for the root. */
    int parentOf(int rank) {
        int p = parent[virtualOf(rank)];
        return p < 0 ? -1 : rankOf(p);
    }

    /** {@code rank}'s children (none, one or two), the lower virtual number first. */
    int[] childrenOf(int rank) {
        int v = virtualOf(rank);
        int a = firstChild[v];
        int b = secondChild[v];
        if (a < 0 && b < 0) return new int[0];
        if (a < 0) return new int[] {rankOf(b)};
        if (b < 0) return new int[] {rankOf(a)};
        return new int[] {rankOf(a), rankOf(b)};
    }
}
