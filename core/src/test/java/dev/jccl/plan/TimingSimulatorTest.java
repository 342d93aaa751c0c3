package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.TimingSimulator.Level;
import dev.jccl.plan.TimingSimulator.Machine;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timing simulator against figures worked out by hand, and the tuner against the simulator at the cluster sizes
 * issue 20 names.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TimingSimulatorTest {
    /** 1 µs and 1 GB/s (1000 bytes per µs) everywhere, no per-message overhead; reductions free. */
    private static final Level UNIT = new Level(1, 1, 0);

    /** {@code hosts} × {@code perHost} ranks at the tuner's built-in figures (jccl sim's default machine). */
    private static Machine builtIn(int hosts, int perHost) {
        return new Machine(hosts, perHost, Level.ofStep(1.5, 6), Level.ofStep(12, 2.5), 16);
    }

    /** The built-in figures without the cache, which these machines leave out: one shared-memory rate. */
    private static final Calibration WITHOUT_CACHE =
            Calibration.DEFAULTS.with(Map.of("cache.mib", 0.0), "built-in, no cache");

    /** The tuner a communicator on {@code m} builds, protocol Simple: shared memory on one host, sockets across. */
    private static Tuner tunerFor(Machine m) {
        return new Tuner(
                m.ranks(),
                m.hostGroups(),
                m.hosts() == 1,
                m.hosts() > 1,
                false,
                null,
                "Simple",
                WITHOUT_CACHE,
                1 << 20);
    }

    private static double micros(Machine m, Collective c, Tuner.Algorithm a, long count) {
        return micros(m, c, a, count, 1 << 30);
    }

    /** As above with chunks of {@code chunkBytes}, which the pipelined schedules cut their pieces from. */
    private static double micros(Machine m, Collective c, Tuner.Algorithm a, long count, long chunkBytes) {
        ReduceOp op = c == Collective.ALL_REDUCE || c == Collective.REDUCE ? ReduceOp.SUM : null;
        int root = c == Collective.BROADCAST || c == Collective.REDUCE ? 0 : -1;
        return TimingSimulator.simulate(m, c, a, count, DataType.FLOAT32, op, root, chunkBytes)
                .micros();
    }

    /** That the tuner of a communicator on {@code m} picks {@code expected} for {@code count} float32 elements. */
    private static void assertPicks(Machine m, Collective c, long count, Tuner.Algorithm expected) {
        assertEquals(
                expected,
                tunerFor(m).choose(c, count, DataType.FLOAT32).algorithm(),
                m + ", " + c + ", " + count + " elements");
    }

    /**
     * That {@code t}'s estimate of {@code a} on {@code count} float32 elements lies strictly between {@code low} and
     * {@code high} times the simulated time of the real schedules (chunks of 1 MiB, the tuner's default).
     */
    private static void assertEstimateFollowsSimulator(
            Machine m, Tuner t, Collective c, Tuner.Algorithm a, long count, double low, double high) {
        double simulated = micros(m, c, a, count, 1 << 20);
        double estimated = t.estimateMicros(c, a, Tuner.Protocol.SIMPLE, count, DataType.FLOAT32);
        double ratio = estimated / simulated;
        assertTrue(
                ratio > low && ratio < high,
                m + ", " + a + ", " + count + " elements: estimated " + estimated + " µs, simulated " + simulated
                        + " µs");
    }

    @Test
    void figuresWorkedOutByHand() {
        Machine two = new Machine(1, 2, UNIT, UNIT, 1e9);
        // Ring AllReduce of 4000 bytes on 2 ranks: two steps of 2000 bytes, 1 + 2 µs each.
        assertEquals(6.0, micros(two, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 1000), 1e-6);
        // Recursive doubling: one step of all 4000 bytes.
        assertEquals(5.0, micros(two, Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 1000), 1e-6);
        // A binomial broadcast on 8 ranks: the root copies its 4000 bytes into RECV (4 µs at 1 GB/s), then 3 rounds
        // of the whole message.
        Machine eight = new Machine(1, 8, UNIT, UNIT, 1e9);
        assertEquals(4 + 3 * 5.0, micros(eight, Collective.BROADCAST, Tuner.Algorithm.TREE, 1000), 1e-6);
        // A per-message overhead: recursive doubling's one message now holds each port 0.5 µs longer.
        Machine overhead = new Machine(1, 2, new Level(1, 1, 0.5), UNIT, 1e9);
        assertEquals(5.5, micros(overhead, Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 1000), 1e-6);
        // Reducing costs γ per byte combined: 4000 bytes at 1 GB/s add 4 µs to the recursive-doubling step.
        Machine slowReduce = new Machine(1, 2, UNIT, UNIT, 1);
        assertEquals(9.0, micros(slowReduce, Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 1000), 1e-6);
    }

    @Test
    void operationsWhoseBuffersFitInTheCacheRunAtItsRate() {
        // 2 ranks, 1 GB/s between them beyond 1 MiB of cache, 4 GB/s in it. A ring AllReduce of 4000 bytes (3 buffers
        // of it per rank, 2 ranks: 24000 bytes) runs its two steps of 2000 bytes at 4 GB/s: 1 + 0.5 µs each.
        Machine cached = new Machine(1, 2, UNIT, UNIT, 1e9, 2, 0, new Level(1, 4, 0), 1);
        assertEquals(3.0, micros(cached, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 1000), 1e-6);
        // 400000 bytes (2.4 MB of buffers) spill: two steps of 200000 bytes at 1 GB/s.
        assertEquals(402.0, micros(cached, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 100_000), 1e-6);
        // An AllGather's count is per rank, but the gathered buffer is what stays in the cache: 2 ranks × 200000 bytes
        // spill, as the AllReduce of 400000 did: a rank copies its own 200000 bytes into place and sends them in one
        // step, both at 1 GB/s.
        assertEquals(200 + 201.0, micros(cached, Collective.ALL_GATHER, Tuner.Algorithm.RING, 50_000), 1e-6);
        // Without a cache, one rate at every size.
        Machine plain = new Machine(1, 2, UNIT, UNIT, 1e9, 2, 0);
        assertEquals(6.0, micros(plain, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 1000), 1e-6);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new Machine(1, 2, UNIT, UNIT, 1e9, 2, 0, UNIT, -1));
        assertTrue(e.getMessage().contains("-1.0 MiB"), e::getMessage);
    }

    @Test
    void ranksThatShareCpusWorkInTimeSlicesAndWaitForEachHandOff() {
        // Two ranks on one CPU, 10 µs a hand-off: recursive doubling's one step of 4000 bytes holds each port twice as
        // long (4 µs becomes 8: the copies are time-sliced), the receiver waits 10 µs to run, then the link's 1 µs.
        Machine shared = new Machine(1, 2, UNIT, UNIT, 1e9, 1, 10);
        assertTrue(shared.oversubscribed());
        assertEquals(
                8 + 10 + 1.0, micros(shared, Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 1000), 1e-6);
        // A one-shot on four ranks sharing two CPUs: each rank takes three messages, one hand-off after another.
        Machine four = new Machine(1, 4, new Level(1, 1e9, 0), UNIT, 1e9, 2, 10);
        assertEquals(3 * 10 + 1.0, micros(four, Collective.ALL_REDUCE, Tuner.Algorithm.ONE_SHOT, 1), 1e-3);
        // With a CPU per rank nothing of it applies.
        Machine own = new Machine(1, 2, UNIT, UNIT, 1e9, 2, 10);
        assertEquals(5.0, micros(own, Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 1000), 1e-6);
    }

    @Test
    void aHostsNetworkLinkIsSharedByItsRanks() {
        // Two hosts of two ranks, a one-shot AllReduce of 4000 bytes: each rank sends its input to the two ranks of the
        // other host in one step, so each host's link carries four 4000-byte transfers, 4 µs each at 1 GB/s, one
        // after the other: 16 µs and one latency. Were the link each rank's own, two transfers: 9 µs.
        Machine twoHosts = new Machine(2, 2, new Level(0.01, 1000, 0), UNIT, 1e9);
        double us = micros(twoHosts, Collective.ALL_REDUCE, Tuner.Algorithm.ONE_SHOT, 1000);
        assertEquals(17.0, us, 0.2);
    }

    @Test
    void atAThousandRanksTheTunersSmallAllReduceIsFarFasterThanTheRingAndItsLargeOneNearTheBest() {
        for (Machine m : new Machine[] {builtIn(8, 128), builtIn(128, 8)}) {
            Tuner t = tunerFor(m);
            Tuner.Algorithm small =
                    t.choose(Collective.ALL_REDUCE, 2, DataType.FLOAT32).algorithm();
            double ring = micros(m, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 2);
            double pick = micros(m, Collective.ALL_REDUCE, small, 2);
            assertTrue(ring / pick >= 20, m + ": 8 B, ring " + ring + " µs, " + small + " " + pick + " µs");

            long big = (256L << 20) / 4;
            Tuner.Algorithm large =
                    t.choose(Collective.ALL_REDUCE, big, DataType.FLOAT32).algorithm();
            double best = Double.POSITIVE_INFINITY;
            StringBuilder all = new StringBuilder();
            for (Tuner.Algorithm a : Tuner.Algorithm.values()) {
                if (!t.canRun(Collective.ALL_REDUCE, a, Tuner.Protocol.SIMPLE)) continue;
                double us = micros(m, Collective.ALL_REDUCE, a, big);
                all.append(a).append(' ').append(Math.round(us)).append(" µs; ");
                best = Math.min(best, us);
            }
            double picked = micros(m, Collective.ALL_REDUCE, large, big);
            assertTrue(picked <= best * 1.05, m + ": 256 MiB, pick " + large + " " + picked + " µs; " + all);
        }
    }

    @Test
    void theTwoLevelAllToAllEstimateFollowsTheSimulator() {
        // 8 hosts × 8 ranks at the built-in figures; the tuner's estimate should be the simulated time of the real
        // schedules within a quarter, from latency-bound blocks to bandwidth-bound ones (at writing, within 1%: 95.5
        // µs,
        // 32.9 ms, 525 ms simulated).
        Machine m = builtIn(8, 8);
        Tuner t = tunerFor(m);
        for (long bytes : new long[] {8, 64 << 10, 1 << 20}) {
            assertEstimateFollowsSimulator(
                    m, t, Collective.ALL_TO_ALL, Tuner.Algorithm.HIERARCHICAL, bytes / 4, 0.8, 1.25);
        }
    }

    /**
     * The pipelined double binary tree against the simulator (at writing, the estimate is 0.98-1.08 of the simulated
     * time at 256 KiB to 16 MiB on these machines), and its point: at 512 ranks a 256 KiB AllReduce, which the
     * unpipelined trees took 3.1 ms for, takes 1.1 ms, and the tuner picks it over Rabenseifner's 1.7 ms.
     */
    @Test
    void thePipelinedTreeEstimateFollowsTheSimulatorAndWinsMidSizesOnManyHosts() {
        for (Machine m : new Machine[] {builtIn(8, 8), builtIn(64, 8)}) {
            Tuner t = tunerFor(m);
            for (long bytes : new long[] {256 << 10, 2 << 20, 16 << 20}) {
                assertEstimateFollowsSimulator(m, t, Collective.ALL_REDUCE, Tuner.Algorithm.TREE, bytes / 4, 0.8, 1.25);
            }
        }
        Machine many = builtIn(64, 8);
        long count = (256 << 10) / 4;
        assertPicks(many, Collective.ALL_REDUCE, count, Tuner.Algorithm.TREE);
        double tree = micros(many, Collective.ALL_REDUCE, Tuner.Algorithm.TREE, count, 1 << 20);
        for (Tuner.Algorithm other :
                new Tuner.Algorithm[] {Tuner.Algorithm.RING, Tuner.Algorithm.HIERARCHICAL, Tuner.Algorithm.RABENSEIFNER
                }) {
            double us = micros(many, Collective.ALL_REDUCE, other, count, 1 << 20);
            assertTrue(tree * 1.4 < us, "tree " + tree + " µs against " + other + " " + us + " µs");
        }
    }

    /**
     * The one-shot AllReduce across hosts: a rank's port takes its messages one after another while the host's link
     * carries what all its ranks send, the two overlapping (at writing 0.99-1.00 of the simulated time; charging the
     * link's bytes on top of the messages gave 1.3-1.9 from 256 B to 1 KiB and picked the two-level AllReduce on 3
     * hosts × 7 ranks at 512 B, 1.15× the one-shot's simulated time).
     */
    @Test
    void theOneShotEstimateOverlapsThePortAndTheHostLink() {
        for (Machine m : new Machine[] {builtIn(3, 7), builtIn(8, 8)}) {
            Tuner t = tunerFor(m);
            for (long bytes = 64; bytes <= 8 << 10; bytes *= 4) {
                assertEstimateFollowsSimulator(
                        m, t, Collective.ALL_REDUCE, Tuner.Algorithm.ONE_SHOT, bytes / 4, 0.9, 1.1);
            }
        }
        assertPicks(builtIn(3, 7), Collective.ALL_REDUCE, 512 / 4, Tuner.Algorithm.ONE_SHOT);
    }

    /**
     * The pairwise AllToAll across hosts: a step's message overhead overlaps the host link serving the other ranks' (at
     * writing 0.95-0.97 of the simulated time on 32 hosts × 16 from 256 KiB to 2 MiB; charging the link on top of a
     * whole latency gave 1.15-1.2 and picked the two-level AllToAll at 512 KiB, 1.13× the pairwise's simulated time).
     */
    @Test
    void thePairwiseAllToAllOverlapsItsMessagesWithTheHostLink() {
        Machine m = builtIn(32, 16);
        Tuner t = tunerFor(m);
        for (long rowBytes = 256 << 10; rowBytes <= 2 << 20; rowBytes *= 2) {
            assertEstimateFollowsSimulator(
                    m, t, Collective.ALL_TO_ALL, Tuner.Algorithm.RING, rowBytes / m.ranks() / 4, 0.9, 1.1);
        }
        assertPicks(m, Collective.ALL_TO_ALL, (512 << 10) / m.ranks() / 4, Tuner.Algorithm.RING);
    }

    /**
     * The pipelined rooted trees of Broadcast and Reduce, alone and as the levels of the two-level forms, against the
     * simulator (at writing 0.85-1.14 from 256 KiB to 64 MiB on 1 to 32 hosts), and their point: at 4096 ranks on 32
     * hosts a 16 MiB Broadcast took the two-level binomial trees 56 ms, each level sending the whole message once per
     * round; pipelined it takes 15, and the tuner picks it over the chain (0.74 s).
     */
    @Test
    void thePipelinedRootedTreesFollowTheSimulatorAndCarryBigBroadcastsAcrossHosts() {
        for (Machine m : new Machine[] {builtIn(1, 8), builtIn(8, 8), builtIn(4, 16)}) {
            Tuner t = tunerFor(m);
            for (Collective c : new Collective[] {Collective.BROADCAST, Collective.REDUCE}) {
                for (long bytes : new long[] {256 << 10, 4 << 20, 64 << 20}) {
                    assertEstimateFollowsSimulator(m, t, c, Tuner.Algorithm.TREE, bytes / 4, 0.8, 1.25);
                    if (m.hosts() > 1) {
                        assertEstimateFollowsSimulator(m, t, c, Tuner.Algorithm.HIERARCHICAL, bytes / 4, 0.8, 1.25);
                    }
                }
            }
        }
        Machine many = builtIn(32, 128);
        long count = (16 << 20) / 4;
        assertPicks(many, Collective.BROADCAST, count, Tuner.Algorithm.HIERARCHICAL);
        double twoLevel = micros(many, Collective.BROADCAST, Tuner.Algorithm.HIERARCHICAL, count, 1 << 20);
        double chain = micros(many, Collective.BROADCAST, Tuner.Algorithm.RING, count, 1 << 20);
        assertTrue(twoLevel < 20_000, "two-level Broadcast " + twoLevel + " µs");
        assertTrue(twoLevel * 10 < chain, "two-level " + twoLevel + " µs against the chain's " + chain);
    }

    /**
     * Bruck's AllToAll across hosts: the estimate follows the edge rank, which crosses in every round, while the others
     * run ahead and share the host's link over the whole operation (at writing 0.79-0.97 of the simulated time here;
     * charging each round its crossing ranks one after another gave 1.1-1.3 and picked the two-level AllToAll at 4
     * hosts × 16 ranks, 4 KiB: 111.5 µs simulated against Bruck's 91.7).
     */
    @Test
    void theBruckAllToAllEstimateFollowsTheEdgeRankAndPicksItWhereItWins() {
        for (Machine m : new Machine[] {builtIn(2, 8), builtIn(4, 16), builtIn(8, 8)}) {
            Tuner t = tunerFor(m);
            for (long bytes = 4 << 10; bytes <= 1 << 20; bytes *= 4) {
                assertEstimateFollowsSimulator(
                        m, t, Collective.ALL_TO_ALL, Tuner.Algorithm.BRUCK, bytes / 4 / m.ranks(), 0.75, 1.1);
            }
        }
        Machine m = builtIn(4, 16);
        long count = (4 << 10) / 4 / m.ranks();
        assertPicks(m, Collective.ALL_TO_ALL, count, Tuner.Algorithm.BRUCK);
        assertTrue(micros(m, Collective.ALL_TO_ALL, Tuner.Algorithm.BRUCK, count)
                < micros(m, Collective.ALL_TO_ALL, Tuner.Algorithm.HIERARCHICAL, count));
    }

    @Test
    void fourThousandRanksAreSimulatedAtAll() {
        Machine m = builtIn(32, 128);
        TimingSimulator.Result ring = TimingSimulator.simulate(
                m, Collective.ALL_REDUCE, Tuner.Algorithm.RING, 2, DataType.FLOAT32, ReduceOp.SUM, -1, 1 << 20);
        assertEquals(2 * 4095, ring.steps());
        assertTrue(ring.micros() > 2 * 4095 * 1.5, ring.toString());
    }

    @Test
    void schedulesTooBigToSimulateAreSkippedNotRunOutOfMemory() {
        Machine m = builtIn(32, 128);
        // One-shot at 4096 ranks, 256 MiB in 1 MiB chunks: 4095 × 256 sends per rank, four billion in all.
        TimingSimulator.Result r = TimingSimulator.simulate(
                m,
                Collective.ALL_REDUCE,
                Tuner.Algorithm.ONE_SHOT,
                64L << 20,
                DataType.FLOAT32,
                ReduceOp.SUM,
                -1,
                1 << 20);
        assertTrue(r.skipped(), r.toString());
        assertEquals(4095L * 256 * 4096, r.transfers());
    }

    @Test
    void machinesThatCannotBeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Machine(0, 8, UNIT, UNIT, 1));
        assertThrows(IllegalArgumentException.class, () -> new Level(-1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Machine(1, 8, UNIT, UNIT, 1, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new Level(1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Level(1, 1, -1));
        assertThrows(IllegalArgumentException.class, () -> new Machine(1, 2, UNIT, UNIT, 0));
    }
}
