package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code jccl sim} and {@code jccl info --tuner}: tables that say every algorithm's figure and mark one pick. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimCommandTest {

    @Test
    void simPrintsEveryAlgorithmPerSizeAndMarksThePick() {
        Cli.Result r = Cli.inProcess(
                Map.of(), "sim", "all_reduce", "--hosts", "2", "--ranks-per-host", "4", "-b", "8", "-e", "1M");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("2 host(s) × 4 ranks = 8 ranks"), r::toString);
        for (String a : List.of("Ring", "Hierarchical", "Tree", "RecursiveDoubling", "Rabenseifner")) {
            assertTrue(r.out().contains(a + " µs"), () -> a + " column missing:\n" + r);
        }
        List<String> rows = r.out().lines().filter(l -> !l.startsWith("#")).toList();
        assertEquals(List.of("8 B", "64 B", "512 B", "4 KiB", "32 KiB", "256 KiB"), sizes(rows), r::toString);
        for (String row : rows) {
            assertEquals(1, row.chars().filter(ch -> ch == '*').count(), () -> "one pick per row: " + row);
            double ratio = Double.parseDouble(row.substring(row.lastIndexOf(' ') + 1));
            assertTrue(ratio >= 1.0, row);
        }
    }

    @Test
    void simRefusesWhatItCannotModel() {
        Cli.Result level = Cli.inProcess(Map.of(), "sim", "--inter", "5");
        assertEquals(2, level.code(), level::toString);
        assertTrue(level.err().contains("--inter takes latency µs and bandwidth GB/s"), level::toString);
        Cli.Result p2p = Cli.inProcess(Map.of(), "sim", "sendrecv");
        assertEquals(2, p2p.code(), p2p::toString);
        assertTrue(p2p.err().contains("sendrecv has one algorithm"), p2p::toString);
        Cli.Result none = Cli.inProcess(Map.of(), "sim", "--hosts", "0");
        assertEquals(2, none.code(), none::toString);
        assertTrue(none.err().contains("0 hosts"), none::toString);
    }

    @Test
    void infoTunerShowsEstimatesPicksAndTheUsersFilter() {
        Cli.Result r = Cli.inProcess(Map.of(), "info", "--tuner", "--ranks", "16");
        assertEquals(0, r.code(), r::toString);
        for (String c : List.of("AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllToAll")) {
            assertTrue(r.out().contains("\n" + c + " ") || r.out().startsWith(c + " "), () -> c + " missing:\n" + r);
        }
        assertTrue(r.out().contains("16 ranks, all in shared memory"), r::toString);
        assertTrue(r.out().contains("Tree/Simple") && r.out().contains("RecursiveDoubling/Simple"), r::toString);

        Cli.Result forced = Cli.inProcess(Map.of("JCCL_ALGO", "Bruck"), "info", "--tuner", "--ranks", "4");
        assertEquals(0, forced.code(), forced::toString);
        assertTrue(
                forced.out().contains("warning: JCCL_ALGO/NCCL_ALGO allows Bruck")
                        && forced.out().contains("cannot run AllReduce"),
                forced::toString);

        Cli.Result uneven = Cli.inProcess(Map.of(), "info", "--tuner", "--ranks", "6", "--hosts", "4");
        assertEquals(2, uneven.code(), uneven::toString);
        assertTrue(uneven.err().contains("spread evenly"), uneven::toString);
    }

    private static List<String> sizes(List<String> rows) {
        return rows.stream()
                .map(l -> l.trim().split("\\s+"))
                .map(w -> w[0] + " " + w[1])
                .toList();
    }

    @Test
    void simAndInfoTakeTheirFiguresFromTheCalibrationFileAndSayWhichFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(
                dir.resolve("cal.properties"),
                "shm.step.us = 4\nshm.bandwidth.gbps = 3\nhandoff.us = 50\nhandoff.step.us = 5\n");
        Cli.Result r = Cli.inProcess(
                Map.of(),
                "sim",
                "--calibration",
                file.toString(),
                "--ranks-per-host",
                "6",
                "--cpus-per-host",
                "2",
                "-e",
                "64");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("intra-host 4.00 µs 3.0 GB/s"), r::toString);
        // A transfer waits as a step of a loop of calls does (handoff.step.us), not as a lone call (handoff.us): at 3
        // ranks per CPU, 5 µs × (3 - 1)^1.2.
        assertTrue(r.out().contains("2 CPUs per host (hand-off 11.49 µs a step)"), r::toString);
        assertTrue(r.out().contains("figures: " + file), r::toString);
        // A flag still wins over the file.
        Cli.Result flag =
                Cli.inProcess(Map.of(), "sim", "--calibration", file.toString(), "--intra", "2,8", "-e", "64");
        assertTrue(flag.out().contains("intra-host 2.00 µs 8.0 GB/s"), flag::toString);

        Path broken = Files.writeString(dir.resolve("broken.properties"), "shm.step.us = soon\n");
        Cli.Result info =
                Cli.inProcess(Map.of("JCCL_CALIBRATION", broken.toString()), "info", "--tuner", "--ranks", "4");
        String warning = "warning: calibration file " + broken + " is malformed: line 1: shm.step.us is not a number";
        assertEquals(0, info.code(), info::toString);
        assertTrue(info.out().contains(warning), info::toString);
        assertTrue(info.out().contains("figures: built-in"), info::toString);
    }
}
