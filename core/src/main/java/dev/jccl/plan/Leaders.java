package dev.jccl.plan;

/** Each host's leader for a rooted two-level schedule: the root on its own host, the first rank on every other. */
final class Leaders {
    private Leaders() {}

    static int[] of(HostGroups g, int root) {
        int[] leaders = new int[g.hosts()];
        for (int h = 0; h < leaders.length; h++) leaders[h] = h == g.hostOf(root) ? root : g.rankAt(h, 0);
        return leaders;
    }
}
