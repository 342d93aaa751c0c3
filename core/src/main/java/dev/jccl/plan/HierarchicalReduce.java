package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * Reduce in two levels, for communicators that span hosts: a tree inside each host reduces to its leader (the root on
 * its host, the first rank on every other), then a tree among the leaders reduces to the root, each the
 * {@link TreeReduce} of its group (binomial for one piece, else pipelined). Each host sends its partial across once,
 * ⌈log2 H⌉ rounds with one sender per host.
 *
 * <p>A leader other than the root keeps its host's partial in SCRATCH (only the root may write RECV), after the first
 * level's own scratch and before the second's. AVG reduces as SUM at both levels and the root divides once by the
 * communicator's size, so hosts of different sizes average right.
 */
final class HierarchicalReduce {
    private HierarchicalReduce() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        RootedLevels levels = new RootedLevels(r, g);
        boolean root = r.rank() == r.root();
        boolean leader = levels.isLeader();
        ReduceOp op = r.op() == ReduceOp.AVG ? ReduceOp.SUM : r.op();
        long n = r.count();
        // Every host's first level must end before the leaders start: the largest host sets the step (a tree's steps,
        // ⌈log2 size⌉, grow with its size), so one plan of it instead of one per host.
        int localSteps = SubGroup.steps(r, g.maxLocalSize(), op);
        b.steps(localSteps);
        Schedule inside = levels.inside(op, r.inPlace() && root);
        long firstScratch = inside.scratchCount();
        long partial = firstScratch; // a non-root leader's host partial: SCRATCH [partial, partial + n)
        SubGroup.append(b, 0, inside, levels.locals(), region -> switch (region.buffer()) {
            case RECV -> root ? region : Region.scratch(partial + region.offset(), region.count());
            default -> region;
        });
        long scratch = firstScratch + (leader && !root ? n : 0);
        int last = localSteps;
        if (leader) {
            // The root's partial is in RECV already: it reduces in place there.
            Schedule across = levels.across(op, root);
            long second = scratch;
            SubGroup.append(b, localSteps, across, levels.leaders(), region -> switch (region.buffer()) {
                case SEND, RECV ->
                    root ? region.in(BufferRole.RECV) : Region.scratch(partial + region.offset(), region.count());
                case SCRATCH -> Region.scratch(second + region.offset(), region.count());
            });
            scratch += across.scratchCount();
            last += across.steps().size();
        }
        if (root && r.op() == ReduceOp.AVG) b.divide(last, Region.recv(0, n));
        b.scratch(scratch);
    }
}
