package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.DataType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tuner's table and choices: small operations take the low-latency way, big ones the ring; the user's filters win
 * where they can.
 */
class TunerTest {
    private static Tuner.Choice choose(Tuner t, Collective c, long bytes) {
        return t.choose(c, bytes / 4, DataType.FLOAT32);
    }

    @Test
    void inSharedMemorySmallOperationsAreOneShotLowLatencyAndBigReductionsOfManyRanksTheRingsBytes() {
        for (int n : new int[] {2, 4, 8}) {
            Tuner t = new Tuner(n, true, false, null, null);
            for (Collective c : new Collective[] {
                Collective.ALL_REDUCE,
                Collective.BROADCAST,
                Collective.REDUCE,
                Collective.ALL_GATHER,
                Collective.REDUCE_SCATTER,
                Collective.ALL_TO_ALL
            }) {
                assertEquals("OneShot/LL", choose(t, c, 8).describe(), n + " ranks, " + c);
            }
        }
        // Up to 4 ranks every reader's extra traffic costs less than the ring's copies in and out.
        assertEquals(
                "OneShot/LL",
                choose(new Tuner(2, true, false, null, null), Collective.ALL_REDUCE, 64 << 20)
                        .describe());
        assertEquals(
                "OneShot/LL",
                choose(new Tuner(4, true, false, null, null), Collective.ALL_REDUCE, 64 << 20)
                        .describe());
        // From 5 ranks big reductions leave LL: a Reduce for the chain, an AllReduce for Rabenseifner's (the ring's
        // bytes
        // in 6 steps instead of 14; measured at 8 ranks on 2 CPUs, 1 MiB: 3.7-6.4 ms against the ring's 11-22 ms).
        Tuner eight = new Tuner(8, true, false, null, null);
        assertEquals(
                "Rabenseifner/Simple",
                choose(eight, Collective.ALL_REDUCE, 64 << 20).describe());
        // A big Reduce takes the pipelined trees: jccl sim, 1 × 8 ranks, 64 MiB: 16.0 ms against the chain's 16.9.
        assertEquals("Tree/Simple", choose(eight, Collective.REDUCE, 64 << 20).describe());
        // Unless the ranks share CPUs: every pipelined step waits for four peers to be scheduled (measured, 8 ranks on
        // 2 CPUs, 2 MiB: the tree 2.7-19.7 ms, the one-shot 0.73-0.90).
        Tuner crowded = new Tuner(8, null, true, false, true, null, null);
        assertNotEquals(
                Tuner.Algorithm.TREE,
                choose(crowded, Collective.REDUCE, 2 << 20).algorithm());
        assertEquals(
                Tuner.Algorithm.TREE, choose(eight, Collective.REDUCE, 2 << 20).algorithm());
    }

    @Test
    void lowLatencyNeedsEveryRankInSharedMemory() {
        Tuner mixed = new Tuner(4, false, true, null, null);
        assertNotEquals(
                Tuner.Protocol.LL, choose(mixed, Collective.ALL_REDUCE, 8).protocol());
        assertTrue(
                Double.isNaN(mixed.estimate(Collective.ALL_GATHER, Tuner.Algorithm.ONE_SHOT, Tuner.Protocol.LL, 8, 4)));
        Tuner shm = new Tuner(4, true, false, null, null);
        assertFalse(
                Double.isNaN(
                        shm.estimate(Collective.ALL_GATHER, Tuner.Algorithm.ONE_SHOT, Tuner.Protocol.LL, 1L << 30, 4)),
                "at any size");
    }

    @Test
    void gatheringAndBroadcastingTakeOneRoundInSharedMemoryWhateverTheSizeAndReductionsTheRingsBytesWhenBig() {
        Tuner t = new Tuner(4, true, false, null, null);
        assertEquals("OneShot/LL", choose(t, Collective.ALL_GATHER, 64 << 20).describe());
        assertEquals("OneShot/LL", choose(t, Collective.BROADCAST, 64 << 20).describe());
        Tuner eight = new Tuner(8, true, false, null, null);
        assertEquals(
                "OneShot/LL", choose(eight, Collective.ALL_GATHER, 64 << 20).describe());
        assertEquals(
                "Rabenseifner/Simple",
                choose(eight, Collective.ALL_REDUCE, 64 << 20).describe());
    }

