package dev.jccl.plan;

/**
 * Broadcast in two levels, for communicators that span hosts: a tree among the hosts' leaders (the root on its host,
 * the first rank on every other), then a tree inside each host from its leader, each the {@link TreeBroadcast} of its
 * group (binomial for one piece, else pipelined). The message crosses the network once per host: a binomial tree's
 * ⌈log2 H⌉ rounds with one sender per host, where the flat tree, whose rounds double the distance from 1, sends across
 * from every rank of a host once the distance reaches a host's ranks; then ⌈log2 L⌉ rounds in shared memory.
 */
final class HierarchicalBroadcast {
    private HierarchicalBroadcast() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        RootedLevels levels = new RootedLevels(r, g);
        int netSteps = SubGroup.steps(r, levels.leaders().length, r.op());
        b.steps(netSteps);
        if (levels.isLeader()) {
            SubGroup.append(b, 0, levels.across(r.op(), r.inPlace()), levels.leaders(), region -> region);
        }
        // Inside the host the leader's message is in RECV (the root's too, after the first level): the host's tree runs
        // in place on RECV.
        Schedule inside = levels.inside(r.op(), true);
        SubGroup.append(b, netSteps, inside, levels.locals(), region -> region.in(BufferRole.RECV));
    }
}
