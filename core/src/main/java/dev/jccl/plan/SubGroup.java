package dev.jccl.plan;

import dev.jccl.ReduceOp;
import java.util.function.UnaryOperator;

/**
 * A group of this communicator's ranks planned as a communicator of its own: the schedule a member would run there, its
 * peers turned back into this communicator's ranks and its buffers moved where the caller says, appended to a builder
 * from a given step. The hierarchical Broadcast and Reduce are made of two such groups: the hosts' leaders, and each
 * host's ranks. Every group runs the trees of {@link Tuner.Algorithm#TREE} (binomial, or pipelined for a message of
 * several pieces), the only schedules the two-level algorithms build on.
 */
final class SubGroup {
    private SubGroup() {}

    /**
     * The tree schedule of member {@code index} of a group of {@code groupSize}, for an operation like {@code r} but
     * rooted at member {@code rootIndex}, reducing with {@code op}, in place or not.
     */
    static Schedule plan(OpRequest r, int groupSize, int index, int rootIndex, ReduceOp op, boolean inPlace) {
        return plan(r, r.collective(), r.count(), groupSize, index, rootIndex, op, inPlace);
    }

    /**
     * The tree schedule of member {@code index} of a group of {@code groupSize} for another collective and count than
     * {@code r}'s: the Broadcast of everything gathered that ends a two-level AllGather, the Reduce of every block that
     * starts a two-level ReduceScatter.
     */
    static Schedule plan(
            OpRequest r,
            Collective collective,
            long count,
            int groupSize,
            int index,
            int rootIndex,
            ReduceOp op,
            boolean inPlace) {
        OpRequest sub = new OpRequest(
                collective, index, groupSize, count, op, rootIndex, -1, inPlace, r.chunkCount(), Tuner.Algorithm.TREE);
        return Planner.plan(sub, null);
    }

    /**
     * The steps every member's schedule in such a group has: the builders give every rank of a tree or chain the same
     * number (ranks with nothing to do stay in step), so member 0's count is the group's.
     */
    static int steps(OpRequest r, int groupSize, ReduceOp op) {
        return plan(r, groupSize, 0, 0, op, false).steps().size();
    }

    /**
     * Appends {@code sub}'s actions to {@code b} from step {@code firstStep}: peer p becomes {@code members[p]}, each
     * region goes through {@code where}. A copy that {@code where} turns into one from memory to the same memory is
     * left out.
     */
    static void append(ScheduleBuilder b, int firstStep, Schedule sub, int[] members, UnaryOperator<Region> where) {
        for (int k = 0; k < sub.steps().size(); k++) {
            int step = firstStep + k;
            b.steps(step + 1);
            for (Action a : sub.steps().get(k).actions()) {
                switch (a) {
                    case Action.Send s -> b.send(step, members[s.peer()], where.apply(s.from()));
                    case Action.Receive v ->
                        b.receive(
                                step,
                                members[v.peer()],
                                where.apply(v.into()),
                                v.combineWith() == null ? null : where.apply(v.combineWith()));
                    case Action.LocalCopy c -> {
                        Region from = where.apply(c.from());
                        Region to = where.apply(c.to());
                        if (!from.equals(to)) b.copy(step, from, to);
                    }
                    case Action.LocalReduce x ->
                        b.reduce(step, where.apply(x.a()), where.apply(x.b()), where.apply(x.into()));
                    case Action.DivideBySize d ->
                        throw new IllegalStateException("planner bug: a group's schedule divides by its own size");
                }
            }
        }
    }
}
