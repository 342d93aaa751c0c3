package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.UniqueId;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jccl run} with real child processes. The launcher runs in this JVM except where the launcher's own process is
 * the subject (its exit through main, signals to it).
 *
 * <p>No test asserts a time. Ranks that should be stopped sleep 60 s: were they not stopped, the launcher would wait
 * for them and the class timeout would fail the test.
 */
@Timeout(value = 40, unit = TimeUnit.SECONDS)
class RunCommandTest {
    private static final Pattern PIDS = Pattern.compile("^\\[(\\d+)] pids (\\d+) (\\d+)$", Pattern.MULTILINE);

    @Test
    void everyRankGetsItsVariablesAndItsOutputIsPrefixed() throws Exception {
        Cli.Result r = runScript(
                "-np 3",
                "echo rank=$JCCL_RANK size=$JCCL_WORLD_SIZE local=$JCCL_LOCAL_RANK/$JCCL_LOCAL_SIZE"
                        + " if=$JCCL_SOCKET_IFNAME id=$JCCL_ID; echo err >&2");

        assertEquals(0, r.code(), r::toString);
        Set<String> ids = new HashSet<>();
        for (int rank = 0; rank < 3; rank++) {
            Matcher m = Pattern.compile(
                            "^\\[" + rank + "] rank=" + rank + " size=3 local=" + rank + "/3 if=lo id=(\\S+)$",
                            Pattern.MULTILINE)
                    .matcher(r.out());
            assertTrue(m.find(), () -> "no line for the rank in\n" + r);
            ids.add(m.group(1));
            assertTrue(r.err().contains("[" + rank + "] err\n"), r::toString);
        }
        assertEquals(1, ids.size(), "every rank must get the same JCCL_ID: " + ids);
        UniqueId id = UniqueId.parse(ids.iterator().next());
        assertEquals("127.0.0.1", id.rootAddress().getAddress().getHostAddress(), "ranks on one host use loopback");

        // The launcher gave the port up for the children's rank 0: nothing is held, we can bind it.
        assertNull(id.takeReservedListener(), "launcher kept the reservation");
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(new InetSocketAddress(
                    id.rootAddress().getAddress(), id.rootAddress().getPort()));
        }
        assertEquals(6, r.out().lines().count() + r.err().lines().count(), r::toString);
    }

    @Test
    void javaIsTheJdkJcclRunsOnEvenWhenPathHasAnOlderOne(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // A `java` first on PATH that is not ours, as a Java 17 would be: neither a bare `java`
        // nor a script's `java` may reach it.
        java.nio.file.Path impostor = dir.resolve("java");
        java.nio.file.Files.writeString(impostor, "#!/bin/sh\necho impostor\n");
        impostor.toFile().setExecutable(true);
        java.util.Map<String, String> env = Cli.environment("PATH", dir + ":" + System.getenv("PATH"));
        Cli.Result bare = Cli.inProcess(env, Cli.args("run -np 1 -- java -XshowSettings:properties -version"));
        assertEquals(0, bare.code(), bare::toString);
        assertTrue(bare.err().contains("java.home = " + System.getProperty("java.home")), bare::toString);
        Cli.Result script = runScript(env, "-np 1", "command -v java");
        assertEquals(0, script.code(), script::toString);
        assertEquals(
                "[0] " + RankEnvironment.THIS_JDK_BIN + "/java", script.out().trim(), script::toString);
    }

    @Test
    void ifnameOptionIsGivenToTheRanks() {
        Cli.Result r = runScript("-np 2 --ifname lo", "echo if=$JCCL_SOCKET_IFNAME");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("[0] if=lo\n") && r.out().contains("[1] if=lo\n"), r::toString);
    }

    @Test
    void anInterfaceTheUserSetIsKept() {
        // NCCL_SOCKET_IFNAME counts as set: the launcher must not override it with its loopback default.
        Cli.Result r = runScript(
                Cli.environment("NCCL_SOCKET_IFNAME", "lo"),
                "-np 1",
                "echo jccl=${JCCL_SOCKET_IFNAME:-unset} nccl=$NCCL_SOCKET_IFNAME");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("[0] jccl=unset nccl=lo\n"), r::toString);
    }

    @Test
    void commandAfterTheOptionsNeedsNoDoubleDash() {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "run", "-np", "1", "sh", "-c", "echo $0 $1", "-x", "--y");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("[0] -x --y\n"), r::toString);
    }

    @Test
    void aFailingRankStopsTheOthersAndItsCodeIsTheLaunchers(@TempDir Path ready) throws Exception {
        // Ranks 0 and 2 start a sleeper, print their pids and mark themselves ready; rank 1 fails
        // once both are ready, so that the pids are known before anything is stopped.
        String script = """
                if [ "$JCCL_RANK" = 1 ]; then
                  while [ "$(ls "$READY" | wc -l)" -lt 2 ]; do sleep 0.05; done
                  echo 'rank 1 gives up' >&2
                  exit 3
                fi
                sleep 60 &
                echo "pids $$ $!"
                touch "$READY/$JCCL_RANK"
                wait
                """;
        Cli.Result r = runScript(Cli.environment("READY", ready.toString()), "-np 3", script);

        assertEquals(3, r.code(), r::toString);
        Matcher m = Pattern.compile(
                        "^jccl run: rank 1 \\(pid (\\d+)\\) exited with code 3; stopping the other 2 ranks$",
                        Pattern.MULTILINE)
                .matcher(r.err());
        assertTrue(m.find(), r::toString);
        assertTrue(r.err().indexOf("[1] rank 1 gives up") < m.start(), "the rank's last words come first:\n" + r);
        List<Long> pids = pids(r.out());
        assertEquals(4, pids.size(), r::toString);
        assertAllGone(pids, r.toString());
    }

    @Test
    void aRankKilledBySignalIsReportedAsSuch() {
        Cli.Result r = runScript("-np 2", "if [ $JCCL_RANK = 0 ]; then kill -9 $$; fi; sleep 60");
        assertEquals(137, r.code(), r::toString);
        assertTrue(
                r.err()
                        .matches("(?s).*jccl run: rank 0 \\(pid \\d+\\) exited with code 137 \\(killed by "
                                + "signal 9, SIGKILL\\); stopping the other 1 rank\n.*"),
                r::toString);
    }

    @Test
    void withElasticALostRankLeavesTheOthersRunningAndTheJobSucceedsIfTheyDo() {
        Cli.Result r = runScript(
                "--elastic -np 3", "if [ $JCCL_RANK = 1 ]; then kill -9 $$; fi; sleep 1; echo rank $JCCL_RANK went on");
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.err()
                        .matches("(?s).*jccl run: rank 1 \\(pid \\d+\\) exited with code 137 \\(killed by signal 9, "
                                + "SIGKILL\\); --elastic: the other 2 go on\n.*"),
                r::toString);
        assertTrue(r.out().contains("[0] rank 0 went on") && r.out().contains("[2] rank 2 went on"), r::toString);
        assertTrue(r.err().contains("jccl run: 2 of 3 ranks finished; lost rank 1 (exited with code 137"), r::toString);
    }

    @Test
    void withElasticTheJobStillFailsWhenASurvivorFails() {
        Cli.Result r = runScript("--elastic -np 2", "if [ $JCCL_RANK = 1 ]; then kill -9 $$; fi; sleep 1; exit 5");
        assertEquals(5, r.code(), r::toString);
    }

    @Test
    void aCommandThatIsNotThereExits127() {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), Cli.args("run -np 2 -- jccl-no-such-command x"));
        assertEquals(127, r.code(), r::toString);
        assertTrue(
                r.err().contains("jccl run: cannot start jccl-no-such-command: command not found on PATH"),
                r::toString);
        assertEquals("", r.out());
    }

    @Test
    void aFileThatIsNotExecutableExits126(@TempDir Path dir) {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "run", "-np", "1", "--", dir.toString());
        assertEquals(126, r.code(), r::toString);
        assertTrue(r.err().contains("jccl run: cannot start " + dir + ": permission denied"), r::toString);
    }

    @Test
    void npMustBeAtLeastOne() {
        for (String n : List.of("0", "-2")) {
            Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "run", "-np", n, "--", "true");
            assertEquals(2, r.code(), r::toString);
            assertTrue(r.err().contains("-np must be at least 1, got " + n), r::toString);
        }
        Cli.Result missing = Cli.inProcess(Cli.cleanEnvironment(), "run", "--", "true");
        assertEquals(2, missing.code(), missing::toString);
        assertTrue(missing.err().contains("-np"), missing::toString);
    }

    @Test
    void aCommandIsRequired() {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "run", "-np", "2");
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("COMMAND"), r::toString);
    }

    @Test
    void timeoutStopsTheRanksStillRunningAndNamesThem() throws Exception {
        Cli.Result r =
                runScript("-np 3 --timeout 1", "[ $JCCL_RANK = 0 ] && exit 0; sleep 60 & echo \"pids $$ $!\"; wait");
        assertEquals(124, r.code(), r::toString);
        assertTrue(
                r.err()
                        .matches("(?s).*jccl run: timed out after 1 s with ranks 1 \\(pid \\d+\\), 2 \\(pid \\d+\\)"
                                + " still running; stopping them\n.*"),
                r::toString);
        List<Long> pids = pids(r.out());
        assertEquals(4, pids.size(), r::toString);
        assertAllGone(pids, r.toString());
    }

    @Test
    void badTimeoutIsAUsageError() {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), Cli.args("run -np 1 --timeout soon -- true"));
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("--timeout='soon' is not a duration"), r::toString);
    }

    @Test
    void linesOfConcurrentRanksNeverMix() {
        // Each rank writes 2000 long lines as fast as it can; the last one has no newline.
        int lines = 2000;
        String script = "i=0; x=$(printf '%0400d' 0); while [ $i -lt " + lines + " ]; do echo \"r$JCCL_RANK $i $x\"; "
                + "i=$((i+1)); done; printf 'r%s end' $JCCL_RANK";
        Cli.Result r = runScript("-np 4", script);
        assertEquals(0, r.code(), () -> "exit " + r.code() + "\n" + r.err());
        Pattern line = Pattern.compile("\\[(\\d)] r(\\d) (\\d+) 0{400}|\\[(\\d)] r(\\d) end");
        Map<String, Integer> counts = new HashMap<>();
        for (String l : r.out().split("\n", -1)) {
            if (l.isEmpty()) continue;
            Matcher m = line.matcher(l);
            assertTrue(m.matches(), () -> "mangled line: " + l.substring(0, Math.min(120, l.length())));
            String prefix = m.group(1) != null ? m.group(1) : m.group(4);
            String rank = m.group(2) != null ? m.group(2) : m.group(5);
            assertEquals(prefix, rank, l);
            counts.merge(rank, 1, Integer::sum);
        }
        assertTrue(r.out().endsWith("end\n"), "a last line without newline gets one");
        assertEquals(Map.of("0", lines + 1, "1", lines + 1, "2", lines + 1, "3", lines + 1), counts);
    }

    @Test
    void theLauncherProcessExitsWithTheFailingRanksCode() throws Exception {
        Cli.Result r = Cli.finish(
                Cli.startJccl(
                        Cli.cleanEnvironment(),
                        Cli.args("run -np 2 -- sh -c", "printf 'h\\303\\251llo\\n'; exit $((JCCL_RANK * 5))")),
                Duration.ofSeconds(30));
        assertEquals(5, r.code(), r::toString);
        assertTrue(r.out().contains("[0] héllo\n") && r.out().contains("[1] héllo\n"), "bytes pass through:\n" + r);
        assertTrue(r.err().contains("jccl run: rank 1 (pid "), r::toString);
    }

    @Test
    void terminatingTheLauncherStopsTheRanks() throws Exception {
        Process launcher = Cli.startJccl(
                Cli.cleanEnvironment(), Cli.args("run -np 2 -- sh -c", "sleep 60 & echo \"pids $$ $!\"; wait"));
        var err = Cli.readAll(launcher.getErrorStream());
        List<Long> pids = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while (pids.size() < 4 && (l = reader.readLine()) != null) {
                out.append(l).append('\n');
                pids.addAll(pids(l));
            }
            launcher.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its pipes
            assertTrue(launcher.waitFor(20, TimeUnit.SECONDS), "launcher did not exit on SIGTERM");
        } finally {
            launcher.destroyForcibly();
        }
        assertEquals(143, launcher.exitValue(), "128 + SIGTERM");
        assertEquals(4, pids.size(), out::toString);
        String stderr = err.get(10, TimeUnit.SECONDS);
        assertTrue(stderr.contains("jccl run: launcher is shutting down; stopping 2 ranks"), stderr);
        assertAllGone(pids, "after the launcher's exit");
    }

    /** Fails if any of {@code pids} still runs, killing those first so that a failure leaves nothing behind. */
    private static void assertAllGone(List<Long> pids, String context) throws Exception {
        List<Long> running = new ArrayList<>();
        for (long pid : pids) {
            if (Cli.running(pid)) running.add(pid);
        }
        for (long pid : running) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        assertEquals(List.of(), running, "processes still running, " + context);
    }

    private static List<Long> pids(String out) {
        List<Long> pids = new ArrayList<>();
        Matcher m = PIDS.matcher(out);
        while (m.find()) {
            pids.add(Long.parseLong(m.group(2)));
            pids.add(Long.parseLong(m.group(3)));
        }
        return pids;
    }

    /** {@code jccl run OPTIONS -- sh -c SCRIPT} in this JVM, each rank a shell running the script. */
    private static Cli.Result runScript(String options, String script) {
        return runScript(Cli.cleanEnvironment(), options, script);
    }

    private static Cli.Result runScript(Map<String, String> env, String options, String script) {
        return Cli.inProcess(env, Cli.args("run " + options + " -- sh -c", script));
    }
}
