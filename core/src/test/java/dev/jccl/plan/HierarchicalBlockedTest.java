package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two-level AllGather, ReduceScatter and AllToAll against the reference on host layouts of every shape (those of
 * {@link HierarchicalRootedTest}: even, uneven, a host of one rank, interleaved), and their shape: only leaders cross
 * hosts, in H − 1 steps.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HierarchicalBlockedTest {
    @ParameterizedTest
    @EnumSource(
            value = Collective.class,
            names = {"ALL_GATHER", "REDUCE_SCATTER", "ALL_TO_ALL"})
    void matchesTheReferenceOnEveryLayout(Collective c) {
        ReduceOp[] ops = c == Collective.REDUCE_SCATTER ? HierarchicalRootedTest.EVERY_OP : new ReduceOp[] {null};
        // Rooted at 0 only: none of them has a root. The counts (1, primes) and chunks (1, 5) cut blocks and runs
        // at every offset, in place and out of place.
        int runs = HierarchicalRootedTest.checkEveryLayout(c, ops, false);
        assertTrue(runs > 200, "ran " + runs);
    }

    @ParameterizedTest
    @EnumSource(
            value = Collective.class,
            names = {"ALL_GATHER", "REDUCE_SCATTER", "ALL_TO_ALL"})
    void onlyLeadersCrossHostsInHostsMinusOneSteps(Collective c) {
        // 8 hosts × 4 ranks, 1000 elements a block in one chunk: each leader passes 7 hosts' blocks to the next
        // leader, each host's 4 blocks as one message (its ranks are consecutive), where the flat ring takes 31 steps.
        // AllGather: 1 step to gather, 7 around the ring, ⌈log2 4⌉ = 2 down each host's tree. ReduceScatter: 2 up the
        // tree, 7 around the ring, 1 to hand out the blocks, 1 for AVG's division. AllToAll: 1 step to gather, 7 in
        // which each leader trades one run of 4 × 4 blocks with another, 1 to hand out the results (where pairwise
        // takes 31 steps, 28 of them across, every rank sending).
        HostGroups g = HostGroups.evenly(8, 4);
        int crossing = 0;
        int steps = 0;
        Set<Integer> crossingSteps = new TreeSet<>();
        for (int rank = 0; rank < 32; rank++) {
            Schedule s = Planner.plan(request(c, rank, 32, 1000, ReduceOp.AVG, 1 << 20, false), g);
            assertEquals("hierarchical", s.algorithm());
            steps = Math.max(steps, s.steps().size());
            for (int k = 0; k < s.steps().size(); k++) {
                for (Action a : s.steps().get(k).actions()) {
                    if (a instanceof Action.Send send && g.hostOf(send.peer()) != g.hostOf(rank)) {
                        assertEquals(0, g.localIndex(rank), "rank " + rank + " is not its host's leader");
                        crossing++;
                        crossingSteps.add(k);
                    }
                }
            }
        }
        assertEquals(8 * 7, crossing);
        assertEquals(7, crossingSteps.size(), "steps that cross hosts: " + crossingSteps);
        int expected = switch (c) {
            case ALL_GATHER -> 1 + 7 + 2;
            case REDUCE_SCATTER -> 2 + 7 + 1 + 1;
            default -> 1 + 7 + 1;
        };
        assertEquals(expected, steps);
    }

    @ParameterizedTest
    @EnumSource(
            value = Collective.class,
            names = {"ALL_GATHER", "REDUCE_SCATTER", "ALL_TO_ALL"})
    void aCommunicatorOnOneHostOrOfUnknownHostsGetsTheFlatSchedule(Collective c) {
        String flat = c == Collective.ALL_TO_ALL ? "pairwise" : "ring";
        OpRequest r = request(c, 1, 4, 10, ReduceOp.SUM, 1 << 20, false);
        assertEquals(flat, Planner.plan(r, HostGroups.evenly(1, 4)).algorithm());
        assertEquals(flat, Planner.plan(r, null).algorithm());
        assertEquals("hierarchical", Planner.plan(r, HostGroups.evenly(2, 2)).algorithm());
    }

    @ParameterizedTest
    @EnumSource(
            value = Collective.class,
            names = {"ALL_GATHER", "REDUCE_SCATTER"})
    void theTunerTakesItForSmallMessagesAcrossManyHosts(Collective c) {
        // 8 hosts × 64 ranks, 8 B a block: the ring's 511 steps each pay the network; the two levels pay it 7 times.
        Tuner tuner = new Tuner(512, HostGroups.evenly(8, 64), false, true, null, null);
        double ring = tuner.estimate(c, Tuner.Algorithm.RING, Tuner.Protocol.SIMPLE, 2, 4);
        double twoLevel = tuner.estimate(c, Tuner.Algorithm.HIERARCHICAL, Tuner.Protocol.SIMPLE, 2, 4);
        assertTrue(twoLevel * 20 < ring, "two levels " + twoLevel + " µs, ring " + ring + " µs");
        assertEquals(
                Tuner.Algorithm.HIERARCHICAL,
                tuner.choose(c, 2, DataType.FLOAT32).algorithm());
    }

    private static OpRequest request(
            Collective c, int rank, int size, long count, ReduceOp op, long chunk, boolean inPlace) {
        return new OpRequest(c, rank, size, count, op, 0, -1, inPlace, chunk, Tuner.Algorithm.HIERARCHICAL);
    }
}
