package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.PeerFailedException;
import dev.jccl.TestRanks.Link;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real processes, a real SIGKILL: three ranks loop on AllReduce with a two-minute JCCL_TIMEOUT, the middle one is
 * killed, and both survivors must fail with {@link PeerFailedException} naming it, its host and pid, within 5 s, over
 * shared memory and over TCP. Neither survivor may be saved by the timeout, so what is measured is detection.
 */
@Timeout(180)
class KilledRankTest {
    private static final int RANKS = 3;
    private static final int VICTIM = 1;

    @ParameterizedTest
    @EnumSource(Link.class)
    void aKilledRankFailsEverySurvivorWithinSeconds(Link link) throws Exception {
        Map<String, String> env = Map.of(
                "JCCL_SOCKET_IFNAME", "lo", "JCCL_TIMEOUT", "120", "JCCL_SHM_DISABLE", link == Link.TCP ? "1" : "0");
        try (LoopWorkers w = LoopWorkers.loopingOnLoopback(RANKS, env)) {
            long victimPid = w.ranks.get(VICTIM).pid();
            List<Double> detection = w.killAndAwaitSurvivors(VICTIM);
            for (int r = 0; r < RANKS; r++) {
                if (r == VICTIM) continue;
                String out = w.output(r);
                assertEquals(3, w.ranks.get(r).exitValue(), out);
                assertTrue(
                        out.contains(PeerFailedException.class.getName()),
                        "rank " + r + " must fail with PeerFailedException: " + out);
                // Either it lost the victim itself, or a survivor that did told it so, naming the victim.
                assertTrue(
                        out.contains("pid " + victimPid),
                        "rank " + r + " must name the dead rank's pid " + victimPid + ": " + out);
            }
            System.out.printf(
                    "%s: SIGKILL of rank %d of %d noticed by the survivors after %s s%n",
                    link,
                    VICTIM,
                    RANKS,
                    detection.stream().map(s -> String.format("%.2f", s)).toList());
            for (double s : detection) assertTrue(s < 5, link + ": a survivor failed only " + s + " s after the kill");
            assertEquals(List.of(), jcclFiles(), "the survivors reap what the killed rank left in /dev/shm");
        }
    }

    private static List<String> jcclFiles() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("jccl-"))
                    .sorted()
                    .toList();
        }
    }
}
