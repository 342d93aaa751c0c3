package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench/grid.sh --table}, run for real on values files written here: the table's medians and its phase-paired
 * ratios, which decide how a sitting on this VM (whose cache-line round trip alternates between about 100 and 400 ns)
 * is read. The repository's script and {@code bench/common.sh} run as they are, in a copy of the layout whose
 * {@code ./jccl} only prints a version, so no benchmark and no build runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GridTableTest {
    private static final Path REPO = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path tmp;

    @Test
    void typesRowsPairOnlyRunsThatMetTheSamePhase() throws Exception {
        Path repo = layOut();
        Path grid = repo.resolve("bench/target/grid");
        // time busbw smallest-round-trip largest-round-trip, one line per repetition.
        write(grid, "types-float-1048576-jccl-z2.values", "80 13.0 60 70", "300 3.0 400 380", "80 13.2 60 65");
        // Rep 1 fast against fast (10.4 / 13.0 = 0.80), rep 2 slow against slow (2.7 / 3.0 = 0.90), rep 3 slow
        // against fast: left out of the pairing.
        write(grid, "types-bfloat16-1048576-jccl-z2.values", "100 10.4 62 70", "330 2.7 390 400", "90 11.0 400 410");

        String row = rowStartingWith(run(repo, "--table", "--only", "types"), "1 MiB      bfloat16");

        assertTrue(row.contains("0.80  0.85 (2/3)"), row); // ratio of the medians (10.4 / 13.0), then paired
        assertTrue(row.contains("60-410 !"), row);
    }

    @Test
    void referenceRowHasNoPairedRatioOfItsOwn() throws Exception {
        Path repo = layOut();
        write(repo.resolve("bench/target/grid"), "types-float-1048576-jccl-z2.values", "80 13.0 60 70");

        String row = rowStartingWith(run(repo, "--table", "--only", "types"), "1 MiB      float");

        assertTrue(row.matches(".*1\\.00  -\\s+60-70$"), row);
    }

    @Test
    void collectiveRowsPairJcclWithOpenMpiPerRepetition() throws Exception {
        Path repo = layOut();
        Path grid = repo.resolve("bench/target/grid");
        write(grid, "ar-shm-2-8-jccl-z2.values", "0.22 0.04 60 70", "0.52 0.02 380 390", "0.25 0.03 60 400");
        write(grid, "ar-shm-2-8-mpi.values", "0.20 0.04 62 66", "0.48 0.02 370 350", "0.27 0.03 60 60");

        String out = run(repo, "--table", "--only", "ar-shm", "--np", "2");

        String row = rowStartingWith(out, "AllReduce          2 8 B");
        // Medians 0.25 / 0.27; paired: 0.22 / 0.20 and 0.52 / 0.48, whose median is their mean, 1.0917.
        // No -z 0 runs: that ratio and its pairing are "-".
        String jcclThenMpi = "0\\.25 \\(0\\.22-0\\.52\\)\\s+0\\.27 \\(0\\.2-0\\.48\\)";
        String ratiosThenPairs = "-\\s+0\\.93\\s+-\\s+1\\.09 \\(2/3\\)\\s+60-400 !";
        assertTrue(row.matches(".*" + jcclThenMpi + "\\s+" + ratiosThenPairs + "$"), row);
        assertTrue(out.contains("3 repetition(s)"), out);
        assertTrue(out.contains("started 2026-12-07T20:00Z"), out);
    }

    @Test
    void phaseRangeCountsTheWatchOnlyFromJustBeforeTheTimedLoops() throws Exception {
        Path repo = layOut();
        // A 20 s run ending at 30,000 ms whose timed loops took 2 s. The watch's samples at 12,000 and 26,500 ms met
        // the warm-up, the one at 27,200 the second before the loops, and the one at 31,000 the next run.
        write(repo, "watch", "12000 400", "26500 420", "27200 300", "28500 55", "29000 60", "31000 410");

        assertEquals("55 300", phaseRange(repo, "watch", "58", "30000", "2000000"));
        // A short run: the second before its loops holds one sample, and the probe after it says the rest.
        assertEquals("60 62", phaseRange(repo, "watch", "62", "30000", "100"));
        // Nothing measured: no CPU pair to probe, and no watch file.
        assertEquals("- -", phaseRange(repo, "no-such-watch", "-", "30000", "100"));
    }

    private static String phaseRange(Path repo, String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("bash", "-c", "source bench/common.sh; phase_range \"$@\"", "-"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(repo.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "phase_range did not end");
        assertEquals(0, p.exitValue(), err);
        assertEquals("", err);
        return out;
    }

    @Test
    void tableWithoutAnEarlierRunSaysSo() throws Exception {
        Path repo = layOut();
        Files.walk(repo.resolve("bench/target/grid"))
                .sorted(Comparator.reverseOrder())
                .forEach(p -> p.toFile().delete());

        Process p = start(repo, "--table");
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue());
        assertTrue(err.contains("--table: no earlier run in bench/target/grid"), err);
    }

    private Path layOut() throws IOException {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Files.createDirectories(repo.resolve("bench/target/grid"));
        for (String script : List.of("bench/grid.sh", "bench/common.sh")) {
            Files.copy(REPO.resolve(script), repo.resolve(script), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Path jccl = repo.resolve("jccl");
        Files.writeString(jccl, "#!/bin/sh\necho 'jccl 9.9.9'\n");
        Files.setPosixFilePermissions(jccl, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(repo.resolve("bench/target/grid/started"), "2026-12-07T20:00Z\n");
        return repo;
    }

    private static void write(Path dir, String name, String... lines) throws IOException {
        Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n");
    }

    private static Process start(Path repo, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("bash", "bench/grid.sh"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(repo.toFile()).start();
    }

    private static String run(Path repo, String... args) throws Exception {
        Process p = start(repo, args);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "grid.sh --table did not end");
        assertEquals(0, p.exitValue(), err);
        return out;
    }

    private static String rowStartingWith(String out, String start) {
        return out.lines()
                .filter(l -> l.startsWith(start))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + start + "' in:\n" + out));
    }
}
