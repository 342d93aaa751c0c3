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
