package dev.jccl.plan;

import dev.jccl.ReduceOp;
import java.util.List;

/**
 * ReduceScatter in three phases, for communicators that span hosts: a binomial tree inside each host reduces all P
 * blocks to the host's leader (its first rank) over shared memory; the leaders reduce-scatter whole hosts' blocks
 * around a ring of H leaders, H − 1 network steps, after which each leader holds its own host's blocks reduced over
 * every host; then each leader hands every rank of its host its block. The flat ring takes P − 1 steps, each as slow as
 * its network hop; here H − 1 cross.
 *
 * <p>The leader keeps its host's partial, all P blocks, in SCRATCH after the tree's own scratch; the ring reduces into
 * it in place (a round never receives the blocks it sends). AVG reduces as SUM and every rank divides its block once by
 * the communicator's size. In place (RECV is SEND's block r), RECV is written only in the last phase, after the rank's
 * tree is done with SEND.
 */
final class HierarchicalReduceScatter {
    private HierarchicalReduceScatter() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        long n = r.count();
        long all = n * r.size();
        int me = r.rank();
        int hosts = g.hosts();
        int host = g.hostOf(me);
        int leader = g.rankAt(host, 0);
        int[] locals = g.ranksOn(host);
        ReduceOp op = r.op() == ReduceOp.AVG ? ReduceOp.SUM : r.op();
        // Every host's tree must end before the leaders start: the largest host's sets the step.
        int treeSteps = SubGroup.plan(r, Collective.REDUCE, all, g.maxLocalSize(), 0, 0, op, false)
                .steps()
                .size();
        int ringSteps = hosts - 1;
        int handOut = treeSteps + ringSteps;
        b.steps(handOut + 1);

        Schedule inside = SubGroup.plan(r, Collective.REDUCE, all, locals.length, g.localIndex(me), 0, op, false);
        long partial = inside.scratchCount(); // the leader's host partial: SCRATCH [partial, partial + all)
        SubGroup.append(b, 0, inside, locals, region -> switch (region.buffer()) {
            case RECV -> Region.scratch(partial + region.offset(), region.count());
            default -> region;
        });

        if (me == leader) {
            int next = g.rankAt((host + 1) % hosts, 0);
            int prev = g.rankAt((host + hosts - 1) % hosts, 0);
            // Round j sends host (h − j − 1)'s blocks and reduces host (h − j − 2)'s into the partial; after H − 1
            // rounds host h's own blocks hold every host's contribution.
            for (int j = 0; j < ringSteps; j++) {
                for (Region run : inScratch(g, Math.floorMod(host - j - 1, hosts), n, partial)) {
                    b.sendAll(treeSteps + j, next, run);
                }
                for (Region run : inScratch(g, Math.floorMod(host - j - 2, hosts), n, partial)) {
                    b.receiveAll(treeSteps + j, prev, run, run);
                }
            }
            for (int q : locals) {
                Region block = Region.scratch(partial + q * n, n);
                if (q == me) b.copy(handOut, block, Region.recv(0, n));
                else b.sendAll(handOut, q, block);
            }
            b.scratch(partial + all);
        } else {
            b.receiveAll(handOut, leader, Region.recv(0, n), null);
            b.scratch(inside.scratchCount());
        }
        if (r.op() == ReduceOp.AVG) b.divide(handOut + 1, Region.recv(0, n));
    }

    /** A host's blocks, as runs of consecutive ranks, in the leader's partial. */
    private static List<Region> inScratch(HostGroups g, int host, long n, long partial) {
        return HierarchicalAllGather.blocksOf(g, host, n).stream()
                .map(run -> Region.scratch(partial + run.offset(), run.count()))
                .toList();
    }
}
