package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Ranks in JVMs of their own running {@link LoopWorker}, each with a log file; closing kills what is left. */
final class LoopWorkers implements AutoCloseable {
    final List<Process> ranks = new ArrayList<>();
    final List<Path> logs = new ArrayList<>();

    /**
     * Starts {@code size} ranks; {@code wrap} may put a rank's command inside another (e.g. {@code ip netns exec}), and
     * {@code env} gives each rank's extra environment.
     */
    static LoopWorkers start(
            int size,
            String uniqueId,
            int count,
            IntFunction<Map<String, String>> env,
            java.util.function.BiFunction<Integer, List<String>, List<String>> wrap)
            throws IOException {
        LoopWorkers w = new LoopWorkers();
        try {
            for (int r = 0; r < size; r++) {
                Path log = Files.createTempFile("jccl-worker-" + r + "-", ".log");
                w.logs.add(log);
                List<String> java = List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        LoopWorker.class.getName(),
                        Integer.toString(r),
                        Integer.toString(size),
                        uniqueId,
                        Integer.toString(count));
                ProcessBuilder pb = new ProcessBuilder(wrap.apply(r, java))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                pb.environment().putAll(env.apply(r));
                w.ranks.add(pb.start());
            }
            return w;
        } catch (IOException | RuntimeException e) {
            w.close();
            throw e;
        }
    }

    /**
     * {@code size} ranks on a fresh loopback unique id, each with the extra environment {@code env}, started and
     * looping (90 s at most).
     */
    static LoopWorkers loopingOnLoopback(int size, Map<String, String> env) throws Exception {
        UniqueId id = UniqueId.createForAnotherProcess(
                Config.builder().socketIfname("lo").build());
        LoopWorkers w = start(size, id.toString(), 4096, r -> env, (r, cmd) -> cmd);
        try {
            w.awaitLooping(90);
        } catch (Exception | Error e) {
            w.close();
            throw e;
        }
        return w;
    }

    /**
     * SIGKILLs rank {@code victim} (no shutdown hook, no goodbye on any socket or page), then waits, 30 s at most each,
     * for every other rank to exit; returns each survivor's seconds from the kill to its exit, in rank order.
     */
    List<Double> killAndAwaitSurvivors(int victim) throws InterruptedException {
        long killed = System.nanoTime();
        ranks.get(victim).destroyForcibly();
        List<Double> detection = new ArrayList<>();
        for (int r = 0; r < ranks.size(); r++) {
            if (r == victim) continue;
            assertTrue(
                    ranks.get(r).waitFor(30, TimeUnit.SECONDS),
                    () -> "a survivor still waits 30 s after the kill: " + output());
            detection.add((System.nanoTime() - killed) / 1e9);
        }
        return detection;
    }

    /** Waits until every rank has printed {@code looping}; fails if one exits first or none gets there in time. */
    void awaitLooping(int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            boolean all = true;
            for (Path l : logs) {
                if (!Files.readString(l).contains("looping")) all = false;
            }
            if (all) return;
            assertTrue(
                    System.nanoTime() < deadline,
                    () -> "ranks did not start looping in " + seconds + " s: " + output());
            for (Process p : ranks) assertTrue(p.isAlive(), () -> "a rank exited before it looped: " + output());
            Thread.sleep(50);
        }
    }

    String output(int rank) throws IOException {
        return Files.readString(logs.get(rank));
    }

    String output() {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < logs.size(); r++) {
            try {
                sb.append("\n--- rank ").append(r).append('\n').append(Files.readString(logs.get(r)));
            } catch (IOException e) {
                sb.append(e);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        for (Process p : ranks) p.destroyForcibly();
        for (Process p : ranks) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Path l : logs) {
            try {
                Files.deleteIfExists(l);
            } catch (IOException ignored) {
                // a temp file
            }
        }
    }
}