    @Test
    void overTheNetworkASmallAllReduceTakesOneRoundAndABigOneTheRing() {
        Tuner t = new Tuner(2, false, true, null, null);
        // One round: recursive doubling, whose one exchange is combined as it arrives (one-shot reduces afterwards).
        assertEquals(
                "RecursiveDoubling/Simple", choose(t, Collective.ALL_REDUCE, 8).describe());
        assertEquals("Ring/Simple", choose(t, Collective.ALL_REDUCE, 64 << 20).describe());
        assertEquals(
                "Ring/Simple",
                choose(t, Collective.BROADCAST, 8).describe(),
                "only AllReduce has a one-shot schedule, and a tree of 2 ranks is the chain");
    }

    @Test
    void theChoiceFollowsTheEstimatesCrossingOver() {
        Tuner t = new Tuner(8, true, false, null, null);
        String previous = null;
        int switches = 0;
        for (long bytes = 8; bytes <= (64L << 20); bytes *= 2) {
            String now = choose(t, Collective.ALL_REDUCE, bytes).describe();
            if (previous != null && !previous.equals(now)) switches++;
            previous = now;
        }
        assertEquals(1, switches, "one crossover from OneShot/LL to Rabenseifner/Simple");
    }

    @Test
    void algoAndProtoFiltersAreHonouredInNcclSyntax() {
        assertEquals(
                "Ring/Simple",
                choose(new Tuner(2, true, false, "ring", null), Collective.ALL_REDUCE, 8)
                        .describe());
        // Without LL, a small AllReduce still takes one round, through the rings: recursive doubling.
        assertEquals(
                "RecursiveDoubling/Simple",
                choose(new Tuner(2, true, false, null, "^LL"), Collective.ALL_REDUCE, 8)
                        .describe());
        assertEquals(
                "Ring/Simple",
                choose(new Tuner(2, true, false, null, "^LL"), Collective.BROADCAST, 8)
                        .describe());
        assertEquals(
                "OneShot/LL",
                choose(new Tuner(2, true, false, "OneShot", null), Collective.ALL_REDUCE, 8)
                        .describe());
        assertEquals(
                "Ring/Simple",
                choose(new Tuner(2, true, false, "^OneShot", null), Collective.ALL_GATHER, 8)
                        .describe());
        // OneShot over the network at 64 MiB: slower than the ring, but asked for.
        assertEquals(
                "OneShot/Simple",
                choose(new Tuner(2, false, true, "OneShot", null), Collective.ALL_REDUCE, 64 << 20)
                        .describe());
    }

    @Test
    void aFilterThatLeavesNothingForACollectiveFallsBackToTheBestOfAll() {
        // Broadcast has no one-shot schedule over sockets: OneShot/Simple cannot run it.
        Tuner t = new Tuner(3, false, true, "OneShot", "Simple");
        Tuner unfiltered = new Tuner(3, false, true, null, "Simple");
        assertEquals(
                choose(unfiltered, Collective.BROADCAST, 1 << 20).describe(),
                choose(t, Collective.BROADCAST, 1 << 20).describe());
    }

    @Test
    void namesJcclDoesNotKnowAreWarnedAboutAndIgnored() {
        Tuner t = new Tuner(2, true, false, "PAT,Ring", "LL128,Bogus");
        assertEquals(3, t.warnings().size(), t.warnings().toString());
        assertTrue(
                t.warnings().get(0).contains("PAT") && t.warnings().get(0).contains("NCCL has and Jccl does not"),
                t.warnings().get(0));
        assertTrue(
                t.warnings().get(1).contains("LL128") && t.warnings().get(1).contains("NCCL has and Jccl does not"),
                t.warnings().get(1));
        assertTrue(
                t.warnings().get(2).contains("Bogus")
                        && t.warnings().get(2).contains("not a Jccl protocol (LL, Simple)"),
                t.warnings().get(2));
        assertEquals(Tuner.Algorithm.RING, choose(t, Collective.ALL_REDUCE, 8).algorithm());
        Tuner bogus = new Tuner(2, true, false, "Bogus", null);
        assertTrue(
                bogus.warnings()
                        .getFirst()
                        .contains("not a Jccl algorithm (Ring, OneShot, Hierarchical, Tree, RecursiveDoubling,"
                                + " Rabenseifner, Bruck)"),
                bogus.warnings().getFirst());
        assertEquals(
                "OneShot/LL",
                choose(bogus, Collective.ALL_REDUCE, 8).describe(),
                "nothing known named: nothing filtered");
    }

