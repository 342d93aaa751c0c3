package dev.jccl.tools.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jccl.Jccl;
import dev.jccl.tools.JcclCommand;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command: text and JSON output, colour, exit codes, bad input, capture and replay, and a run on this machine. */
@Timeout(60)
class DoctorCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Run(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** Runs {@code jccl doctor args} in this JVM with its own environment and captured output. */
    static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DoctorCommand(env, false));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static Run replay(String tree, String... more) {
        List<String> args =
                new ArrayList<>(List.of("--root", Fixtures.source(tree).toString()));
        args.addAll(List.of(more));
        return run(Map.of(), args.toArray(String[]::new));
    }

    /** A small environment for live runs: nothing Jccl or NCCL would read but what the test adds. */
    static Map<String, String> liveEnvironment(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        for (int i = 0; i < pairs.length; i += 2) env.put(pairs[i], pairs[i + 1]);
        return env;
    }

    @Test
    void textGroupsByAreaAndExplainsOnlyProblems() {
        Run r = replay(Fixtures.BROKEN, "--color=never");
        assertEquals(1, r.code(), r::toString);
        String out = r.out();
        int last = -1;
        for (Area a : Area.values()) {
            int at = out.indexOf("\n" + a.title + "\n");
            assertTrue(at > last, () -> "area " + a.title + " missing or out of order:\n" + out);
            last = at;
        }
        // A problem's lines: the check, then its evidence and its fix, indented under it.
        for (String part : List.of(
                "  fail  rdma-devnodes-container    mlx5_0 is visible in /sys but /dev/infiniband/uverbs0 "
                        + "is not present",
                "\n        evidence  open(/dev/infiniband/uverbs0, O_RDWR): absent\n",
                "\n        fix       Docker: --device=/dev/infiniband")) {
            assertTrue(out.contains(part), out);
        }
        // ok and skip lines stand alone: the next line is another check or a blank line.
        List<String> lines = out.lines().toList();
        for (int i = 0; i < lines.size() - 1; i++) {
            if (lines.get(i).startsWith("  ok ") || lines.get(i).startsWith("  skip ")) {
                assertFalse(
                        lines.get(i + 1).startsWith("        "),
                        "evidence under a check without a problem: " + lines.get(i));
            }
        }
        assertTrue(out.endsWith("32 checks: 3 ok, 8 warn, 15 fail, 6 skip (not applicable here)\n"), out);
        assertFalse(out.contains("\u001b["), "no colour when asked not to");
    }

    @Test
    void healthyHostExitsZeroAndVerboseShowsAllEvidence() {
        Run r = replay(Fixtures.HEALTHY);
        assertEquals(0, r.code(), r::toString);
        assertFalse(r.out().contains("evidence"), r.out());
        Run verbose = replay(Fixtures.HEALTHY, "--verbose");
        assertEquals(0, verbose.code(), verbose::toString);
        assertTrue(verbose.out().contains("evidence  /sys/module/nvidia_peermem/version: 560.35.03"), verbose.out());
    }

    @Test
    void jsonHasTheDocumentedShape() throws IOException {
        Run r = replay(Fixtures.BROKEN, "--json");
        assertEquals(1, r.code(), r::toString);
        JsonNode root = JSON.readTree(r.out());
        assertEquals(Set.of("checks"), fieldNames(root));
        JsonNode checks = root.get("checks");
        assertEquals(32, checks.size());
        for (JsonNode c : checks) {
            assertEquals(new TreeSet<>(List.of("id", "area", "verdict", "summary", "evidence", "fix")), fieldNames(c));
            assertTrue(
                    Set.of("ok", "warn", "fail", "skip")
                            .contains(c.get("verdict").asText()),
                    c::toString);
            for (JsonNode e : c.get("evidence")) assertEquals(new TreeSet<>(List.of("source", "value")), fieldNames(e));
            assertTrue(c.get("fix").isArray());
        }
        JsonNode shm = checks.get(Check.SHM_SIZE.ordinal());
        assertEquals("shm-size", shm.get("id").asText());
        assertEquals("fail", shm.get("verdict").asText());
        assertEquals("Limits and containers", shm.get("area").asText());
        assertTrue(shm.get("fix").get(0).asText().contains("--shm-size=1g"), shm::toString);
        assertEquals(0, replay(Fixtures.HEALTHY, "--json").code());
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) names.add(it.next());
        return names;
    }

    @Test
    void colourOnlyWhenWanted() {
        Run always = replay(Fixtures.BROKEN, "--color=always");
        assertTrue(always.out().contains("\u001b[1;31mfail\u001b[0m"), always.out());
        assertTrue(always.out().contains("\u001b[32mok  \u001b[0m"), always.out());
        // auto: output that is not the process's terminal stays plain, NO_COLOR or not.
        assertFalse(replay(Fixtures.BROKEN).out().contains("\u001b["));
        assertFalse(run(
                        Map.of("NO_COLOR", "1"),
                        "--root",
                        Fixtures.source(Fixtures.BROKEN).toString())
                .out()
                .contains("\u001b["));
    }

    @Test
    void badRootsAreUsageErrorsThatSayWhy(@TempDir(factory = RamTempDir.class) Path tmp) throws IOException {
        Run missing = run(Map.of(), "--root", tmp.resolve("nowhere").toString());
        assertEquals(2, missing.code(), missing::toString);
        assertTrue(missing.err().contains("nowhere: no such directory"), missing::toString);

        Path file = Files.writeString(tmp.resolve("capture.tar.gz"), "not a tree");
        Run notDir = run(Map.of(), "--root", file.toString());
        assertEquals(2, notDir.code(), notDir::toString);
        assertTrue(notDir.err().contains("not a directory"), notDir::toString);

        Path malformed = Files.createDirectories(tmp.resolve("malformed/_doctor"));
        Files.writeString(malformed.resolve("ifaddrs"), "eth0\n");
        Run bad = run(Map.of(), "--root", malformed.getParent().toString());
        assertEquals(2, bad.code(), bad::toString);
        assertTrue(bad.err().contains("_doctor/ifaddrs: 'eth0' is not 'name FLAGS [address/prefix]'"), bad::toString);

        Run both = run(
                Map.of(),
                "--root",
                tmp.toString(),
                "--capture",
                tmp.resolve("c").toString());
        assertEquals(2, both.code(), both::toString);
        assertTrue(both.err().contains("cannot be combined with --root"), both::toString);

        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "mine");
        Run notEmpty = run(liveEnvironment(), "--capture", full.toString());
        assertEquals(2, notEmpty.code(), notEmpty::toString);
        assertTrue(notEmpty.err().contains("not empty"), notEmpty::toString);
        assertEquals("mine", Files.readString(full.resolve("keep.txt")));
    }

    @Test
    void captureOfThisHostReplaysToTheSameReport(@TempDir(factory = RamTempDir.class) Path tmp) throws IOException {
        Path dir = tmp.resolve("capture");
        Map<String, String> env = liveEnvironment(
                "HOME",
                "/root",
                "NCCL_IB_MTU",
                "4096",
                "JCCL_SECRET",
                "00112233445566778899aabbccddeeff",
                "JCCL_ID",
                "10.0.0.1:29600/deadbeef",
                "AWS_SECRET_ACCESS_KEY",
                "xyz",
                "KUBERNETES_SERVICE_HOST",
                "10.96.0.1",
                "OMPI_COMM_WORLD_LOCAL_SIZE",
                "4");
        Run live = run(env, "--capture", dir.toString(), "--json");
        assertTrue(live.code() == 0 || live.code() == 1, live::toString);
        assertTrue(live.err().contains("replay with: jccl doctor --root " + dir), live::toString);
        Run replayed = run(Map.of(), "--root", dir.toString(), "--json");
        assertEquals(live.code(), replayed.code(), replayed::toString);
        assertEquals(verdictsAndSummaries(live.out()), verdictsAndSummaries(replayed.out()));

        List<String> captured = Files.readAllLines(dir.resolve("_doctor/env"));
        assertEquals(
                List.of(
                        "JCCL_ID=(redacted)",
                        "JCCL_SECRET=(redacted)",
                        "KUBERNETES_SERVICE_HOST=10.96.0.1",
                        "NCCL_IB_MTU=4096",
                        "OMPI_COMM_WORLD_LOCAL_SIZE=4"),
                captured,
                "only the stack's variables, secrets replaced");
        assertTrue(Files.exists(dir.resolve("_doctor/report.json")));
        assertTrue(Files.exists(dir.resolve("_doctor/ifaddrs")));
        // Of private or large files only the lines the checks needed are kept.
        for (String line : Files.readAllLines(dir.resolve("proc/self/status"))) {
            assertTrue(line.startsWith("CapEff:") || line.startsWith("Cpus_allowed_list:"), line);
        }
        for (String line : Files.readAllLines(dir.resolve("proc/self/mountinfo"))) {
            MountInfo.Mount m = MountInfo.parse(line);
            assertTrue(m.mountPoint().equals("/") || m.mountPoint().equals("/dev/shm"), line);
        }
        String all = new String(Files.readAllBytes(dir.resolve("_doctor/env")), StandardCharsets.UTF_8)
                + Files.readString(dir.resolve("_doctor/report.json"));
        assertFalse(
                all.contains("0011223344") || all.contains("deadbeef") || all.contains("xyz"),
                "no secret in the capture");
    }

    private static List<String> verdictsAndSummaries(String json) throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode c : JSON.readTree(json).get("checks")) {
            out.add(c.get("id").asText() + " " + c.get("verdict").asText() + " "
                    + c.get("summary").asText());
        }
        return out;
    }

    /** This machine has no GPU and no RDMA device: those checks skip, and say why. */
    @Test
    void liveRunOnThisMachine() {
        assumeTrue(!Files.exists(Path.of("/proc/driver/nvidia")), "this machine has an NVIDIA driver");
        assumeTrue(listOrEmpty(Path.of("/sys/class/infiniband")).isEmpty(), "this machine has RDMA devices");
        List<CheckResult> results = Doctor.examine(Host.live(liveEnvironment(), false));
        String report = TextReport.render(results, "this host", false, true);
        assertEquals(Check.values().length, results.size());
        for (int i = 0; i < results.size(); i++) {
            assertEquals(Check.values()[i], results.get(i).check());
        }
        Map<String, CheckResult> byId = new HashMap<>();
        for (CheckResult r : results) byId.put(r.id(), r);
        for (String id : List.of(
                "gdr-peermem-module", "gdr-peermem-nccl-probe", "gdr-dmabuf-support", "topo-gpu-nic-distance")) {
            Fixtures.expect(byId, id, Verdict.SKIP, "no NVIDIA GPU");
        }
        for (String id : List.of(
                "rdma-devnodes-container",
                "rdma-userspace-stack",
                "rdma-port-state",
                "ib-subnet-manager",
                "roce-gid-v2",
                "roce-mtu",
                "memlock-limit")) {
            Fixtures.expect(byId, id, Verdict.SKIP, "no RDMA device");
        }
        Fixtures.expect(byId, "gpu-visibility-mapping", Verdict.SKIP, "no NVIDIA driver");
        Fixtures.expect(byId, "rdma-devices-present", Verdict.SKIP, "no RDMA device");
        // Things every Linux host answers.
        Fixtures.assertVerdict(byId, "context-runtime", Verdict.OK);
        Fixtures.assertVerdict(byId, "net-ports-firewall", Verdict.OK);
        assertTrue(byId.get("net-ports-firewall").summary().matches(".*TCP ports \\d+–\\d+ .*"), report);
        assertTrue(
                byId.get("shm-size").evidence().stream()
                        .anyMatch(e -> e.source().equals("statvfs(/dev/shm)")),
                report);
        assertFalse(Doctor.anyFailed(results), report);
    }

    private static List<Path> listOrEmpty(Path dir) {
        try (var s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Through the real entry point: `jccl doctor` is registered, and its exit codes reach the shell. */
    @Test
    void jcclDoctorAsAProcess() throws Exception {
        Run json = jccl(
                "doctor", "--json", "--root", Fixtures.source(Fixtures.BROKEN).toString());
        assertEquals(1, json.code(), json::toString);
        assertEquals(32, JSON.readTree(json.out()).get("checks").size());
        Run missing = jccl("doctor", "--root", "/nonexistent/capture");
        assertEquals(2, missing.code(), missing::toString);
        assertTrue(missing.err().contains("--root /nonexistent/capture: no such directory"), missing::toString);
    }

    private static Run jccl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath(),
                JcclCommand.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().keySet().removeIf(k -> k.startsWith("JCCL_") || k.startsWith("NCCL_"));
        Path out = Files.createTempFile("doctor-out", ".txt");
        Path err = Files.createTempFile("doctor-err", ".txt");
        try {
            Process p =
                    pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("jccl " + String.join(" ", args) + " did not end within 30 s");
            }
            return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String classPath() throws URISyntaxException {
        List<String> entries = new ArrayList<>();
        for (Class<?> c : List.of(
                JcclCommand.class,
                Jccl.class,
                CommandLine.class,
                ObjectMapper.class,
                JsonFactory.class,
                JsonProperty.class)) {
            String entry = Path.of(c.getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
            if (!entries.contains(entry)) entries.add(entry);
        }
        return String.join(File.pathSeparator, entries);
    }
}
