package dev.jccl.plan;

/**
 * Where {@link TreeAllReduce}'s two binary trees cross between hosts, for the tuner's estimate of the pipelined tree:
 * at which depths an edge joins ranks of two hosts, and the most such edges that meet at one host. Once the pipeline
 * runs, every edge carries a piece each way on every step, so that host's link carries that many pieces per step in
 * each direction, whatever the bandwidth of the ranks' own ports.
 *
 * @param height the trees' height (edges from the root to the deepest leaf)
 * @param crossesAtDepth for each depth 1 … height, whether an edge from that depth to its parent crosses hosts in
 *     either tree
 * @param edgesPerHost the most edges of both trees with one end on a host and the other elsewhere, over the hosts
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
}
