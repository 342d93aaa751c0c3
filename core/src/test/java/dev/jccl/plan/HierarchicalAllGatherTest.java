package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The two-level AllGather against the reference on host layouts of every shape (those of
 * {@link HierarchicalRootedTest}: even, uneven, a host of one rank, interleaved), and its shape: only leaders cross
 * hosts, in H − 1 steps.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HierarchicalAllGatherTest {
    @Test
    void matchesTheReferenceOnEveryLayout() {
        int runs = 0;
        for (List<String> layout : HierarchicalRootedTest.LAYOUTS) {
            HostGroups hosts = HostGroups.of(layout);
            int size = layout.size();
            for (int count : HierarchicalRootedTest.COUNTS) {
                for (long chunk : HierarchicalRootedTest.CHUNKS) {
                    if (chunk == 1 && count > 64) continue;
                    for (boolean inPlace : new boolean[] {false, true}) {
                        OperationRun run = new OperationRun(
                                Collective.ALL_GATHER,
                                size,
                                count,
                                chunk,
                                null,
                                0,
                                inPlace,
                                Tuner.Algorithm.HIERARCHICAL);
                        List<Schedule> schedules = new ArrayList<>();
                        for (int rank = 0; rank < size; rank++) {
                            Schedule s = Planner.plan(request(rank, size, count, chunk, inPlace), hosts);
                            if (count > 0) assertEquals(HierarchicalAllGather.NAME, s.algorithm(), run::toString);
                            schedules.add(s);
                        }
                        run.check(schedules);
                        runs++;
                    }
                }
            }
        }
        assertTrue(runs > 200, "ran " + runs);
    }

    @Test
    void onlyLeadersCrossHostsInHostsMinusOneSteps() {
        // 8 hosts × 4 ranks, 1000 elements a rank in one chunk: each leader passes 7 hosts' blocks to the next leader,
        // each host's 4 blocks as one message (its ranks are consecutive); 1 step to gather, 7 around the ring,
        // ⌈log2 4⌉ = 2 down each host's tree, where the flat ring takes 31.
        HostGroups g = HostGroups.evenly(8, 4);
        int crossing = 0;
        int steps = 0;
        for (int rank = 0; rank < 32; rank++) {
            Schedule s = Planner.plan(request(rank, 32, 1000, 1 << 20, false), g);
            steps = Math.max(steps, s.steps().size());
            for (Step step : s.steps()) {
                for (Action a : step.actions()) {
                    if (a instanceof Action.Send send && g.hostOf(send.peer()) != g.hostOf(rank)) {
                        assertEquals(0, g.localIndex(rank), "rank " + rank + " is not its host's leader");
                        crossing++;
                    }
                }
            }
        }
        assertEquals(8 * 7, crossing);
        assertEquals(1 + 7 + 2, steps);
    }

    @Test
    void aCommunicatorOnOneHostIsPlannedAsTheRing() {
        Schedule s = Planner.plan(request(1, 4, 10, 1 << 20, false), HostGroups.evenly(1, 4));
        assertEquals(RingAllGather.NAME, s.algorithm());
    }

    @Test
    void theTunerTakesItForSmallMessagesAcrossManyHosts() {
        // 8 hosts × 64 ranks, 8 B a rank: the ring's 511 steps each pay the network; the two levels pay it 7 times.
        Tuner tuner = new Tuner(512, HostGroups.evenly(8, 64), false, true, null, null);
        double ring = tuner.estimate(Collective.ALL_GATHER, Tuner.Algorithm.RING, Tuner.Protocol.SIMPLE, 2, 4);
        double twoLevel =
                tuner.estimate(Collective.ALL_GATHER, Tuner.Algorithm.HIERARCHICAL, Tuner.Protocol.SIMPLE, 2, 4);
        assertTrue(twoLevel * 20 < ring, "two levels " + twoLevel + " µs, ring " + ring + " µs");
        assertEquals(
                Tuner.Algorithm.HIERARCHICAL,
                tuner.choose(Collective.ALL_GATHER, 2, DataType.FLOAT32).algorithm());
    }

    private static OpRequest request(int rank, int size, long count, long chunk, boolean inPlace) {
        return new OpRequest(
                Collective.ALL_GATHER, rank, size, count, null, 0, -1, inPlace, chunk, Tuner.Algorithm.HIERARCHICAL);
    }
}
