package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.plan.CalibrationFile.Fingerprint;
import dev.jccl.plan.CalibrationFile.Loaded;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tuner's figures: their file, read strictly and never failing a start-up, and what they change. */
class CalibrationTest {
    private static final Fingerprint HERE = new Fingerprint(8, "Test CPU 3000", "1.2.3");
    private static final Instant NOW = Instant.parse("2026-11-27T00:00:00Z");

    @TempDir
    Path dir;

    private static Calibration measured() {
        return new Calibration(2.25, 7.5, 11, 30, 1.25, 0.8, 12, 9, 2, 24, 3, 2.5, "test");
    }

    @Test
    void encodedFiguresReadBackExactlyAndEmptyMeansBuiltIn() {
        Calibration c = measured();
        assertEquals(c, Calibration.decode(c.encode()));
        assertSame(Calibration.DEFAULTS, Calibration.decode(""));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Calibration.decode("shm.step.us=fast"));
        assertTrue(e.getMessage().contains("shm.step.us"), e.getMessage());
    }

    @Test
    void figuresOutOfRangeOrUnknownAreRefusedByName() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> new Calibration(1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "x"));
        assertTrue(e.getMessage().contains("shm bandwidth"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> new Calibration(Double.NaN, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "x"));
        assertTrue(e.getMessage().contains("shm step"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> measured().with(Map.of("shm.speed", 1.0), "x"));
        assertTrue(e.getMessage().contains("shm.speed") && e.getMessage().contains("shm.step.us"), e.getMessage());
    }

    @Test
    void aLockstepStepWaitsNothingOnItsOwnCpuAndGrowsWithTheRanksPerCpu() {
        Calibration c = measured(); // 2 µs a step at two ranks per CPU
        assertEquals(0, c.lockstepHandoffMicros(1), 0);
        assertEquals(0, c.lockstepHandoffMicros(0.5), 0);
        assertEquals(2, c.lockstepHandoffMicros(2), 1e-12);
        // (ranks per CPU - 1)^1.2 times as long as at two: 0.44 times for 3 ranks on 2 CPUs, 3.74 times at 4 ranks per
        // CPU, 10.3 times at 8.
        assertEquals(2 * Math.pow(0.5, 1.2), c.lockstepHandoffMicros(1.5), 1e-9);
        assertEquals(2 * Math.pow(3, 1.2), c.lockstepHandoffMicros(4), 1e-9);
        assertEquals(2 * Math.pow(7, 1.2), c.lockstepHandoffMicros(8), 1e-9);
    }

    @Test
    void aFileWithTheRetiredLoneCallHandOffReadsWithTheBuiltInStepHandOff() throws Exception {
        // Files written before 2026-11-28 have handoff.us (a lone call's wait) and no handoff.step.us.
        Path file = Files.writeString(dir.resolve("old.properties"), "shm.step.us = 2\nhandoff.us = 35.2\n");
        Loaded loaded = CalibrationFile.load(file.toString(), Map.of(), HERE, NOW);
        assertEquals(List.of(), loaded.warnings());
        assertEquals(2, loaded.calibration().shmStepMicros());
        assertEquals(
                Calibration.DEFAULTS.stepHandoffMicros(), loaded.calibration().stepHandoffMicros());
    }

    @Test
    void aWrittenFileReadsBackOnTheSameMachine() throws Exception {
        Path file = dir.resolve("sub/calibration.properties");
        CalibrationFile.write(file, CalibrationFile.format(measured(), HERE, NOW, List.of("measured in a test")));
        Loaded loaded = CalibrationFile.load(file.toString(), Map.of(), HERE, NOW.plusSeconds(60));
        assertEquals(List.of(), loaded.warnings());
        assertEquals(measured().values(), loaded.calibration().values());
        assertTrue(
                loaded.calibration().source().contains(file.toString()),
                loaded.calibration().source());
        assertTrue(Files.readString(file).contains("# measured in a test"));
    }

    @Test
    void theDefaultFileIsUnderXdgConfigHomeAndMayBeAbsentWithoutAWord() throws Exception {
        Map<String, String> env = Map.of("XDG_CONFIG_HOME", dir.toString());
        assertEquals(dir.resolve("jccl/calibration.properties"), CalibrationFile.defaultPath(env));
        Loaded absent = CalibrationFile.load(null, env, HERE, NOW);
        assertSame(Calibration.DEFAULTS, absent.calibration());
        assertEquals(List.of(), absent.warnings());
        Files.createDirectories(dir.resolve("jccl"));
        Files.writeString(dir.resolve("jccl/calibration.properties"), "net.bandwidth.gbps = 25\n");
        Loaded present = CalibrationFile.load(null, env, HERE, NOW);
        assertEquals(25.0, present.calibration().netGbPerSecond());
        // A partial file: the figures it leaves out stay built in.
        assertEquals(Calibration.DEFAULTS.shmStepMicros(), present.calibration().shmStepMicros());
        assertSame(
                Calibration.DEFAULTS,
                CalibrationFile.load("none", env, HERE, NOW).calibration());
    }

    @Test
    void aNamedFileThatIsMissingIsAWarningNamingItAndTheFallback() {
        Path file = dir.resolve("nowhere.properties");
        Loaded loaded = CalibrationFile.load(file.toString(), Map.of(), HERE, NOW);
        assertSame(Calibration.DEFAULTS, loaded.calibration());
        assertWarns(loaded, file.toString(), "does not exist", "built-in");
    }

    @Test
    void malformedFilesAreWarnedAboutWithTheLineAndIgnoredWhole() throws Exception {
        Map<String, String> cases = Map.of(
                "shm.step.us = 2\nthis line has no equals sign\n", "line 2 has no '='",
                "shm.step.us = two\n", "shm.step.us is not a number",
                "shm.step.us = 2\nshm.latency = 3\n", "unknown key 'shm.latency'",
                "shm.bandwidth.gbps = -4\n", "shm bandwidth must be between",
                "format = 7\n", "format 7",
                "written = yesterday\n", "written is not an ISO-8601 instant");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Path file = Files.writeString(dir.resolve("bad.properties"), c.getKey());
            Loaded loaded = CalibrationFile.load(file.toString(), Map.of(), HERE, NOW);
            assertSame(Calibration.DEFAULTS, loaded.calibration(), c.getKey());
            assertWarns(loaded, file.toString(), "malformed", c.getValue(), "built-in");
        }
    }

    @Test
    void aFileFromAnotherMachineOrJcclIsStaleAndAnOldOneIsUsedWithAWarning() throws Exception {
        Path file = dir.resolve("c.properties");
        List<Fingerprint> others = List.of(
                new Fingerprint(4, HERE.cpuModel(), HERE.jcclVersion()),
                new Fingerprint(HERE.cpus(), "Other CPU", HERE.jcclVersion()),
                new Fingerprint(HERE.cpus(), HERE.cpuModel(), "0.9"));
        List<String> why = List.of("measured with 8 CPUs, and this process has 4", "Other CPU", "Jccl 0.9");
        CalibrationFile.write(file, CalibrationFile.format(measured(), HERE, NOW, List.of()));
        for (int i = 0; i < others.size(); i++) {
            Loaded loaded = CalibrationFile.load(file.toString(), Map.of(), others.get(i), NOW);
            assertSame(Calibration.DEFAULTS, loaded.calibration());
            assertWarns(loaded, file.toString(), "stale", why.get(i), "built-in");
        }
        Loaded old = CalibrationFile.load(file.toString(), Map.of(), HERE, NOW.plus(Duration.ofDays(400)));
        assertEquals(measured().values(), old.calibration().values());
        assertWarns(old, file.toString(), "400 days ago", "is used");
    }

    @Test
    void theTunerChoosesWithTheFigures() {
        // 4 ranks in shared memory, 1 MiB: with the built-in figures the ring's 6 short steps beat recursive
        // doubling's 2 long ones; where a step costs 10 ms, the fewer steps win.
        Calibration slowSteps = Calibration.DEFAULTS.with(Map.of("shm.step.us", 10_000.0), "test");
        Tuner builtIn = new Tuner(4, null, true, false, false, "Ring,RecursiveDoubling", "Simple");
        Tuner calibrated =
                new Tuner(4, null, true, false, false, "Ring,RecursiveDoubling", "Simple", slowSteps, 1 << 20);
        long count = 1 << 18;
        assertEquals(
                Tuner.Algorithm.RING,
                builtIn.choose(Collective.ALL_REDUCE, count, DataType.FLOAT32).algorithm());
        assertEquals(
                Tuner.Algorithm.RECURSIVE_DOUBLING,
                calibrated
                        .choose(Collective.ALL_REDUCE, count, DataType.FLOAT32)
                        .algorithm());
        assertTrue(calibrated.table().contains("figures: test"), calibrated.table());
        assertTrue(builtIn.table().contains("figures: built-in"), builtIn.table());
    }

    private static void assertWarns(Loaded loaded, String... parts) {
        assertEquals(1, loaded.warnings().size(), loaded.warnings().toString());
        String w = loaded.warnings().get(0);
        for (String p : parts) assertTrue(w.contains(p), "'" + p + "' missing from: " + w);
    }
}
