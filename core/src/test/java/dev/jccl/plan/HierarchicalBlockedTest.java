package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

    @Test
    void theTunerTakesTheTwoLevelAllToAllForSmallBlocksOnAFewHostsOfManyRanks() {
        // 4 hosts × 16 ranks, 8 B a block: pairwise pays the network in 48 of its 63 steps and Bruck in each of its 6
        // rounds, every rank of a host sending across; the two levels pay it in 3 steps, one leader a host sending.
        TimingSimulator.Machine fourBySixteen = machine(4, 16);
        Tuner tuner = new Tuner(64, fourBySixteen.hostGroups(), false, true, false, null, null);
        assertEquals(
                Tuner.Algorithm.HIERARCHICAL,
                tuner.choose(Collective.ALL_TO_ALL, 2, DataType.FLOAT32).algorithm());
        // The simulator, running the real schedules, agrees (µs: two levels 57, Bruck 73, pairwise 756).
        double twoLevel = simulate(fourBySixteen, Tuner.Algorithm.HIERARCHICAL, 2);
        double bruck = simulate(fourBySixteen, Tuner.Algorithm.BRUCK, 2);
        double pairwise = simulate(fourBySixteen, Tuner.Algorithm.RING, 2);
        assertTrue(
                twoLevel < bruck && bruck < pairwise,
                "two levels " + twoLevel + " µs, Bruck " + bruck + " µs, pairwise " + pairwise + " µs");

        // Not where it loses. 8 hosts × 32 ranks, 8 B: Bruck's 8 rounds beat 7 leaders' rounds after a gather of 31
        // inputs through one port. 64 KiB blocks: the leader's port and copies carry every block of its host twice, so
        // pairwise, which moves each once, wins.
        Tuner eightByThirtyTwo = new Tuner(256, HostGroups.evenly(8, 32), false, true, false, null, null);
        assertEquals(
                Tuner.Algorithm.BRUCK,
                eightByThirtyTwo
                        .choose(Collective.ALL_TO_ALL, 2, DataType.FLOAT32)
                        .algorithm());
        assertEquals(
                Tuner.Algorithm.RING,
                tuner.choose(Collective.ALL_TO_ALL, (64 << 10) / 4, DataType.FLOAT32)
                        .algorithm());
    }

    @Test
    void jcclAlgoHierarchicalForcesTheTwoLevelAllToAll() {
        // 8 hosts × 8 ranks, 64 KiB blocks: the tuner's own pick is pairwise; JCCL_ALGO=Hierarchical gets two levels.
        HostGroups g = HostGroups.evenly(8, 8);
        long count = (64 << 10) / 4;
        assertEquals(
                Tuner.Algorithm.RING,
                new Tuner(64, g, false, true, null, null)
                        .choose(Collective.ALL_TO_ALL, count, DataType.FLOAT32)
                        .algorithm());
        Tuner forced = new Tuner(64, g, false, true, "Hierarchical", null);
        assertEquals(
                Tuner.Algorithm.HIERARCHICAL,
                forced.choose(Collective.ALL_TO_ALL, count, DataType.FLOAT32).algorithm());
        assertTrue(
                forced.warnings().stream().noneMatch(w -> w.contains("AllToAll")),
                forced.warnings().toString());
    }

    /** The built-in calibration's machine: what the tuner's estimates assume. */
    private static TimingSimulator.Machine machine(int hosts, int perHost) {
        Calibration c = Calibration.DEFAULTS;
        return new TimingSimulator.Machine(
                hosts,
                perHost,
                TimingSimulator.Level.ofStep(c.shmStepMicros(), c.shmGbPerSecond()),
                TimingSimulator.Level.ofStep(c.netStepMicros(), c.netGbPerSecond()),
                c.reduceGbPerSecond());
    }

    private static double simulate(TimingSimulator.Machine m, Tuner.Algorithm a, long count) {
        return TimingSimulator.simulate(m, Collective.ALL_TO_ALL, a, count, DataType.FLOAT32, null, -1, 1 << 20)
                .micros();
    }

    private static OpRequest request(
            Collective c, int rank, int size, long count, ReduceOp op, long chunk, boolean inPlace) {
        return new OpRequest(c, rank, size, count, op, 0, -1, inPlace, chunk, Tuner.Algorithm.HIERARCHICAL);
    }
}