    @Test
    void theTableShowsLatencyAndBandwidthPerAlgorithmAndProtocolForEveryCollective() {
        String table = new Tuner(4, true, false, null, null).table();
        assertTrue(table.startsWith("Algorithm     | Ring"), table);
        assertTrue(table.contains("Protocol      | LL            Simple"), table);
        for (String c : new String[] {"AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllToAll"}) {
            assertTrue(table.contains("\n" + c + " "), c + " row in\n" + table);
        }
        assertTrue(table.contains("(latency µs / bandwidth GB/s, 4 ranks, all in shared memory"), table);
        // Ring has no LL; OneShot has both for AllReduce, and only LL for the others; Hierarchical needs several
        // hosts, so on one host it has nothing; Tree, RecursiveDoubling and Rabenseifner have AllReduce schedules,
        // Tree Broadcast ones too, Bruck only AllGather's.
        String cell = " +[0-9.]+/ *[0-9.]+";
        String none = " +-";
        assertRowMatches(
                table,
                "AllReduce",
                " +\\|" + none + cell + " +\\|" + cell + cell + " +\\|" + none + none + " +\\|" + none + cell + " +\\|"
                        + none + cell + " +\\|" + none + cell + " +\\|" + none + none + " *");
        assertRowMatches(
                table,
                "Broadcast",
                " +\\|" + none + cell + " +\\|" + cell + none + " +\\|" + none + none + " +\\|" + none + cell + " +\\|"
                        + none + none + " +\\|" + none + none + " +\\|" + none + none + " *");
    }

    /** The table's row for {@code collective} is the collective's name followed by what {@code cells} matches. */
    private static void assertRowMatches(String table, String collective, String cells) {
        String row =
                table.lines().filter(l -> l.startsWith(collective)).findFirst().orElseThrow();
        assertTrue(row.matches(collective + cells), row);
    }

    @Test
    void anAlgorithmThatCannotRunACollectiveIsWarnedAboutAndThatCollectiveTakesThePick() {
        Tuner t = new Tuner(8, false, true, "Bruck", null);
        assertEquals(Tuner.Algorithm.BRUCK, choose(t, Collective.ALL_GATHER, 64).algorithm());
        assertEquals(Tuner.Algorithm.BRUCK, choose(t, Collective.ALL_TO_ALL, 64).algorithm());
        assertEquals(4, t.warnings().size(), t.warnings().toString()); // all but AllGather and AllToAll
        assertTrue(
                t.warnings().getFirst().contains("allows Bruck (protocols LL,Simple), which cannot run AllReduce"),
                t.warnings().getFirst());
        assertTrue(t.canRun(
                Collective.ALL_REDUCE, choose(t, Collective.ALL_REDUCE, 8).algorithm(), Tuner.Protocol.SIMPLE));
        assertTrue(new Tuner(8, false, true, "Tree", null)
                .warnings().stream().anyMatch(w -> w.contains("cannot run AllGather")));
    }

    @Test
    void twoRanksThatShareACpuTakeTheOneShotForSmallMessages() {
        // 2 ranks on 1 CPU (taskset -c 0), µs, 16 B: Broadcast one-shot 0.18, ring 0.46-0.53; AllReduce one-shot
        // 1.84-1.92, recursive doubling 2.59-2.65. The one-shot is charged one hand-off, as a step of the others is.
        Tuner shared = new Tuner(2, null, true, false, true, null, null);
        for (Collective c : List.of(
                Collective.ALL_REDUCE,
                Collective.BROADCAST,
                Collective.REDUCE,
                Collective.ALL_GATHER,
                Collective.REDUCE_SCATTER)) {
            Tuner.Choice choice = choose(shared, c, 16);
            assertEquals(Tuner.Algorithm.ONE_SHOT, choice.algorithm(), c::toString);
            assertEquals(Tuner.Protocol.LL, choice.protocol(), c::toString);
        }
    }

