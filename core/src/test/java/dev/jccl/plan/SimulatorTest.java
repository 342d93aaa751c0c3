package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The simulator must reject every way a schedule can break the contract, or the conformance suite proves nothing. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SimulatorTest {

    private static Schedule schedule(int rank, int size, long chunk, Step... steps) {
        return new Schedule(
                new OpRequest(Collective.ALL_REDUCE, rank, size, 4, ReduceOp.SUM, -1, chunk),
                "test",
                2,
                List.of(steps));
    }

    private static List<RankMemory> memories(int size) {
        Random r = new Random(1);
        List<RankMemory> m = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            m.add(RankMemory.separate(4, 4, 2, r));
        }
        return m;
    }

    private static AssertionError rejected(Schedule... schedules) {
        return assertThrows(
                AssertionError.class,
                () -> Simulator.run(List.of(schedules), memories(schedules.length), ReduceOp.SUM));
    }

    /** {@link #rejected} for two ranks whose one step is rank 0 sending {@code sent} and rank 1 receiving it. */
    private static AssertionError rejectedTransfer(long chunk, Region sent, Region received) {
        return rejected(
                schedule(0, 2, chunk, Step.of(new Action.Send(1, sent))),
                schedule(1, 2, chunk, Step.of(new Action.Receive(0, received, null))));
    }

    private static void assertMentions(AssertionError e, String text) {
        assertTrue(e.getMessage().contains(text), () -> "expected '" + text + "' in: " + e.getMessage());
    }

    @Test
    void deliversAndCombinesAMatchedExchange() {
        List<RankMemory> m = memories(2);
        m.get(0).write(BufferRole.SEND, new long[] {1, 2, 3, 4});
        m.get(1).write(BufferRole.SEND, new long[] {10, 20, 30, 40});
        Simulator.run(
                List.of(
                        schedule(
                                0,
                                2,
                                4,
                                Step.of(
                                        new Action.Send(1, Region.send(0, 2)),
                                        new Action.Receive(1, Region.recv(0, 2), Region.send(0, 2)))),
                        schedule(
                                1,
                                2,
                                4,
                                Step.of(
                                        new Action.Receive(0, Region.recv(2, 2), null),
                                        new Action.Send(0, Region.send(0, 2))))),
                m,
                ReduceOp.SUM);
        long[] r0 = m.get(0).read(BufferRole.RECV);
        long[] r1 = m.get(1).read(BufferRole.RECV);
        assertArrayEquals(new long[] {11, 22}, new long[] {r0[0], r0[1]});
        assertArrayEquals(new long[] {1, 2}, new long[] {r1[2], r1[3]});
    }

    @Test
    void rejectsASendNobodyReceives() {
        assertMentions(
                rejected(schedule(0, 2, 4, Step.of(new Action.Send(1, Region.send(0, 2)))), schedule(1, 2, 4)),
                "sends 1 transfers");
    }

    @Test
    void rejectsAReceiveNobodySends() {
        assertMentions(
                rejected(schedule(0, 2, 4), schedule(1, 2, 4, Step.of(new Action.Receive(0, Region.recv(0, 2), null)))),
                "receives 1");
    }

    @Test
    void rejectsASendMatchedInAnotherStep() {
        assertMentions(
                rejected(
                        schedule(0, 2, 4, Step.of(new Action.Send(1, Region.send(0, 2)))),
                        schedule(1, 2, 4, Step.of(), Step.of(new Action.Receive(0, Region.recv(0, 2), null)))),
                "sends 1 transfers");
    }

    @Test
    void rejectsDifferentCounts() {
        assertMentions(rejectedTransfer(4, Region.send(0, 2), Region.recv(0, 3)), "sent 2 elements, received 3");
    }

    @Test
    void rejectsTransfersLongerThanAChunk() {
        assertMentions(rejectedTransfer(1, Region.send(0, 2), Region.recv(0, 2)), "chunkCount 1");
    }

    @Test
    void rejectsEmptyTransfers() {
        assertMentions(rejectedTransfer(4, Region.send(0, 0), Region.recv(0, 0)), "transfer of 0 elements");
    }

    @Test
    void rejectsReceivingIntoMemoryTheStepSends() {
        assertMentions(
                rejected(
                        schedule(
                                0,
                                2,
                                4,
                                Step.of(
                                        new Action.Send(1, Region.recv(0, 2)),
                                        new Action.Receive(1, Region.recv(1, 2), null))),
                        schedule(
                                1,
                                2,
                                4,
                                Step.of(
                                        new Action.Receive(0, Region.recv(0, 2), null),
                                        new Action.Send(0, Region.send(0, 2))))),
                "another transfer of the step reads");
    }

    @Test
    void rejectsACombineReadingShiftedMemory() {
        assertMentions(
                rejected(
                        schedule(0, 2, 4, Step.of(new Action.Receive(1, Region.recv(0, 2), Region.recv(1, 2)))),
                        schedule(1, 2, 4, Step.of(new Action.Send(0, Region.send(0, 2))))),
                "another transfer of the step reads");
    }

    @Test
    void rejectsWritingSend() {
        assertMentions(
                rejected(
                        schedule(0, 2, 4, Step.of(new Action.LocalCopy(Region.recv(0, 2), Region.send(0, 2)))),
                        schedule(1, 2, 4)),
                "read only");
    }

    @Test
    void rejectsACopyBetweenPartlyOverlappingMemory() {
        assertMentions(
                rejected(schedule(0, 1, 4, Step.of(new Action.LocalCopy(Region.recv(0, 2), Region.recv(1, 2))))),
                "partly overlapping");
    }

    @Test
    void rejectsRegionsPastTheirBuffer() {
        assertMentions(
                rejected(schedule(0, 1, 4, Step.of(new Action.LocalCopy(Region.send(0, 2), Region.scratch(1, 2))))),
                "overruns SCRATCH");
    }

    /**
     * AllToAll in the shift order, receiving straight into RECV, is right out of place and wrong in place; the in-place
     * model of the conformance runs must tell the two apart.
     */
    @Test
    void inPlaceModelCatchesAShiftOrderAllToAll() {
        int size = 3;
        int n = 2;
        List<Schedule> schedules = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            List<Step> steps = new ArrayList<>();
            steps.add(Step.of(new Action.LocalCopy(Region.send(r * n, n), Region.recv(r * n, n))));
            for (int k = 1; k < size; k++) {
                int to = (r + k) % size;
                int from = (r - k + size) % size;
                steps.add(Step.of(
                        new Action.Send(to, Region.send(to * n, n)),
                        new Action.Receive(from, Region.recv(from * n, n), null)));
            }
            schedules.add(
                    new Schedule(new OpRequest(Collective.ALL_TO_ALL, r, size, n, null, -1, n), "shift", 0, steps));
        }
        new OperationRun(Collective.ALL_TO_ALL, size, n, n, null, -1, false).check(schedules);
        AssertionError e = assertThrows(
                AssertionError.class,
                () -> new OperationRun(Collective.ALL_TO_ALL, size, n, n, null, -1, true).check(schedules));
        assertMentions(e, "expected");
    }
}
