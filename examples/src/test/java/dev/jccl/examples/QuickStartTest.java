package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.File;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** QuickStart as a real job: N JVMs configured only through JCCL_* variables, as a launcher would. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class QuickStartTest {

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {3, 4})
    void runsAndChecksItself(int size) throws Exception {
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        // create() holds the root port for an in-process rank 0; rank 0 is another JVM here.
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close();

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < size; r++) {
                Path log = Files.createTempFile("quickstart-" + r + "-", ".log");
                logs.add(log);
                ProcessBuilder pb = new ProcessBuilder(
                                java,
                                "-Xmx256m",
                                "--enable-native-access=ALL-UNNAMED",
                                "-cp",
                                System.getProperty("java.class.path"),
                                QuickStart.class.getName())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                pb.environment().put("JCCL_RANK", Integer.toString(r));
                pb.environment().put("JCCL_WORLD_SIZE", Integer.toString(size));
                pb.environment().put("JCCL_ID", id.toString());
                pb.environment().put("JCCL_SOCKET_IFNAME", "lo");
                pb.environment().put("JCCL_TIMEOUT", "60");
                procs.add(pb.start());
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            List<String> outputs = new ArrayList<>();
            List<Integer> codes = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                Process p = procs.get(r);
                boolean done = p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (!done) kill(p);
                codes.add(done ? p.exitValue() : null);
                outputs.add(Files.readString(logs.get(r), StandardCharsets.UTF_8));
            }
            StringBuilder all = new StringBuilder();
            for (int r = 0; r < size; r++) {
                all.append("\n--- rank ")
                        .append(r)
                        .append(": ")
                        .append(codes.get(r) == null ? "killed at the deadline" : "exit " + codes.get(r))
                        .append('\n')
                        .append(outputs.get(r));
            }
            for (int r = 0; r < size; r++) {
                assertEquals(Integer.valueOf(0), codes.get(r), "rank " + r + " failed:" + all);
                for (String line : expectedLines(r, size)) {
                    int rank = r;
                    assertTrue(
                            outputs.get(r).lines().anyMatch(line::equals),
                            () -> "rank " + rank + " did not print \"" + line + "\":" + all);
                }
            }
        } finally {
            for (Process p : procs) kill(p);
            for (Path l : logs) Files.deleteIfExists(l);
        }
    }

    /** What rank {@code r} of {@code n} must print, worked out here rather than taken from QuickStart. */
    private static List<String> expectedLines(int r, int n) {
        String me = "rank " + r + "/" + n;
        float s = n * (n + 1) / 2f;
        StringBuilder gathered = new StringBuilder("[");
        for (int k = 0; k < n; k++) {
            gathered.append(k == 0 ? "" : ", ").append(k).append(", ").append(k * k);
        }
        gathered.append(']');
        return List.of(
                me + " allReduce(SUM): [" + s + ", " + 2 * s + ", " + 3 * s + ", " + 4 * s + "]",
                me + " broadcast(root " + (n - 1) + "): [42, " + n + ", 7]",
                me + " allGather: " + gathered,
                me + " OK");
    }

    private static void kill(Process p) {
        if (!p.isAlive()) return;
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
