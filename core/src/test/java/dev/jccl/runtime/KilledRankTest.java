package dev.jccl.runtime;

import dev.jccl.Config;
import dev.jccl.PeerFailedException;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.File;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Real processes, a real SIGKILL: three ranks loop on AllReduce with a two-minute JCCL_TIMEOUT,
 * the middle one is killed, and both survivors must fail with {@link PeerFailedException} naming
 * it, its host and pid, within 5 s, over shared memory and over TCP. Neither survivor may be
 * saved by the timeout, so what is measured is detection.
 */
@Timeout(180)
class KilledRankTest {
    private static final int RANKS = 3;
    private static final int VICTIM = 1;

    @ParameterizedTest
    @EnumSource(Link.class)
    void aKilledRankFailsEverySurvivorWithinSeconds(Link link) throws Exception {
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close(); // rank 0's JVM binds the root port itself
        List<Process> ranks = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < RANKS; r++) {
                Path log = Files.createTempFile("jccl-killed-" + r + "-", ".log");
                logs.add(log);
                ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                        "-cp", System.getProperty("java.class.path"),
                        LoopWorker.class.getName(), Integer.toString(r), Integer.toString(RANKS), id.toString(), "4096")
                        .redirectErrorStream(true).redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                pb.environment().put("JCCL_SOCKET_IFNAME", "lo");
                pb.environment().put("JCCL_TIMEOUT", "120");
                pb.environment().put("JCCL_SHM_DISABLE", link == Link.TCP ? "1" : "0");
                ranks.add(pb.start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (!allLooping(logs)) {
                assertTrue(System.nanoTime() < deadline, () -> "ranks did not start: " + read(logs));
                for (Process p : ranks) assertTrue(p.isAlive(), () -> "a rank exited before the kill: " + read(logs));
                Thread.sleep(50);
            }
            Process victim = ranks.get(VICTIM);
            long victimPid = victim.pid();
            long killed = System.nanoTime();
            victim.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye on any socket or page
            List<Double> detection = new ArrayList<>();
            for (int r = 0; r < RANKS; r++) {
                if (r == VICTIM) continue;
                Process survivor = ranks.get(r);
                assertTrue(survivor.waitFor(30, TimeUnit.SECONDS), () -> "a survivor still waits 30 s after the kill: " + read(logs));
                detection.add((System.nanoTime() - killed) / 1e9);
                String out = Files.readString(logs.get(r));
                assertEquals(3, survivor.exitValue(), out);
                assertTrue(out.contains(PeerFailedException.class.getName()), "rank " + r + " must fail with PeerFailedException: " + out);
                // Either the victim itself, or a survivor that lost it and said so before leaving.
                assertTrue(out.contains("lost peer " + VICTIM) || out.contains("pid " + victimPid), out);
                assertTrue(out.contains("pid " + victimPid), "rank " + r + " must name the dead rank's pid " + victimPid + ": " + out);
            }
            System.out.printf("%s: SIGKILL of rank %d of %d noticed by the survivors after %s s%n", link, VICTIM, RANKS,
                    detection.stream().map(s -> String.format("%.2f", s)).toList());
            for (double s : detection) assertTrue(s < 5, link + ": a survivor failed only " + s + " s after the kill");
            assertEquals(List.of(), jcclFiles(), "the survivors reap what the killed rank left in /dev/shm");
        } finally {
            for (Process p : ranks) p.destroyForcibly();
            for (Path l : logs) Files.deleteIfExists(l);
        }
    }

    private static boolean allLooping(List<Path> logs) throws IOException {
        for (Path l : logs) if (!Files.readString(l).contains("looping")) return false;
        return true;
    }

    private static List<String> jcclFiles() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("jccl-")).sorted().toList();
        }
    }

    private static String read(List<Path> logs) {
        StringBuilder sb = new StringBuilder();
        for (Path l : logs) {
            try {
                sb.append("\n--- ").append(l).append('\n').append(Files.readString(l));
            } catch (IOException e) {
                sb.append(e);
            }
        }
        return sb.toString();
    }
}
