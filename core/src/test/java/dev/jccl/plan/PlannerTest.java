package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ReduceOp;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shapes the algorithms promise (step counts, ring neighbours, who writes what), text output and argument checks.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PlannerTest {

    private static Schedule plan(Collective c, int rank, int size, long count, ReduceOp op, int root, long chunk) {
        return Planner.plan(new OpRequest(c, rank, size, count, op, root, chunk));
    }

    /** Asserts every rank's schedule has {@code steps} steps. */
    private static void assertSteps(int steps, Collective c, int size, long count, ReduceOp op, int root, long chunk) {
        for (int rank = 0; rank < size; rank++) {
            Schedule s = plan(c, rank, size, count, op, root, chunk);
            assertEquals(steps, s.steps().size(), () -> "steps of\n" + Planner.describe(s));
        }
    }

    @Test
    void ringAllReduceWithOneSliceTakesTwoTimesSizeMinusOneSteps() {
        for (int size = 2; size <= 8; size++) {
            for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.AVG}) {
                assertSteps(2 * (size - 1), Collective.ALL_REDUCE, size, 10L * size, op, -1, 10);
                assertSteps(2 * (size - 1), Collective.ALL_REDUCE, size, 1, op, -1, 1);
            }
        }
    }

    @Test
    void ringAllReduceTakesOneRoundPerSlice() {
        // 1000 elements in slices of at most 4 × 7 = 28: 36 slices of 6 steps.
        assertSteps(36 * 6, Collective.ALL_REDUCE, 4, 1000, ReduceOp.SUM, -1, 7);
    }

    @Test
    void ringAllReduceTalksOnlyToItsNeighboursOneBlockEachWay() {
        int size = 5;
        for (int rank = 0; rank < size; rank++) {
            Schedule s = plan(Collective.ALL_REDUCE, rank, size, 50, ReduceOp.AVG, -1, 10);
            long divides = 0;
            for (Step step : s.steps()) {
                int sends = 0;
                int receives = 0;
                for (Action a : step.actions()) {
                    switch (a) {
                        case Action.Send x -> {
                            sends++;
                            assertEquals((rank + 1) % size, x.peer());
                            assertEquals(10, x.from().count());
                        }
                        case Action.Receive x -> {
                            receives++;
                            assertEquals((rank + size - 1) % size, x.peer());
                            assertEquals(10, x.into().count());
                        }
                        case Action.DivideBySize d -> divides += d.region().count();
                        case Action.LocalCopy x -> throw new AssertionError("no prologue copy expected: " + x);
                        case Action.LocalReduce x -> throw new AssertionError("the ring reduces as it receives: " + x);
                    }
                }
                assertEquals(1, sends);
                assertEquals(1, receives);
            }
            assertEquals(10, divides, "AVG divides the owned block once");
        }
    }

    @Test
    void ringReduceScatterAndAllGatherTakeSizeMinusOneStepsPerChunk() {
        // 10 elements per block in chunks of at most 3: 4 chunks.
        for (int size = 2; size <= 6; size++) {
            assertSteps(4 * (size - 1), Collective.ALL_GATHER, size, 10, null, -1, 3);
            assertSteps(4 * (size - 1), Collective.REDUCE_SCATTER, size, 10, ReduceOp.SUM, -1, 3);
            assertSteps(4 * (size - 1) + 1, Collective.REDUCE_SCATTER, size, 10, ReduceOp.AVG, -1, 3);
        }
    }

    @Test
    void chainsTakeChunksPlusSizeMinusTwoSteps() {
        for (int size = 2; size <= 6; size++) {
            for (int root = 0; root < size; root++) {
                assertSteps(4 + size - 2, Collective.BROADCAST, size, 10, null, root, 3);
                assertSteps(4 + size - 2, Collective.REDUCE, size, 10, ReduceOp.MAX, root, 3);
                assertSteps(4 + size - 2 + 1, Collective.REDUCE, size, 10, ReduceOp.AVG, root, 3);
            }
        }
    }

    @Test
    void pairwiseAllToAllTakesOneRoundPerPartnerPlusACopyStep() {
        assertSteps(3 * 4 + 1, Collective.ALL_TO_ALL, 4, 10, null, -1, 3); // even: size-1 rounds
        assertSteps(5 * 4 + 1, Collective.ALL_TO_ALL, 5, 10, null, -1, 3); // odd: size rounds, one sat out each
    }

    @Test
    void pairwiseRoundsPairEveryRankWithEveryOtherExactlyOnce() {
        for (int size = 2; size <= 9; size++) {
            for (int rank = 0; rank < size; rank++) {
                Set<Integer> met = new HashSet<>();
                for (int k = 0; k < PairwiseAllToAll.rounds(size); k++) {
                    int p = PairwiseAllToAll.partner(rank, k, size);
                    if (p >= 0) {
                        assertEquals(rank, PairwiseAllToAll.partner(p, k, size), "pairing is symmetric");
                        assertTrue(met.add(p), "met " + p + " twice");
                    }
                }
                assertEquals(size - 1, met.size());
                assertFalse(met.contains(rank));
            }
        }
    }

    @Test
    void pointToPointTakesOneStepPerChunk() {
        assertEquals(4, plan(Collective.SEND, 0, 3, 10, null, 2, 3).steps().size());
        assertEquals(4, plan(Collective.RECV, 2, 3, 10, null, 0, 3).steps().size());
    }

    @Test
    void oneRankCopiesInOneStep() {
        for (Collective c : PlanConformanceTest.COLLECTIVES) {
            Schedule s =
                    plan(c, 0, 1, 10, ReduceOp.AVG, c == Collective.BROADCAST || c == Collective.REDUCE ? 0 : -1, 3);
            assertEquals("local", s.algorithm());
            assertEquals(1, s.steps().size());
            assertEquals(
                    new Action.LocalCopy(Region.send(0, 10), Region.recv(0, 10)),
                    s.steps().get(0).actions().get(0));
        }
    }

    @Test
    void zeroCountHasNoSteps() {
        for (int size = 1; size <= 4; size++) {
            for (Collective c : Collective.values()) {
                boolean rooted = c == Collective.BROADCAST
                        || c == Collective.REDUCE
                        || c == Collective.SEND
                        || c == Collective.RECV;
                for (int rank = 0; rank < size; rank++) {
                    int root = rooted ? (rank + 1) % size : -1;
                    OpRequest r = c == Collective.SEND_RECV
                            ? OpRequest.sendRecv(
                                    rank, size, 0, (rank + 1) % size, (rank + size - 1) % size, rank % 2 == 0, 3)
                            : new OpRequest(c, rank, size, 0, ReduceOp.AVG, root, 3);
                    assertEquals(List.of(), Planner.plan(r).steps(), c + " size " + size);
                }
            }
        }
    }

    @Test
    void algorithmNames() {
        assertAll(
                () -> assertEquals(
                        "ring",
                        plan(Collective.ALL_REDUCE, 0, 2, 4, ReduceOp.SUM, -1, 1)
                                .algorithm()),
                () -> assertEquals(
                        "ring",
                        plan(Collective.REDUCE_SCATTER, 0, 2, 4, ReduceOp.SUM, -1, 1)
                                .algorithm()),
                () -> assertEquals(
                        "ring",
                        plan(Collective.ALL_GATHER, 0, 2, 4, null, -1, 1).algorithm()),
                () -> assertEquals(
                        "chain", plan(Collective.BROADCAST, 0, 2, 4, null, 1, 1).algorithm()),
                () -> assertEquals(
                        "chain",
                        plan(Collective.REDUCE, 0, 2, 4, ReduceOp.SUM, 1, 1).algorithm()),
                () -> assertEquals(
                        "pairwise",
                        plan(Collective.ALL_TO_ALL, 0, 2, 4, null, -1, 1).algorithm()),
                () -> assertEquals(
                        "p2p", plan(Collective.SEND, 0, 2, 4, null, 1, 1).algorithm()));
    }

    @Test
    void nonRootReduceRanksNeverWriteRecv() {
        for (int size = 2; size <= 6; size++) {
            for (int root = 0; root < size; root++) {
                for (long chunk : new long[] {1, 3, 64}) {
                    for (ReduceOp op : ReduceOp.values()) {
                        for (int rank = 0; rank < size; rank++) {
                            if (rank == root) {
                                continue;
                            }
                            Schedule s = plan(Collective.REDUCE, rank, size, 97, op, root, chunk);
                            for (Step step : s.steps()) {
                                for (Action a : step.actions()) {
                                    Region written = switch (a) {
                                        case Action.Receive v -> v.into();
                                        case Action.LocalCopy c -> c.to();
                                        case Action.LocalReduce x -> x.into();
                                        case Action.DivideBySize d -> d.region();
                                        case Action.Send x -> null;
                                    };
                                    assertTrue(
                                            written == null || written.buffer() != BufferRole.RECV,
                                            () -> "writes RECV:\n" + Planner.describe(s));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void scratchIsOnlyAskedForWhereItIsUsed() {
        assertEquals(
                0, plan(Collective.ALL_REDUCE, 0, 4, 100, ReduceOp.SUM, -1, 7).scratchCount());
        assertEquals(
                0,
                plan(Collective.REDUCE_SCATTER, 0, 2, 100, ReduceOp.SUM, -1, 7).scratchCount());
        assertEquals(
                7,
                plan(Collective.REDUCE_SCATTER, 0, 3, 100, ReduceOp.SUM, -1, 7).scratchCount());
        assertEquals(
                14,
                plan(Collective.REDUCE_SCATTER, 0, 4, 100, ReduceOp.SUM, -1, 7).scratchCount());
        assertEquals(0, plan(Collective.REDUCE, 1, 4, 100, ReduceOp.SUM, 0, 7).scratchCount(), "first in the chain");
        assertEquals(14, plan(Collective.REDUCE, 2, 4, 100, ReduceOp.SUM, 0, 7).scratchCount(), "middle of the chain");
        assertEquals(0, plan(Collective.REDUCE, 0, 4, 100, ReduceOp.SUM, 0, 7).scratchCount(), "root");
    }

    @Test
    void describesEveryStep() {
        Schedule s = plan(Collective.ALL_REDUCE, 0, 2, 3, ReduceOp.AVG, -1, 4);
        assertEquals("""
                AllReduce rank 0 of 2, count 3, op AVG, chunk 4: ring, 2 steps, scratch 0
                  step 0: send →1 SEND[0,2) | recv ←1 RECV[2,3) = SEND[2,3) avg in
                  step 1: avg RECV[2,3) | send →1 RECV[2,3) | recv ←1 RECV[0,2)
                """, Planner.describe(s));
        Schedule middle = plan(Collective.BROADCAST, 2, 3, 2, null, 1, 1);
        assertEquals("""
                Broadcast rank 2 of 3, count 2, root 1, chunk 1: chain, 3 steps, scratch 0
                  step 0: recv ←1 RECV[0,1)
                  step 1: send →0 RECV[0,1) | recv ←1 RECV[1,2)
                  step 2: send →0 RECV[1,2)
                """, Planner.describe(middle));
        Schedule last = plan(Collective.BROADCAST, 0, 3, 2, null, 1, 1);
        assertEquals("""
                Broadcast rank 0 of 3, count 2, root 1, chunk 1: chain, 3 steps, scratch 0
                  step 0: idle
                  step 1: recv ←2 RECV[0,1)
                  step 2: recv ←2 RECV[1,2)
                """, Planner.describe(last));
    }

    @Test
    void rejectsMissingOpsRootsOutOfRangeAndOverflow() {
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.ALL_REDUCE, 0, 2, 4, null, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.REDUCE_SCATTER, 0, 2, 4, null, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.REDUCE, 0, 2, 4, null, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.BROADCAST, 0, 2, 4, null, 2, 1));
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.REDUCE, 0, 2, 4, ReduceOp.SUM, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> plan(Collective.SEND, 0, 2, 4, null, 5, 1));
        assertThrows(
                IllegalArgumentException.class,
                () -> plan(Collective.ALL_GATHER, 0, 3, Long.MAX_VALUE / 2, null, -1, 1L << 40));
    }
}