    @Test
    void twoRanksTakeTheRingWhileTheMessageStaysInCache() {
        // 2 ranks on 2 CPUs, AllReduce, µs: 128 KiB Rabenseifner 6.2-6.5 against the one-shot LL's 7.0-7.8, 1 MiB 47-50
        // against 56-66; out of the 32 MiB cache the one-shot wins (16 MiB 1320-1490 against 1720-1980).
        Tuner twoRanks = new Tuner(2, null, true, false, false, null, null);
        long kib = 1024;
        assertEquals(
                Tuner.Protocol.LL,
                choose(twoRanks, Collective.ALL_REDUCE, 16 * kib).protocol());
        for (long size : List.of(256 * kib, 1024 * kib, 4096 * kib)) {
            Tuner.Choice inCache = choose(twoRanks, Collective.ALL_REDUCE, size);
            assertEquals(Tuner.Protocol.SIMPLE, inCache.protocol(), () -> size / kib + " KiB");
            assertTrue(
                    inCache.algorithm() == Tuner.Algorithm.RING || inCache.algorithm() == Tuner.Algorithm.RABENSEIFNER,
                    () -> size / kib + " KiB: " + inCache);
        }
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(twoRanks, Collective.ALL_REDUCE, 16384 * kib).algorithm());
        // A machine without a known cache keeps the one rate, where the one-shot wins.
        Tuner unknown = withFigure(2, false, "cache.mib", 0.0);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(unknown, Collective.ALL_REDUCE, 1024 * kib).algorithm());
        // Where ranks share CPUs a ring's writer stalls while its reader is off the CPU: 4 ranks on 2 CPUs, 2 MiB,
        // Rabenseifner 670-751 µs, the one-shot 482-491.
        Tuner shared = new Tuner(4, null, true, false, true, null, null);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(shared, Collective.ALL_REDUCE, 2048 * kib).algorithm());
    }

    /**
     * The 16-bit floats' kernels are slower than FLOAT32's, so the one-shot, whose every rank reduces the whole
     * message, loses to the schedules that reduce a share. Measured (µs, 2026-11-28): 2 ranks, 64 MiB FLOAT16, ring
     * 9855-10169 against the one-shot's 11342-11474, where FLOAT32 runs the one-shot in 8588 against the ring's 9173; 4
     * ranks on 2 CPUs, FLOAT16, Rabenseifner against the one-shot: 2 MiB 1008-1190 against 1279-2166, 256 KiB 87-130
     * against 146-152; but out of the cache the one-shot still wins there, 64 MiB 44.8-46.7 ms against 50.0-97.3.
     */
    @Test
    void slowKernelsTakeTheSchedulesThatReduceAShare() {
        long mib = 1 << 20;
        Tuner twoRanks = new Tuner(2, null, true, false, false, null, null);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                twoRanks.choose(Collective.ALL_REDUCE, 64 * mib / 4, DataType.FLOAT32)
                        .algorithm());
        Tuner.Choice half = twoRanks.choose(Collective.ALL_REDUCE, 64 * mib / 2, DataType.FLOAT16);
        assertEquals(Tuner.Protocol.SIMPLE, half.protocol(), half::toString);
        assertTrue(
                half.algorithm() == Tuner.Algorithm.RING || half.algorithm() == Tuner.Algorithm.RABENSEIFNER,
                half::toString);
        Tuner shared = new Tuner(4, null, true, false, true, null, null);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                shared.choose(Collective.ALL_REDUCE, 2 * mib / 4, DataType.FLOAT32)
                        .algorithm());
        for (long bytes : List.of(mib / 4, 2 * mib)) {
            assertEquals(
                    Tuner.Algorithm.RABENSEIFNER,
                    shared.choose(Collective.ALL_REDUCE, bytes / 2, DataType.FLOAT16)
                            .algorithm(),
                    () -> bytes + " B");
        }
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                shared.choose(Collective.ALL_REDUCE, 64 * mib / 2, DataType.FLOAT16)
                        .algorithm());
        // The slowdown is a calibration figure: a machine whose FLOAT16 kernel keeps up takes the one-shot as FLOAT32
        // does.
        Tuner keepsUp = withFigure(2, false, "reduce.float16.slowdown", 1.0);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                keepsUp.choose(Collective.ALL_REDUCE, 64 * mib / 2, DataType.FLOAT16)
                        .algorithm());
        // The estimate itself is the type's: what info --tuner and the simulator's comparisons read.
        assertTrue(twoRanks.estimateMicros(
                        Collective.ALL_REDUCE,
                        Tuner.Algorithm.ONE_SHOT,
                        Tuner.Protocol.LL,
                        64 * mib / 2,
                        DataType.FLOAT16)
                > twoRanks.estimateMicros(
                        Collective.ALL_REDUCE,
                        Tuner.Algorithm.ONE_SHOT,
                        Tuner.Protocol.LL,
                        64 * mib / 4,
                        DataType.FLOAT32));
    }

    /**
     * Where ranks share CPUs and an operation spills out of the cache, the lockstep schedules run slower than the
     * model's shared-memory rate, and a one-shot that runs whatever it can whenever a rank is scheduled can win.
     * Measured, 8 ranks on 2 CPUs, 16 MiB: Reduce one-shot 6.2-6.7 ms against the chain's 15.3-18.1 (2026-11-28). The
     * AllReduce's one-shot, whose every rank reads every input, lost there to Rabenseifner in both of the VM's phases
     * (2026-11-29, see {@link #ranksThatShareCpusShareTheirRates}).
     */
    @Test
    void sharedCpusTakeTheOneShotReduceOnceTheMessageSpillsOutOfTheCache() {
        long mib = 1 << 20;
        for (Tuner eight : List.of(
                new Tuner(8, null, true, false, true, null, null),
                new Tuner(8, null, true, false, true, 4, null, null, Calibration.DEFAULTS, 1 << 20))) {
            assertEquals(
                    Tuner.Algorithm.ONE_SHOT,
                    eight.choose(Collective.REDUCE, 16 * mib / 4, DataType.FLOAT32)
                            .algorithm());
        }
        // Where the ranks per CPU are not known (JCCL_OVERSUBSCRIBED=1 alone), the LL keeps its rate and the spilled
        // lockstep steps their stall, and the one-shot AllReduce wins; without a known cache nothing is known to spill,
        // and the model keeps its one rate.
        Tuner unknownShare = new Tuner(8, null, true, false, true, null, null);
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                unknownShare
                        .choose(Collective.ALL_REDUCE, 16 * mib / 4, DataType.FLOAT32)
                        .algorithm());
        Tuner unknown = withFigure(8, true, "cache.mib", 0.0);
        assertEquals(
                Tuner.Algorithm.RABENSEIFNER,
                unknown.choose(Collective.ALL_REDUCE, 16 * mib / 4, DataType.FLOAT32)
                        .algorithm());
    }

    /**
     * Ranks that share CPUs share their CPUs' rates: the tuner divides what a rank's CPU does by the ranks per CPU, as
     * the simulator does. The one-shot's every rank moves (P + 1) times its input, a ring's twice, so mid-size
     * AllReduces of many ranks on few CPUs leave the one-shot. Measured, 8 ranks on 2 CPUs: 256 KiB, Rabenseifner
     * 174-185 µs against the one-shot's 268-467; 128 KiB, since each step waits a loop's hand-off rather than a lone
     * call's, 233-265 against 308-521 (2026-11-28).
     */
    @Test
    void ranksThatShareCpusShareTheirRates() {
        Tuner unknown = new Tuner(8, null, true, false, true, 1, null, null, Calibration.DEFAULTS, 1 << 20);
        Tuner fourPerCpu = new Tuner(8, null, true, false, true, 4, null, null, Calibration.DEFAULTS, 1 << 20);
        long kib = 1 << 10;
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(unknown, Collective.ALL_REDUCE, 128 * kib).algorithm());
        for (long bytes : List.of(128 * kib, 256 * kib, 512 * kib)) {
            assertEquals(
                    Tuner.Algorithm.RABENSEIFNER,
                    choose(fourPerCpu, Collective.ALL_REDUCE, bytes).algorithm());
        }
        // Small messages are latency: 64 KiB, one-shot 160-181 µs against Rabenseifner's 192-638 (2026-11-29).
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(fourPerCpu, Collective.ALL_REDUCE, 64 * kib).algorithm());
        // Beyond the cache too Rabenseifner wins on 8 ranks, in both of the VM's phases: 16 MiB 27.6 ms and 23.8-29.1
        // against the one-shot's 39.5 and 44.2-57.3 (2026-11-29; see Tuner.SPILLED_STALL).
        assertEquals(
                Tuner.Algorithm.RABENSEIFNER,
                choose(fourPerCpu, Collective.ALL_REDUCE, 16 * kib * kib).algorithm());
        // The one-shot's byte term is four times as long up to the knee; its latency and hand-off are not the CPU's
        // rate.
        int kneeCount = (int) (Tuner.SHARED_CPU_LL_KNEE_BYTES / Float.BYTES);
        assertEquals(
                4 * oneShotBytes(unknown, Collective.ALL_REDUCE, kneeCount),
                oneShotBytes(fourPerCpu, Collective.ALL_REDUCE, kneeCount),
                1e-9);
        // Beyond it, the bytes past the knee's share of the input cost SHARED_CPU_LL_STALL times as much.
        int count = 1 << 18;
        double pastKnee = 1 - Tuner.SHARED_CPU_LL_KNEE_BYTES / (count * (double) Float.BYTES);
        assertEquals(
                4
                        * oneShotBytes(unknown, Collective.ALL_REDUCE, count)
                        * (1 + (Tuner.SHARED_CPU_LL_STALL - 1) * pastKnee),
                oneShotBytes(fourPerCpu, Collective.ALL_REDUCE, count),
                1e-9 * oneShotBytes(fourPerCpu, Collective.ALL_REDUCE, count));
        // Broadcast and Reduce keep the unshared figures: their ranks' work is uneven (a one-shot Reduce's root reads
        // every input, the others publish theirs), and shared, the 8-rank 1 MiB Reduce took the tree, which measured
        // 405-509 µs against the one-shot's 303-332.
        // Their ranks still wait the crowded CPUs' hand-offs, which the one-shot's byte term (the estimate less a
        // 2-element one's) leaves out.
        for (Collective c : List.of(Collective.BROADCAST, Collective.REDUCE)) {
            assertEquals(
                    oneShotBytes(unknown, c, 1 << 16),
                    oneShotBytes(fourPerCpu, c, 1 << 16),
                    1e-9 * oneShotBytes(unknown, c, 1 << 16),
                    c::toString);
            assertTrue(
                    fourPerCpu.estimateMicros(c, Tuner.Algorithm.TREE, Tuner.Protocol.SIMPLE, 2, DataType.FLOAT32)
                            > unknown.estimateMicros(
                                    c, Tuner.Algorithm.TREE, Tuner.Protocol.SIMPLE, 2, DataType.FLOAT32),
                    c::toString);
        }
        assertTrue(fourPerCpu.table().contains("ranks share CPUs (4.00 per CPU)"), fourPerCpu::table);
    }

    /** A one-shot LL's estimate for {@code count} floats less its estimate for none: what its bytes cost. */
    private static double oneShotBytes(Tuner t, Collective c, int count) {
        return t.estimateMicros(c, Tuner.Algorithm.ONE_SHOT, Tuner.Protocol.LL, count, DataType.FLOAT32)
                - t.estimateMicros(c, Tuner.Algorithm.ONE_SHOT, Tuner.Protocol.LL, 0, DataType.FLOAT32);
    }

    /**
     * Beyond 4 ranks per CPU a lockstep step waits longer than one hand-off. Measured, 16 ranks on 2 CPUs, each rank's
     * JIT warmed up for 40 s: 32 KiB, Rabenseifner 210-258 µs against the one-shot's 197-200; 2 MiB, Rabenseifner
     * 3.4-4.2 ms against the one-shot's 9.6-15.6; 16 MiB, 34-44 against 71-121 (Open MPI 421-443 µs, 5.7-5.9 ms and
     * 53-54 ms, 2026-11-28).
     */
    @Test
    void crowdedCpusMakeEveryLockstepStepWaitLonger() {
        Tuner sixteen = new Tuner(16, null, true, false, true, 8, null, null, Calibration.DEFAULTS, 1 << 20);
        long kib = 1 << 10;
        assertEquals(
                Tuner.Algorithm.ONE_SHOT,
                choose(sixteen, Collective.ALL_REDUCE, 32 * kib).algorithm());
        for (long bytes : List.of(2048 * kib, 16384 * kib)) {
            assertEquals(
                    Tuner.Algorithm.RABENSEIFNER,
                    choose(sixteen, Collective.ALL_REDUCE, bytes).algorithm());
        }
        // Recursive doubling's 4 steps of 8 bytes: each waits the calibrated step hand-off times (8 - 1)^1.2 at 8 ranks
        // per CPU, (4 - 1)^1.2 at 4.
        Tuner fourPerCpu = new Tuner(16, null, true, false, true, 4, null, null, Calibration.DEFAULTS, 1 << 20);
        double crowded = sixteen.estimateMicros(
                Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, Tuner.Protocol.SIMPLE, 2, DataType.FLOAT32);
        double plain = fourPerCpu.estimateMicros(
                Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, Tuner.Protocol.SIMPLE, 2, DataType.FLOAT32);
        double handoff = Calibration.DEFAULTS.stepHandoffMicros();
        // (Their 8 bytes, divided among twice the ranks per CPU, add a few hundredths of a µs.)
        assertEquals(4 * handoff * (Math.pow(7, 1.2) - Math.pow(3, 1.2)), crowded - plain, 0.05);
    }

    @Test
    void beyondTheCacheTheStallGrowsWithTheRanksPerCpu() {
        // The stall on top of the sharing: the unshared rate is divided by 2.4 up to 2 ranks per CPU, 4.8 at 4.
        assertEquals(2.4, Tuner.spilledStall(1), 1e-12);
        assertEquals(2.4, 1.5 * Tuner.spilledStall(1.5), 1e-12);
        assertEquals(2.4, 2 * Tuner.spilledStall(2), 1e-12);
        assertEquals(4.8, 4 * Tuner.spilledStall(4), 1e-12);
        for (double bad : new double[] {0.5, 0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> new Tuner(8, null, true, false, true, bad, null, null, Calibration.DEFAULTS, 1 << 20));
            assertTrue(e.getMessage().contains("ranks per CPU"), e::getMessage);
        }
    }

    /** {@code ranks} ranks in one host's shared memory, with one built-in figure replaced. */
    private static Tuner withFigure(int ranks, boolean oversubscribed, String figure, double value) {
        Calibration figures = Calibration.DEFAULTS.with(Map.of(figure, value), "test");
        return new Tuner(ranks, null, true, false, oversubscribed, null, null, figures, 1 << 20);
    }

    @Test
    void manyRanksTakeLogarithmicAlgorithmsForSmallMessages() {
        // 8 ranks on 2 CPUs, 8 B, JCCL_PROTO=Simple, measured (µs, out of place, median of 3): ring 747, one-shot
        // 991 (two runs: 991, 72), recursive doubling 204, Rabenseifner 106, tree 224.
        Tuner shared = new Tuner(8, null, false, false, true, null, "Simple");
        assertEquals(
                Tuner.Algorithm.RECURSIVE_DOUBLING,
                choose(shared, Collective.ALL_REDUCE, 8).algorithm());
        Tuner t = new Tuner(64, false, true, null, null);
        assertEquals(
                Tuner.Algorithm.RECURSIVE_DOUBLING,
                choose(t, Collective.ALL_REDUCE, 8).algorithm());
        assertEquals(Tuner.Algorithm.TREE, choose(t, Collective.BROADCAST, 8).algorithm());
        assertEquals(Tuner.Algorithm.TREE, choose(t, Collective.REDUCE, 8).algorithm());
        assertEquals(
                Tuner.Algorithm.BRUCK, choose(t, Collective.ALL_GATHER, 64 * 8).algorithm());
    }
}
