package dev.jccl.tools.doctor;

import dev.jccl.Jccl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code --capture DIR}: writes what the checks read on this host as a tree that {@code --root DIR} replays
 * (docs/doctor-checks.md §0.2): the files themselves (only the lines or words that were needed of the large or private
 * ones), {@code _doctor/env}, {@code _doctor/ifaddrs}, {@code _doctor/devperm}, and the live report as
 * {@code _doctor/report.json}, to compare with the replay.
 *
 * <p>The environment is filtered: only the variables of the communication stack and launchers (NCCL_, JCCL_, UCX_,
 * OMPI_, SLURM_, CUDA_, NVIDIA_) and the Kubernetes markers; among those, values that authenticate a job (JCCL_SECRET,
 * JCCL_ID, anything named like a secret) are replaced.
 */
final class Capture {
    static final List<String> ENV_PREFIXES = List.of("NCCL_", "JCCL_", "UCX_", "OMPI_", "SLURM_", "CUDA_", "NVIDIA_");
    static final Set<String> KUBERNETES_MARKERS =
            Set.of("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "K_MPI_JOB_ROLE");
    static final String REDACTED = "(redacted)";

    private Capture() {}

    /** Refuses a target that exists and is not an empty directory, so no file of the user's is overwritten. */
    static void checkTarget(Path dir) {
        if (!Files.exists(dir)) return;
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--capture " + dir + ": exists and is not a directory");
        }
        try (var entries = Files.list(dir)) {
            if (entries.findAny().isPresent()) {
                throw new IllegalArgumentException(
                        "--capture " + dir + ": the directory is not empty; give a new or empty one");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("--capture " + dir + ": cannot read it: " + e.getMessage());
        }
    }

    /** Writes the capture of a live run; returns the number of files and links written. */
    static int write(Path dir, Host host, List<CheckResult> results) throws IOException {
        if (!(host.sources() instanceof LiveSources live) || host.log() == null) {
            throw new IllegalStateException("a capture needs the live host with recording on");
        }
        // A replay of a tmpfs without size= needs the memory size; statvfs did not read it live.
        host.files().lineStartingWith("/proc/meminfo", "MemTotal:");
        Files.createDirectories(dir);
        host.log().writeTo(dir);
        Path meta = dir.resolve(CapturedSources.DIR);
        Files.createDirectories(meta);
        Files.write(meta.resolve("env"), environmentLines(host.env()), StandardCharsets.UTF_8);
        Files.write(meta.resolve("ifaddrs"), NetInterface.format(live.interfaces()), StandardCharsets.UTF_8);
        List<String> devperm = new ArrayList<>();
        for (Map.Entry<String, DeviceAccess> e : live.devicesOpened().entrySet()) {
            if (e.getValue() != DeviceAccess.ABSENT) devperm.add(e.getKey() + " " + e.getValue().word);
        }
        Files.write(meta.resolve("devperm"), devperm, StandardCharsets.UTF_8);
        Files.writeString(meta.resolve("report.json"), JsonReport.render(results), StandardCharsets.UTF_8);
        Files.writeString(
                meta.resolve("README"),
                "Captured by jccl doctor " + Jccl.version() + " at "
                        + Instant.now().truncatedTo(ChronoUnit.SECONDS) + ".\n"
                        + "Replay: jccl doctor --root <this directory>\n"
                        + "env: only " + String.join(", ", ENV_PREFIXES) + " variables and "
                        + String.join(", ", KUBERNETES_MARKERS.stream().sorted().toList())
                        + "; secrets replaced by " + REDACTED + ".\n"
                        + "report.json: the report of the live run, to compare with the replay.\n",
                StandardCharsets.UTF_8);
        return host.log().size() + 5;
    }

    /** The variables a capture keeps, as {@code KEY=VALUE} lines, sorted; secrets replaced. */
    static List<String> environmentLines(Map<String, String> env) {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            String name = e.getKey();
            if (!kept(name)) continue;
            String value = secret(name) ? REDACTED : e.getValue().replace('\n', ' ');
            lines.add(name + "=" + value);
        }
        return lines;
    }

    static boolean kept(String name) {
        if (KUBERNETES_MARKERS.contains(name)) return true;
        for (String p : ENV_PREFIXES) {
            if (name.startsWith(p)) return true;
        }
        return false;
    }

    /** Words that mark a variable's value as a secret wherever they stand in its name. */
    private static final List<String> SECRET_WORDS = List.of("SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL");

    static boolean secret(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return n.equals("JCCL_ID") || SECRET_WORDS.stream().anyMatch(n::contains) || n.endsWith("_KEY");
    }
}
