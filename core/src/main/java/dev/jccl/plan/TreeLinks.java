package dev.jccl.plan;

/**
 * Where a pipelined schedule's two binary trees cross between hosts, for the tuner's estimates: at which depths an edge
 * joins ranks of two hosts, and how many pieces a host's link carries per step once the pipeline runs, whatever the
 * bandwidth of the ranks' own ports. {@link #of} describes {@link TreeAllReduce}'s trees, whose every edge carries a
 * piece each way on every step; {@link #ofRooted}, the {@link RootedTrees} of a Broadcast or Reduce, whose edges carry
 * a piece one way.
 *
 * @param height the trees' height (edges from the root to the deepest leaf)
 * @param crossesAtDepth for each depth 1 … height, whether an edge from that depth to its parent crosses hosts in
 *     either tree
 * @param edgesPerHost the most pieces a host's link carries in one direction per step, over the hosts: for {@link #of},
 *     the edges of both trees with one end on the host and the other elsewhere; for {@link #ofRooted}, the larger of
 *     the edges coming in and those going out
 */
record TreeLinks(int height, boolean[] crossesAtDepth, int edgesPerHost) {

    /** The trees over {@code size} ranks placed on {@code hosts} (null: one host). */
    static TreeLinks of(int size, HostGroups hosts) {
        BinaryTree first = new BinaryTree(size, BinaryTree.Layout.IDENTITY);
        BinaryTree second = new BinaryTree(size, BinaryTree.Layout.secondFor(size));
        int height = first.height();
        boolean[] crosses = new boolean[height + 1];
        int[] incident = new int[hosts == null ? 1 : hosts.hosts()];
        for (BinaryTree tree : new BinaryTree[] {first, second}) {
            for (int rank = 0; rank < size; rank++) {
                int parent = tree.parentOf(rank);
                if (parent < 0 || hosts == null || hosts.hostOf(rank) == hosts.hostOf(parent)) continue;
                crosses[tree.depthOf(rank)] = true;
                incident[hosts.hostOf(rank)]++;
                incident[hosts.hostOf(parent)]++;
            }
        }
        int most = 0;
        for (int edges : incident) most = Math.max(most, edges);
        return new TreeLinks(height, crosses, most);
    }

    /**
     * The rooted trees over {@code size} ranks (at least two) rooted at rank 0, placed on {@code hosts} (null: one
     * host). A piece goes down (Broadcast) or up (Reduce) each edge once a step: a host's link carries, per step, one
     * piece each way for the edges that leave the host in the direction the data flows, and the busier direction sets
     * the pace.
     */
    static TreeLinks ofRooted(int size, HostGroups hosts) {
        RootedTrees trees = new RootedTrees(size, 0);
        int height = trees.height();
        boolean[] crosses = new boolean[height + 1];
        int[] in = new int[hosts == null ? 1 : hosts.hosts()];
        int[] out = new int[in.length];
        for (int t = 0; t < 2; t++) {
            for (int rank = 1; rank < size; rank++) {
                int parent = trees.parentOf(t, rank);
                if (hosts == null || hosts.hostOf(rank) == hosts.hostOf(parent)) continue;
                crosses[trees.depthOf(t, rank)] = true;
                in[hosts.hostOf(rank)]++;
                out[hosts.hostOf(parent)]++;
            }
        }
        int most = 0;
        for (int h = 0; h < in.length; h++) most = Math.max(most, Math.max(in[h], out[h]));
        return new TreeLinks(height, crosses, most);
    }
}
