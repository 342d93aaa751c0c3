package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A Send on one rank and the matching Recv on another, simulated with every other rank idle. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PointToPointTest {

    @Test
    void everyPairDeliversTheWholeBuffer() {
        Random random = new Random(7);
        for (int size = 2; size <= 6; size++) {
            for (int from = 0; from < size; from++) {
                for (int to = 0; to < size; to++) {
                    if (from == to) {
                        continue;
                    }
                    for (int count : PlanConformanceTest.COUNTS) {
                        for (long chunk : PlanConformanceTest.CHUNKS) {
                            List<Schedule> schedules = new ArrayList<>();
                            List<RankMemory> memories = new ArrayList<>();
                            for (int rank = 0; rank < size; rank++) {
                                OpRequest r = rank == from
                                        ? new OpRequest(Collective.SEND, rank, size, count, null, to, chunk)
                                        : rank == to
                                                ? new OpRequest(Collective.RECV, rank, size, count, null, from, chunk)
                                                : null;
                                schedules.add(
                                        r == null
                                                ? new Schedule(
                                                        new OpRequest(
                                                                Collective.SEND, rank, size, 0, null, from, chunk),
                                                        "idle",
                                                        0,
                                                        List.of())
                                                : Planner.plan(r));
                                memories.add(RankMemory.separate(count, count, 0, random));
                            }
                            long[] payload = memories.get(from).read(BufferRole.SEND);
                            Simulator.run(schedules, memories, null);
                            String what =
                                    "send " + from + "→" + to + " of " + size + ", count " + count + ", chunk " + chunk;
                            assertArrayEquals(payload, memories.get(to).read(BufferRole.RECV), what);
                            assertArrayEquals(
                                    payload, memories.get(from).read(BufferRole.SEND), what + ": SEND untouched");
                        }
                    }
                }
            }
        }
    }
}
