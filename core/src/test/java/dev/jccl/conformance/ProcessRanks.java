package dev.jccl.conformance;

import dev.jccl.ChildProcesses;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * Starts N JVMs, one per rank, on this test's classpath, and waits for all of them within a deadline; past it every one
 * (and its children) is killed. Output goes to files, so a chatty rank can never block on a full pipe.
 *
 * <p>Each rank inherits this JVM's environment with the given variables on top; a variable given as {@link #UNSET} is
 * removed instead, so that a developer's shell cannot decide what a test sees.
 */
public final class ProcessRanks {
    private ProcessRanks() {}

    /** As a variable's value: remove the variable from the rank's environment. */
    public static final String UNSET = new String("<unset>");

    /** A rank's outcome; {@code exitCode} is null when it was killed at the deadline. */
    public record Outcome(int rank, Integer exitCode, String output) {
        public boolean passed() {
            return exitCode != null && exitCode == 0;
        }
    }

    public static List<Outcome> run(
            int size, Class<?> mainClass, List<String> argsPerRankTemplate, Map<String, String> env, Duration deadline)
            throws IOException, InterruptedException {
        return run(size, mainClass, argsPerRankTemplate, r -> env, (r, cmd) -> cmd, deadline);
    }

    /**
     * As above, with each rank's environment from {@code envOf} and its command line passed through {@code wrap} (e.g.
     * to run it inside a network namespace).
     */
    public static List<Outcome> run(
            int size,
            Class<?> mainClass,
            List<String> argsPerRankTemplate,
            IntFunction<Map<String, String>> envOf,
            BiFunction<Integer, List<String>, List<String>> wrap,
            Duration deadline)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("java.class.path");
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < size; r++) {
                List<String> cmd = new ArrayList<>(List.of(
                        java,
                        "-Xmx512m",
                        "-XX:+UseSerialGC",
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        classpath,
                        mainClass.getName()));
                for (String a : argsPerRankTemplate) {
                    cmd.add(a.replace("{rank}", Integer.toString(r)).replace("{size}", Integer.toString(size)));
                }
                Path log = Files.createTempFile("jccl-rank-" + r + "-", ".log");
                logs.add(log);
                ProcessBuilder pb = new ProcessBuilder(wrap.apply(r, cmd))
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                envOf.apply(r).forEach((name, value) -> {
                    // Identity, not equals: only the marker itself removes, never a value that spells it.
                    if (value == UNSET) pb.environment().remove(name);
                    else pb.environment().put(name, value);
                });
                procs.add(pb.start());
            }
            long end = System.nanoTime() + deadline.toNanos();
            List<Outcome> out = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                Process p = procs.get(r);
                long left = Math.max(0, end - System.nanoTime());
                Integer code = p.waitFor(left, TimeUnit.NANOSECONDS) ? p.exitValue() : null;
                if (code == null) ChildProcesses.kill(p);
                out.add(new Outcome(r, code, Files.readString(logs.get(r), StandardCharsets.UTF_8)));
            }
            return out;
        } finally {
            for (Process p : procs) ChildProcesses.kill(p);
            for (Path l : logs) Files.deleteIfExists(l);
        }
    }

    public static String report(List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder();
        for (Outcome o : outcomes) {
            sb.append("\n--- rank ")
                    .append(o.rank())
                    .append(": ")
                    .append(o.exitCode() == null ? "killed at the deadline" : "exit " + o.exitCode())
                    .append('\n')
                    .append(o.output().isEmpty() ? "(no output)" : o.output());
        }
        return sb.toString();
    }
}
