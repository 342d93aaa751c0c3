package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SendRecv's schedules, simulated with every rank's call: rings and shifted rings of every size, pairs, itself, in
 * place and out of place, over the grid of counts and chunk sizes; each half matched against the other half of a peer's
 * SendRecv or against a plain Send or Recv.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SendRecvPlanTest {

    /**
     * One rank's call: {@code to}/{@code from} are -1 for the half it does not have (a plain Recv/Send), both -1 when
     * idle.
     */
    private record Call(int to, int from, boolean inPlace) {
        static Call sendRecv(int to, int from, boolean inPlace) {
            return new Call(to, from, inPlace);
        }

        static Call send(int to) {
            return new Call(to, -1, false);
        }

        static Call recv(int from) {
            return new Call(-1, from, false);
        }

        static Call idle() {
            return new Call(-1, -1, false);
        }

        OpRequest request(int rank, int size, long count, long chunk) {
            if (to >= 0 && from >= 0) {
                return OpRequest.sendRecv(rank, size, count, to, from, inPlace, chunk);
            }
            if (to >= 0) {
                return new OpRequest(Collective.SEND, rank, size, count, null, to, chunk);
            }
            return new OpRequest(Collective.RECV, rank, size, count, null, from, chunk);
        }
    }

    /** Plans and simulates the calls (index = rank), then checks every rank's RECV and SEND. */
    private static void simulate(List<Call> calls, int count, long chunk) {
        int size = calls.size();
        String what = calls + ", count " + count + ", chunk " + chunk;
        Random random = new Random(what.hashCode());
        List<Schedule> schedules = new ArrayList<>();
        List<RankMemory> memories = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            Call c = calls.get(rank);
            Schedule s = c.to() < 0 && c.from() < 0
                    ? new Schedule(new OpRequest(Collective.SEND, rank, size, 0, null, 0, chunk), "idle", 0, List.of())
                    : Planner.plan(c.request(rank, size, count, chunk));
            schedules.add(s);
            memories.add(
                    c.inPlace()
                            ? RankMemory.overlapping(count, count, 0, s.scratchCount(), random)
                            : RankMemory.separate(count, count, s.scratchCount(), random));
        }
        List<long[]> inputs =
                memories.stream().map(m -> m.read(BufferRole.SEND)).toList();
        List<long[]> recvBefore =
                memories.stream().map(m -> m.read(BufferRole.RECV)).toList();
        try {
            Simulator.run(schedules, memories, null);
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage() + "\n" + OperationRun.describe(schedules), e);
        }
        for (int rank = 0; rank < size; rank++) {
            Call c = calls.get(rank);
            long[] recv = memories.get(rank).read(BufferRole.RECV);
            String where = what + ": rank " + rank;
            if (c.from() >= 0) {
                assertArrayEquals(
                        inputs.get(c.from()), recv, () -> where + " RECV\n" + OperationRun.describe(schedules));
            } else if (!c.inPlace()) {
                assertArrayEquals(recvBefore.get(rank), recv, where + " RECV must not be written");
            }
            if (!c.inPlace()) {
                assertArrayEquals(
                        inputs.get(rank), memories.get(rank).read(BufferRole.SEND), where + " SEND must not change");
            }
        }
    }

    private static List<Call> everyRank(
            int size, IntUnaryOperator to, IntUnaryOperator from, IntUnaryOperator inPlace) {
        List<Call> calls = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            calls.add(Call.sendRecv(to.applyAsInt(r), from.applyAsInt(r), inPlace.applyAsInt(r) != 0));
        }
        return calls;
    }

    private static void overTheGrid(List<Call> calls) {
        for (int count : PlanConformanceTest.COUNTS) {
            for (long chunk : PlanConformanceTest.CHUNKS) {
                simulate(calls, count, chunk);
            }
        }
    }

    @Test
    void ringsShiftedByEveryDistance() {
        for (int size = 1; size <= 6; size++) {
            int n = size;
            for (int shift = 1; shift <= Math.max(1, size - 1); shift++) {
                int k = shift;
                // all out of place, all in place, and every other rank in place
                for (int mode = 0; mode < 3; mode++) {
                    int m = mode;
                    overTheGrid(everyRank(size, r -> (r + k) % n, r -> (r - k % n + n) % n, r -> m == 2 ? r % 2 : m));
                }
            }
        }
    }

    @Test
    void pairsExchangeBothWaysWithOnePeer() {
        for (int size = 2; size <= 6; size++) {
            int n = size;
            // partner r^1; with an odd size the last rank exchanges with itself
            IntUnaryOperator partner = r -> (r ^ 1) < n ? r ^ 1 : r;
            overTheGrid(everyRank(size, partner, partner, r -> 0));
            overTheGrid(everyRank(size, partner, partner, r -> 1));
            overTheGrid(everyRank(size, partner, partner, r -> r % 2));
        }
    }

    @Test
    void withItselfIsALocalCopy() {
        for (boolean inPlace : new boolean[] {false, true}) {
            overTheGrid(List.of(Call.sendRecv(0, 0, inPlace)));
            overTheGrid(
                    List.of(Call.sendRecv(0, 0, inPlace), Call.sendRecv(1, 1, !inPlace), Call.sendRecv(2, 2, inPlace)));
        }
        Schedule out = Planner.plan(OpRequest.sendRecv(1, 3, 10, 1, 1, false, 3));
        assertEquals(List.of(Step.of(new Action.LocalCopy(Region.send(0, 10), Region.recv(0, 10)))), out.steps());
        assertEquals(
                List.of(),
                Planner.plan(OpRequest.sendRecv(1, 3, 10, 1, 1, true, 3)).steps(),
                "in place there is nothing to do");
    }

    @Test
    void eachHalfMatchesAPlainSendOrRecv() {
        for (int size = 3; size <= 5; size++) {
            for (boolean inPlace : new boolean[] {false, true}) {
                // rank 0 sends to 1 and receives from the last rank; they use plain Recv and Send
                List<Call> calls = new ArrayList<>();
                for (int r = 0; r < size; r++) {
                    calls.add(
                            r == 0
                                    ? Call.sendRecv(1, size - 1, inPlace)
                                    : r == 1 ? Call.recv(0) : r == size - 1 ? Call.send(0) : Call.idle());
                }
                overTheGrid(calls);
                // a chain: 0 sends to 1, every middle rank receives from its left and sends to its right, the last only
                // receives
                List<Call> chain = new ArrayList<>();
                for (int r = 0; r < size; r++) {
                    chain.add(
                            r == 0
                                    ? Call.send(1)
                                    : r == size - 1 ? Call.recv(r - 1) : Call.sendRecv(r + 1, r - 1, inPlace));
                }
                overTheGrid(chain);
            }
        }
    }

    @Test
    void stepsScratchAndPacing() {
        Schedule out = Planner.plan(OpRequest.sendRecv(0, 3, 10, 1, 2, false, 3));
        assertEquals(4, out.steps().size(), "one step per chunk");
        assertEquals(0, out.scratchCount());
        assertEquals(Schedule.Pacing.PER_DIRECTION, out.pacing());
        Schedule in = Planner.plan(OpRequest.sendRecv(0, 3, 10, 1, 2, true, 3));
        assertEquals(5, in.steps().size(), "one step per chunk and one for the last copy");
        assertEquals(3, in.scratchCount(), "one chunk");
        assertEquals(Schedule.Pacing.PER_DIRECTION, in.pacing());
        for (Collective c : PlanConformanceTest.COLLECTIVES) {
            Schedule s = Planner.plan(new OpRequest(
                    c,
                    0,
                    3,
                    10,
                    dev.jccl.ReduceOp.SUM,
                    c == Collective.BROADCAST || c == Collective.REDUCE ? 0 : -1,
                    3));
            assertEquals(Schedule.Pacing.LOCKSTEP, s.pacing(), c.toString());
        }
        assertEquals(
                Schedule.Pacing.LOCKSTEP,
                Planner.plan(new OpRequest(Collective.SEND, 0, 3, 10, null, 1, 3))
                        .pacing());
    }

    @Test
    void describesBothPeersAndInPlace() {
        assertEquals("""
                SendRecv rank 1 of 3, count 5, to 2, from 0, in place, chunk 2: p2p per direction, 4 steps, scratch 2
                  step 0: send →2 SEND[0,2) | recv ←0 SCRATCH[0,2)
                  step 1: copy SCRATCH[0,2) → RECV[0,2) | send →2 SEND[2,4) | recv ←0 SCRATCH[0,2)
                  step 2: copy SCRATCH[0,2) → RECV[2,4) | send →2 SEND[4,5) | recv ←0 SCRATCH[0,1)
                  step 3: copy SCRATCH[0,1) → RECV[4,5)
                """, Planner.describe(Planner.plan(OpRequest.sendRecv(1, 3, 5, 2, 0, true, 2))));
        assertEquals("""
                SendRecv rank 0 of 2, count 3, to 1, from 1, chunk 2: p2p per direction, 2 steps, scratch 0
                  step 0: send →1 SEND[0,2) | recv ←1 RECV[0,2)
                  step 1: send →1 SEND[2,3) | recv ←1 RECV[2,3)
                """, Planner.describe(Planner.plan(OpRequest.sendRecv(0, 2, 3, 1, 1, false, 2))));
    }

    @Test
    void refusesPeersOutOfRangeAndItselfOneWayOnly() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Planner.plan(OpRequest.sendRecv(0, 3, 4, 3, 1, false, 2)));
        assertTrue(e.getMessage().contains("sendPeer 3"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> Planner.plan(OpRequest.sendRecv(0, 3, 4, 1, -1, false, 2)));
        assertTrue(e.getMessage().contains("recvPeer -1"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> Planner.plan(OpRequest.sendRecv(1, 3, 4, 1, 2, false, 2)));
        assertTrue(e.getMessage().contains("both peers"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Planner.plan(OpRequest.sendRecv(1, 3, 4, 0, 1, false, 2)));
        assertThrows(
                IllegalArgumentException.class,
                () -> Planner.plan(OpRequest.sendRecv(1, 3, 0, 0, 1, false, 2)),
                "even for count 0");
    }

    @Test
    void simulatorCatchesAnOutOfPlaceScheduleRunInPlace() {
        // The out-of-place plan receives chunk c into RECV while sending chunk c from SEND: in place they are the same
        // memory.
        int size = 2;
        List<Schedule> schedules = new ArrayList<>();
        List<RankMemory> memories = new ArrayList<>();
        Random random = new Random(3);
        for (int r = 0; r < size; r++) {
            schedules.add(Planner.plan(OpRequest.sendRecv(r, size, 8, 1 - r, 1 - r, false, 4)));
            memories.add(RankMemory.overlapping(8, 8, 0, 0, random));
        }
        AssertionError e = assertThrows(AssertionError.class, () -> Simulator.run(schedules, memories, null));
        assertTrue(e.getMessage().contains("writes the memory it reads"), e.getMessage());
    }

    @Test
    void simulatorCatchesACopyOverASendThatMayNotHaveLeft() {
        // In place, step 1 copies into RECV's second chunk, which step 1 also sends from (SEND is the same memory):
        // in lockstep the copy runs first, but per direction the send may already have run ahead.
        OpRequest r0 = OpRequest.sendRecv(0, 2, 4, 1, 1, true, 2);
        OpRequest r1 = OpRequest.sendRecv(1, 2, 4, 0, 0, false, 2);
        List<Step> steps = List.of(
                Step.of(new Action.Send(1, Region.send(0, 2)), new Action.Receive(1, Region.scratch(0, 2), null)),
                Step.of(
                        new Action.LocalCopy(Region.scratch(0, 2), Region.recv(2, 2)),
                        new Action.Send(1, Region.send(2, 2)),
                        new Action.Receive(1, Region.scratch(0, 2), null)),
                Step.of(new Action.LocalCopy(Region.scratch(0, 2), Region.recv(0, 2))));
        Random random = new Random(4);
        AssertionError e = assertThrows(
                AssertionError.class,
                () -> Simulator.run(
                        List.of(new Schedule(r0, "bad", 2, steps, Schedule.Pacing.PER_DIRECTION), Planner.plan(r1)),
                        List.of(RankMemory.overlapping(4, 4, 0, 2, random), RankMemory.separate(4, 4, 0, random)),
                        null));
        assertTrue(e.getMessage().contains("writes the memory it reads"), e.getMessage());
        // the same steps in lockstep break no rule (the copy then runs before step 1's send)
        Simulator.run(
                List.of(new Schedule(r0, "lockstep", 2, steps), Planner.plan(r1)),
                List.of(RankMemory.overlapping(4, 4, 0, 2, random), RankMemory.separate(4, 4, 0, random)),
                null);
    }
}
