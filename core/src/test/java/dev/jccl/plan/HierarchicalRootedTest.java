package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ReduceOp;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The two-level Broadcast and Reduce against the reference on host layouts of every shape: even, uneven, a host of one
 * rank, hosts interleaved (ranks of a host not consecutive), the root anywhere.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HierarchicalRootedTest {
    static final List<List<String>> LAYOUTS = List.of(
            List.of("a", "b"),
            List.of("a", "a", "b"),
            List.of("a", "b", "a", "b"),
            List.of("a", "a", "b", "b", "c", "c"),
            List.of("a", "b", "b", "b", "c"),
            List.of("a", "a", "a", "a", "b", "b", "b", "b"),
            List.of("a", "b", "c", "a", "b", "c", "a", "b", "c"));

    static final int[] COUNTS = {0, 1, 2, 7, 64, 97};
    static final long[] CHUNKS = {1, 5, 1 << 20};

    static final ReduceOp[] EVERY_OP = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG};

    @Test
    void broadcastAndReduceMatchTheReferenceOnEveryLayoutAndRoot() {
        int runs = checkEveryLayout(Collective.BROADCAST, new ReduceOp[] {null}, true)
                + checkEveryLayout(Collective.REDUCE, EVERY_OP, true);
        assertTrue(runs > 1000, "ran " + runs);
    }

    /**
     * Plans {@code c} with {@link Tuner.Algorithm#HIERARCHICAL} as the runtime would (OperationRun.plan) on every
     * layout, count, chunk, op, in and out of place, from every root or from rank 0, checks that the two-level schedule
     * was made and that it matches the reference; returns the number of runs.
     */
    static int checkEveryLayout(Collective c, ReduceOp[] ops, boolean everyRoot) {
        int runs = 0;
        for (List<String> layout : LAYOUTS) {
            HostGroups hosts = HostGroups.of(layout);
            int size = layout.size();
            for (int root = 0; root < (everyRoot ? size : 1); root++) {
                for (int count : COUNTS) {
                    for (long chunk : CHUNKS) {
                        if (chunk == 1 && count > 64) continue;
                        for (ReduceOp op : ops) {
                            for (boolean inPlace : new boolean[] {false, true}) {
                                OperationRun run = new OperationRun(
                                        c, size, count, chunk, op, root, inPlace, Tuner.Algorithm.HIERARCHICAL);
                                List<Schedule> schedules = run.plan(hosts);
                                for (Schedule s : schedules) {
                                    if (count > 0) assertEquals("hierarchical", s.algorithm(), run::toString);
                                }
                                run.check(schedules);
                                runs++;
                            }
                        }
                    }
                }
            }
        }
        return runs;
    }

    @Test
    void theMessageCrossesEachHostOnceAndTheNetworkRoundsAreLogarithmicInHosts() {
        // 8 hosts × 4 ranks, root 5: every transfer between hosts is a leader's, 7 of them (one into each other host),
        // in ⌈log2 8⌉ = 3 rounds, then ⌈log2 4⌉ = 2 rounds inside the hosts.
        HostGroups g = HostGroups.evenly(8, 4);
        int crossing = 0;
        int steps = 0;
        for (int rank = 0; rank < 32; rank++) {
            Schedule s = Planner.plan(
                    new OpRequest(
                            Collective.BROADCAST,
                            rank,
                            32,
                            1000,
                            null,
                            5,
                            -1,
                            false,
                            1 << 20,
                            Tuner.Algorithm.HIERARCHICAL),
                    g);
            steps = Math.max(steps, s.steps().size());
            for (Step step : s.steps()) {
                for (Action a : step.actions()) {
                    if (a instanceof Action.Send send && g.hostOf(send.peer()) != g.hostOf(rank)) crossing++;
                }
            }
        }
        assertEquals(7, crossing);
        assertEquals(3 + 2, steps);
    }
}
