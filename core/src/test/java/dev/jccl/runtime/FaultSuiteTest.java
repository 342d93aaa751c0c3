package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.NetworkNamespaces;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fault-injection suite: each way a rank can fail its peers, against three ranks over shared memory, four over TCP,
 * and four on two pretend hosts (network namespaces, ranks 0,1 on host 0 and 2,3 on host 1, shared memory within a host
 * and TCP between them). Ranks are JVMs of their own looping on AllReduce ({@link LoopWorker}); one rank (rank 1, or
 * rank 2 on host 1 for the two hosts, across the wire from rank 0) misbehaves: kill -9, SIGSTOP, skips a collective,
 * calls a different one, or is merely slow. Between the two hosts the link is also cut, at host 1's interface (it goes
 * down) and at the switch (host 1's port leaves the bridge; interfaces stay up). Each case checks its row of the table:
 *
 * <ul>
 *   <li><b>detected in</b>: from the fault to the first rank's failure. For kill -9, SIGSTOP and a link cut, from the
 *       moment the test's signal or {@code ip} command returned; for a skipped or different collective, from the first
 *       rank's entry into iteration 150 (where the fault is made). Every JVM here, namespaced or not, runs on one Linux
 *       kernel and {@link System#nanoTime} reads its CLOCK_MONOTONIC (network namespaces do not change clocks), so the
 *       workers' printed nanoTime values and the test's are on one clock and can be subtracted.
 *   <li><b>verdict on every rank identical</b>: every rank that failed printed the same agreed verdict, naming the
 *       culprit, with the evidence; for a link cut (a partition) each side names the other.
 *   <li><b>survivors continued</b>: every survivor shrank the failed communicator and the new one computed. For a link
 *       cut, rank 0's side must; the cut-off side may or may not (the table says which and why), but none of its ranks
 *       may end in a communicator with the other side.
 *   <li><b>leaked threads/fds/shm</b>: what each survivor still held once both communicators were closed, as
 *       {@link LoopWorker} counts it: zero of each.
 * </ul>
 *
 * A rank that is merely slow (sleeps 1 s once, a quarter of JCCL_TIMEOUT) must fail and blame no one: every rank
 * finishes its loop. The table is printed after the last case and written to {@code target/fault-suite.md}; README.md
 * shows one run. {@code -Djccl.faults=KILL,SLOW} runs only those faults. Cases on two hosts are skipped where network
 * namespaces cannot be made (not root, no iproute2). {@link VerdictTest} keeps the case where the deciding rank itself
 * is killed.
 */
@Timeout(300)
class FaultSuiteTest {
    private static final int ITERATIONS = 300;
    private static final int SHORT_TIMEOUT = 4;
    /** kill -9 is noticed by the lost connection and the pid, long before any deadline: a long one proves it. */
    private static final int KILL_TIMEOUT = 60;

    private static final Pattern FAILED_AT = Pattern.compile("^failed at (\\d+): ", Pattern.MULTILINE);
    private static final Pattern ENTERED = Pattern.compile("^iteration 150 at (\\d+)$", Pattern.MULTILINE);
    private static final Pattern LEAKS =
            Pattern.compile("^leaks: threads (\\d+) fds (-?\\d+) shm (\\d+)(.*)$", Pattern.MULTILINE);

    enum Setup {
        SHM("shm, 3 ranks", 3),
        TCP("TCP, 4 ranks", 4),
        TWO_HOSTS("2 hosts (netns), 4 ranks", 4);

        final String label;
        final int ranks;

        Setup(String label, int ranks) {
            this.label = label;
            this.ranks = ranks;
        }

        /** Rank 1, or on two hosts rank 2: on host 1, across the wire from rank 0, which decides and coordinates. */
        int culprit() {
            return this == TWO_HOSTS ? 2 : 1;
        }

        int host(int rank) {
            return this == TWO_HOSTS && rank >= 2 ? 1 : 0;
        }
    }

    enum Fault {
        KILL("kill -9", "the connection: its process is gone"), // refused, or reset as it died
        STOP("SIGSTOP", "did not answer"),
        SKIP("skips one collective", "never entered it"),
        OTHER("calls a different collective (Broadcast for AllReduce)", "called Broadcast #150"),
        SLOW("merely slow: sleeps 1 s once", null),
        CUT("link cut: host 1's interface down", "cut"),
        SWITCH_CUT("link cut at the switch: interfaces stay up", "cut");

        final String label;
        final String evidence;

        Fault(String label, String evidence) {
            this.label = label;
            this.evidence = evidence;
        }

        int timeout() {
            return this == KILL ? KILL_TIMEOUT : SHORT_TIMEOUT;
        }

        boolean betweenHosts() {
            return this == CUT || this == SWITCH_CUT;
        }
    }

    record Row(Fault fault, Setup setup, String detected, String verdict, String continued, String leaks) {
        String markdown() {
            String who = fault.betweenHosts() ? "host 1, ranks 2,3, cut off" : "rank " + setup.culprit();
            return "| " + fault.label + " | " + setup.label + " (" + who + ") | " + detected + " | " + verdict + " | "
                    + continued + " | " + leaks + " |";
        }
    }

    private static final List<Row> ROWS = new ArrayList<>();
    private static long suiteStart;

    /** Every fault on every setup (a link cut only between hosts); {@code -Djccl.faults=KILL,SLOW} runs fewer. */
    static Stream<Arguments> cases() {
        String only = System.getProperty("jccl.faults", "");
        List<Arguments> all = new ArrayList<>();
        for (Fault f : Fault.values()) {
            if (!only.isEmpty() && !List.of(only.split(",")).contains(f.name())) continue;
            for (Setup s : Setup.values()) {
                if (!f.betweenHosts() || s == Setup.TWO_HOSTS) all.add(Arguments.of(f, s));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void eachFaultGetsOneVerdictAndTheSurvivorsGoOn(Fault fault, Setup setup) throws Exception {
        synchronized (ROWS) {
            if (suiteStart == 0) suiteStart = System.nanoTime();
        }
        if (setup == Setup.TWO_HOSTS) {
            try (NetworkNamespaces hosts = NetworkNamespaces.create(2)) {
                byte[] secret = new byte[16];
                ThreadLocalRandom.current().nextBytes(secret);
                String id = "jccl1:" + NetworkNamespaces.address(0) + ":29500:"
                        + HexFormat.of().formatHex(secret);
                run(fault, setup, id, (r, cmd) -> hosts.command(setup.host(r), cmd), hosts);
            }
        } else {
            UniqueId id = UniqueId.createForAnotherProcess(
                    Config.builder().socketIfname("lo").build());
            run(fault, setup, id.toString(), (r, cmd) -> cmd, null);
        }
    }

    private static void run(
            Fault fault,
            Setup setup,
            String id,
            BiFunction<Integer, List<String>, List<String>> wrap,
            NetworkNamespaces hosts)
            throws Exception {
        int ranks = setup.ranks;
        int culprit = setup.culprit();
        long caseStart = System.nanoTime();
        // Each failed rank writes its flight recorder; this keeps the suite's dumps out of /tmp.
        Path traces = Files.createTempDirectory("jccl-fault-suite-");
        try (LoopWorkers w = LoopWorkers.start(ranks, id, 1024, r -> env(r, fault, setup, traces), wrap)) {
            long injected = 0;
            if (fault == Fault.KILL || fault == Fault.STOP || fault.betweenHosts()) {
                w.awaitLooping(90);
                Process p = w.ranks.get(culprit);
                if (fault == Fault.KILL) {
                    injected = System.nanoTime();
                    p.destroyForcibly(); // SIGKILL
                } else if (fault == Fault.STOP) {
                    new ProcessBuilder("kill", "-STOP", Long.toString(p.pid()))
                            .start()
                            .waitFor();
                    injected = System.nanoTime(); // the process is stopped by now
                } else {
                    if (fault == Fault.CUT) hosts.cutLink(1);
                    else hosts.cutAtSwitch(1);
                    injected = System.nanoTime(); // the link is cut by now
                }
            }
            // Every rank but a killed, stopped or skipping culprit ends by itself.
            List<Integer> ending = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                if (r == culprit && (fault == Fault.KILL || fault == Fault.STOP || fault == Fault.SKIP)) continue;
                ending.add(r);
            }
            for (int r : ending) {
                assertTrue(
                        w.ranks.get(r).waitFor(90, TimeUnit.SECONDS), () -> "a rank still runs 90 s on: " + w.output());
            }
            Map<Integer, String> out = new TreeMap<>();
            for (int r : ending) out.put(r, w.output(r));
            Row row = row(fault, setup, out, injected);
            synchronized (ROWS) {
                ROWS.add(row);
            }
            System.out.printf(
                    "%s on %s in %.1f s:%n%s%n", fault, setup, (System.nanoTime() - caseStart) / 1e9, row.markdown());
            check(fault, setup, w, out);
        } finally {
            try (Stream<Path> files = Files.list(traces)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(traces);
        }
    }

    /** The table row, from what the ranks printed; made before the checks, so that a failed case shows in the table. */
    private static Row row(Fault fault, Setup setup, Map<Integer, String> out, long injected) {
        int culprit = setup.culprit();
        List<Integer> survivors = new ArrayList<>();
        for (int r : out.keySet()) {
            if (fault.betweenHosts() || r != culprit) survivors.add(r);
        }

        String detected;
        OptionalLong failed = out.values().stream()
                .flatMap(o -> FAILED_AT.matcher(o).results())
                .mapToLong(m -> Long.parseLong(m.group(1)))
                .min();
        if (fault == Fault.SKIP || fault == Fault.OTHER) {
            injected = out.values().stream()
                    .flatMap(o -> ENTERED.matcher(o).results())
                    .mapToLong(m -> Long.parseLong(m.group(1)))
                    .min()
                    .orElse(0);
        }
        if (fault == Fault.SLOW) {
            detected = failed.isPresent() ? "FAILED (it must not)" : "nothing failed";
        } else if (failed.isEmpty() || injected == 0) {
            detected = "not detected";
        } else {
            detected = String.format("%.2f s", (failed.getAsLong() - injected) / 1e9);
        }
        detected += " (JCCL_TIMEOUT=" + fault.timeout() + " s)";

        Map<String, List<Integer>> verdicts = new LinkedHashMap<>();
        for (Map.Entry<Integer, String> e : out.entrySet()) {
            String v = verdictLine(e.getValue());
            if (v == null) continue;
            verdicts.computeIfAbsent(culprits(v), k -> new ArrayList<>()).add(e.getKey());
        }
        int distinctLines = (int) out.values().stream()
                .map(FaultSuiteTest::verdictLine)
                .filter(v -> v != null)
                .distinct()
                .count();
        String verdict;
        if (fault == Fault.SLOW) {
            verdict = verdicts.isEmpty() ? "none (no rank failed)" : "UNEXPECTED: " + verdicts;
        } else if (fault.betweenHosts()) {
            verdict = verdicts.equals(Map.of("[2, 3]", List.of(0, 1), "[0, 1]", List.of(2, 3)))
                    ? "partition: each side names the other (ranks 0,1: [2, 3]; ranks 2,3: [0, 1])"
                    : "UNEXPECTED: " + verdicts;
        } else if (distinctLines == 1 && verdicts.size() == 1) {
            String named = verdicts.keySet().iterator().next();
            int on = verdicts.values().iterator().next().size();
            verdict = (named.equals("[" + culprit + "]") ? "yes: " : "SAME BUT WRONG: ") + named + " on " + on + " of "
                    + out.size() + " ranks";
        } else {
            verdict = "NO: " + distinctLines + " different lines, culprits by rank " + verdicts;
        }

        String continued;
        if (fault == Fault.SLOW) {
            long finished = out.values().stream()
                    .filter(o -> o.contains("finished " + ITERATIONS + " iterations"))
                    .count();
            continued = "no failure, loop finished (" + ITERATIONS + " iterations on " + finished + " of " + out.size()
                    + " ranks)";
        } else {
            Map<String, List<Integer>> shrunk = new LinkedHashMap<>();
            Map<String, List<Integer>> notShrunk = new LinkedHashMap<>();
            int ok = 0;
            for (int r : survivors) {
                String line = shrinkLine(out.get(r));
                if (line.startsWith("shrunk: ") && line.endsWith(" ok")) {
                    ok++;
                    shrunk.computeIfAbsent(shrunkTo(line), k -> new ArrayList<>())
                            .add(r);
                } else {
                    notShrunk.computeIfAbsent(line, k -> new ArrayList<>()).add(r);
                }
            }
            if (fault.betweenHosts()) {
                List<String> sides = new ArrayList<>();
                shrunk.forEach((members, who) -> sides.add(ranks(who) + " shrank to " + members + " and computed"));
                notShrunk.forEach((why, who) -> sides.add(ranks(who) + " could not shrink (" + why + ")"));
                continued =
                        String.join("; ", sides) + (shrunk.size() > 1 ? ": NO, two communicators, one per side" : "");
            } else {
                continued = (ok == survivors.size() && shrunk.size() == 1 ? "yes: " : "NO: ") + ok + " of "
                        + survivors.size() + " shrank to " + String.join(", ", shrunk.keySet()) + ", computed ok";
            }
        }

        List<Integer> measured = fault == Fault.SLOW ? new ArrayList<>(out.keySet()) : survivors;
        List<String> leaked = new ArrayList<>();
        int missing = 0;
        for (int r : measured) {
            Matcher m = LEAKS.matcher(out.get(r));
            if (!m.find()) {
                missing++;
                continue;
            }
            if (!m.group(1).equals("0")
                    || !m.group(2).equals("0")
                    || !m.group(3).equals("0")) {
                leaked.add("rank " + r + ": " + m.group(1) + " / " + m.group(2) + " / " + m.group(3) + m.group(4));
            }
        }
        String leaks;
        if (leaked.isEmpty() && missing == 0) leaks = "0 / 0 / 0 on each of " + measured.size() + " ranks";
        else leaks = String.join("; ", leaked) + (missing == 0 ? "" : " (" + missing + " rank(s) did not count)");
        return new Row(fault, setup, detected, verdict, continued, leaks);
    }

    private static void check(Fault fault, Setup setup, LoopWorkers w, Map<Integer, String> out) throws Exception {
        int culprit = setup.culprit();
        int ranks = setup.ranks;
        for (Map.Entry<Integer, String> e : out.entrySet()) {
            int r = e.getKey();
            String o = e.getValue();
            int exit = w.ranks.get(r).exitValue();
            String verdict = verdictLine(o);
            boolean survivor = fault.betweenHosts() || r != culprit;
            if (fault == Fault.SLOW) {
                assertEquals(0, exit, () -> "a slow rank must fail no one: " + w.output());
                assertTrue(o.contains("finished " + ITERATIONS + " iterations"), o);
                assertEquals(null, verdict, o);
            } else {
                assertTrue(verdict != null, () -> "rank " + r + " must print the agreed verdict: " + w.output());
                assertEquals(1, o.lines().filter(l -> l.startsWith("verdict: ")).count(), o);
                assertTrue(verdict.contains(fault.evidence), () -> "the verdict says how: " + verdict);
                assertTrue(verdict.contains("last collective completed"), () -> "with the evidence: " + verdict);
                if (fault.betweenHosts()) {
                    String otherSide = setup.host(r) == 0 ? "[2, 3]" : "[0, 1]";
                    assertEquals(otherSide, culprits(verdict), () -> "each side names the other: " + verdict);
                } else {
                    assertEquals("[" + culprit + "]", culprits(verdict), () -> "the culprit is named: " + verdict);
                    assertEquals(verdictLine(out.get(0)), verdict, () -> "every rank must agree: " + w.output());
                }
                if (!survivor) {
                    assertEquals(3, exit, o);
                    assertTrue(o.contains("this rank is named as the cause"), o);
                    continue;
                }
                List<Integer> members = new ArrayList<>();
                for (int m = 0; m < ranks; m++) {
                    boolean sameSide = fault.betweenHosts() ? setup.host(m) == setup.host(r) : m != culprit;
                    if (sameSide) members.add(m);
                }
                String expected = "shrunk: old ranks " + members + " rank " + members.indexOf(r) + " of "
                        + members.size() + " sum ";
                String shrink = shrinkLine(o);
                if (fault.betweenHosts() && setup.host(r) == 1) {
                    // Half of the ranks, without rank 0: it must not go on as a second communicator.
                    assertEquals(3, exit, o);
                    assertTrue(shrink.startsWith("shrink failed: "), () -> "rank " + r + " must not shrink: " + o);
                    if (fault == Fault.SWITCH_CUT) assertTrue(shrink.contains("not a majority"), shrink);
                } else {
                    assertEquals(4, exit, () -> "the survivors go on: " + w.output());
                    assertTrue(
                            shrink.startsWith(expected) && shrink.endsWith(" ok"),
                            () -> "expected " + expected + ": " + o);
                }
            }
            if (survivor) {
                Matcher m = LEAKS.matcher(o);
                assertTrue(m.find(), () -> "rank " + r + " must count what it left: " + o);
                assertEquals("leaks: threads 0 fds 0 shm 0", m.group(), () -> "rank " + r + " leaked: " + o);
            }
        }
        if (fault == Fault.SLOW) return;
        Row row;
        synchronized (ROWS) {
            row = ROWS.getLast();
        }
        double seconds = Double.parseDouble(row.detected().replaceAll(" s .*", ""));
        if (fault == Fault.KILL) {
            assertTrue(seconds < 5, () -> "a kill -9 is noticed by the lost peer, not the deadline: " + row);
        } else {
            assertTrue(seconds < fault.timeout() + 10, () -> "detected too late: " + row);
        }
    }

    /** The survivor's {@code shrunk: ...} or {@code shrink failed: ...} line, the latter cut to its first sentence. */
    private static String shrinkLine(String out) {
        String line = out.lines()
                .filter(l -> l.startsWith("shrunk: ") || l.startsWith("shrink failed: "))
                .findFirst()
                .orElse("no shrink line");
        if (line.startsWith("shrunk: ")) return line;
        int end = line.indexOf(';');
        return end < 0 ? line : line.substring(0, end);
    }

    /** {@code [0, 2]} from {@code shrunk: old ranks [0, 2] rank ...}. */
    private static String shrunkTo(String shrunkLine) {
        Matcher m = Pattern.compile("old ranks (\\[[0-9, ]*\\])").matcher(shrunkLine);
        return m.find() ? m.group(1) : "?";
    }

    private static String ranks(List<Integer> ranks) {
        return (ranks.size() == 1 ? "rank " : "ranks ")
                + String.join(",", ranks.stream().map(String::valueOf).toList());
    }

    private static String verdictLine(String out) {
        return out.lines().filter(l -> l.startsWith("verdict: ")).findFirst().orElse(null);
    }

    /** {@code [1]} from {@code verdict: [1] Root cause ...}. */
    private static String culprits(String verdictLine) {
        return verdictLine.substring("verdict: ".length(), verdictLine.indexOf(']') + 1);
    }

    private static Map<String, String> env(int rank, Fault fault, Setup setup, Path traces) {
        Map<String, String> env = new HashMap<>(Map.of(
                "JCCL_SOCKET_IFNAME",
                setup == Setup.TWO_HOSTS ? "jv" : "lo",
                "JCCL_TIMEOUT",
                Integer.toString(fault.timeout()),
                "JCCL_SHM_DISABLE",
                setup == Setup.TCP ? "1" : "0",
                "JCCL_TEST_SHRINK",
                "1",
                "JCCL_TRACE_DIR",
                traces.toString()));
        if (setup == Setup.TWO_HOSTS) env.put("JCCL_HOSTID", "host-" + setup.host(rank));
        if (fault == Fault.SLOW) env.put("JCCL_TEST_ITERATIONS", Integer.toString(ITERATIONS));
        if (rank == setup.culprit()) {
            switch (fault) {
                case SKIP -> env.put("JCCL_TEST_FAULT", "skip");
                case OTHER -> env.put("JCCL_TEST_FAULT", "other");
                case SLOW -> env.put("JCCL_TEST_FAULT", "slow");
                default -> {}
            }
        }
        return env;
    }

    @AfterAll
    static void printTheTable() throws IOException {
        List<Row> rows;
        synchronized (ROWS) {
            rows = new ArrayList<>(ROWS);
        }
        if (rows.isEmpty()) return;
        rows.sort(Comparator.comparing(Row::fault).thenComparing(Row::setup));
        StringBuilder md = new StringBuilder();
        md.append("| fault | setup (faulty rank) | detected in | verdict on every rank identical |"
                + " survivors continued | leaked threads / fds / shm |\n");
        md.append("|---|---|---|---|---|---|\n");
        for (Row r : rows) md.append(r.markdown()).append('\n');
        md.append(String.format("%n%d cases in %.0f s.%n", rows.size(), (System.nanoTime() - suiteStart) / 1e9));
        System.out.println("\nFault-injection suite:\n" + md);
        Path file = Path.of("target", "fault-suite.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, md);
    }
}
