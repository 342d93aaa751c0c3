package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The two-level AllReduce, simulated for host layouts from 2×2 to 3×3 (ranks of a host both contiguous and
 * interleaved), over the same grid of counts, chunks and ops as every schedule, in and out of place: exactly the
 * reference result. Layouts it does not fit fall back to the ring.
 */
@Timeout(120)
class HierarchicalAllReduceTest {
    private static final List<List<String>> LAYOUTS = List.of(
            List.of("a", "a", "b", "b"),
            List.of("a", "b", "a", "b"),
            List.of("a", "a", "b", "b", "c", "c"),
            List.of("a", "a", "a", "b", "b", "b"),
            List.of("a", "b", "c", "a", "b", "c", "a", "b", "c"));

    /**
     * Inside a host a block moves as one message where it fits a chunk: 4 hosts × 4 ranks, 64 elements, so each local
     * step of the reduce-scatter and all-gather sends one block of 4 and each network step one piece of 1. (It was sent
     * as its 4 pieces, a message per host, which on 32 hosts made the local phases most of a mid-size AllReduce.)
     */
    @Test
    void aHostsRanksPassEachOtherWholeBlocks() {
        HostGroups hosts = HostGroups.evenly(4, 4);
        Schedule s = Planner.plan(
                new OpRequest(
                        Collective.ALL_REDUCE,
                        5,
                        16,
                        64,
                        ReduceOp.SUM,
                        -1,
                        -1,
                        false,
                        1 << 20,
                        Tuner.Algorithm.HIERARCHICAL),
                hosts);
        List<Long> sends = new ArrayList<>();
        for (Step step : s.steps()) {
            long sent = 0;
            int messages = 0;
            for (Action a : step.actions()) {
                if (a instanceof Action.Send send) {
                    sent += send.from().count();
                    messages++;
                }
            }
            assertEquals(1, messages, "one message a step: " + s.steps());
            sends.add(sent);
        }
        // 3 local steps of a block of 16, 3 + 3 network steps of a piece of 4, 3 local steps of a block of 16.
        assertEquals(List.of(16L, 16L, 16L, 4L, 4L, 4L, 4L, 4L, 4L, 16L, 16L, 16L), sends);
    }

    @Test
    void matchesTheReferenceOnEveryLayout() {
        int runs = 0;
        for (List<String> layout : LAYOUTS) {
            HostGroups hosts = HostGroups.of(layout);
            int size = layout.size();
            for (int count : PlanConformanceTest.COUNTS) {
                for (long chunk : PlanConformanceTest.CHUNKS) {
                    for (ReduceOp op : PlanConformanceTest.OPS) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            OperationRun run =
                                    new OperationRun(Collective.ALL_REDUCE, size, count, chunk, op, -1, inPlace);
                            List<Schedule> schedules = new ArrayList<>();
                            for (int rank = 0; rank < size; rank++) {
                                Schedule s = Planner.plan(
                                        new OpRequest(
                                                Collective.ALL_REDUCE,
                                                rank,
                                                size,
                                                count,
                                                op,
                                                -1,
                                                -1,
                                                inPlace,
                                                chunk,
                                                Tuner.Algorithm.HIERARCHICAL),
                                        hosts);
                                if (count > 0) assertEquals("hierarchical", s.algorithm());
                                schedules.add(s);
                            }
                            run.check(schedules);
                            runs++;
                        }
                    }
                }
            }
        }
        System.out.println("hierarchical AllReduce: " + runs + " simulated operations match the reference");
    }

    @Test
    void layoutsItDoesNotFitGetTheRing() {
        for (List<String> layout : List.of(List.of("a", "a", "b"), List.of("a", "b", "c"), List.of("a", "a", "a"))) {
            Schedule s = Planner.plan(
                    new OpRequest(
                            Collective.ALL_REDUCE,
                            0,
                            layout.size(),
                            100,
                            ReduceOp.SUM,
                            -1,
                            -1,
                            false,
                            10,
                            Tuner.Algorithm.HIERARCHICAL),
                    HostGroups.of(layout));
            assertEquals("ring", s.algorithm(), layout.toString());
        }
    }

    @Test
    void theTunerPicksItAcrossHostsAndNeverWithinOne() {
        Tuner twoByTwo = new Tuner(4, HostGroups.of(List.of("a", "a", "b", "b")), false, true, null, null);
        assertEquals(
                "Hierarchical/Simple",
                twoByTwo.choose(Collective.ALL_REDUCE, 16 << 20, dev.jccl.DataType.FLOAT32)
                        .describe());
        assertTrue(twoByTwo.table().contains("Hierarchical"), twoByTwo.table());
        Tuner oneHost = new Tuner(4, HostGroups.of(List.of("a", "a", "a", "a")), true, false, null, null);
        assertTrue(Double.isNaN(oneHost.estimate(
                Collective.ALL_REDUCE, Tuner.Algorithm.HIERARCHICAL, Tuner.Protocol.SIMPLE, 1 << 20, 4)));
        Tuner uneven = new Tuner(3, HostGroups.of(List.of("a", "a", "b")), false, true, null, null);
        assertTrue(Double.isNaN(uneven.estimate(
                Collective.ALL_REDUCE, Tuner.Algorithm.HIERARCHICAL, Tuner.Protocol.SIMPLE, 1 << 20, 4)));
        Tuner forcedRing = new Tuner(4, HostGroups.of(List.of("a", "a", "b", "b")), false, true, "Ring", null);
        assertEquals(
                "Ring/Simple",
                forcedRing
                        .choose(Collective.ALL_REDUCE, 16 << 20, dev.jccl.DataType.FLOAT32)
                        .describe());
    }
}
