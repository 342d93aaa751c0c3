package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * One rank's place in a rooted two-level schedule (the hierarchical Broadcast and Reduce): each host's leader, which is
 * the root on its own host and the first rank on every other; this rank's host and that host's ranks; and the two trees
 * such a schedule is made of, among the leaders and inside this host.
 */
final class RootedLevels {
    private final OpRequest r;
    private final HostGroups g;
    private final int host;
    private final int[] leaders;
    private final int[] locals;

    RootedLevels(OpRequest r, HostGroups g) {
        this.r = r;
        this.g = g;
        this.host = g.hostOf(r.rank());
        this.leaders = new int[g.hosts()];
        for (int h = 0; h < leaders.length; h++) leaders[h] = h == g.hostOf(r.root()) ? r.root() : g.rankAt(h, 0);
        this.locals = g.ranksOn(host);
    }

    /** Each host's leader, by host. */
    int[] leaders() {
        return leaders;
    }

    /** The ranks on this rank's host. */
    int[] locals() {
        return locals;
    }

    boolean isLeader() {
        return r.rank() == leaders[host];
    }

    /** The leaders' tree, rooted at the root's host: this rank's part, for a leader. */
    Schedule across(ReduceOp op, boolean inPlace) {
        return SubGroup.plan(r, leaders.length, host, g.hostOf(r.root()), op, inPlace);
    }

    /** This host's tree, rooted at its leader: this rank's part. */
    Schedule inside(ReduceOp op, boolean inPlace) {
        return SubGroup.plan(r, locals.length, g.localIndex(r.rank()), g.localIndex(leaders[host]), op, inPlace);
    }
}
