package dev.jccl.plan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The file {@code jccl perf --calibrate} writes and every communicator reads ({@code JCCL_CALIBRATION}, by default
 * {@code $XDG_CONFIG_HOME/jccl/calibration.properties}, else {@code ~/.config/jccl/calibration.properties}): the
 * {@link Calibration}'s figures as {@code key = value} lines, with what machine and which Jccl measured them and when.
 *
 * <p>Reading never fails a start-up. A file that is missing (where {@code JCCL_CALIBRATION} names one), malformed (a
 * line without '=', a figure that is not a number or out of range, an unknown key), or stale (measured on another CPU
 * or CPU count, or by another Jccl version) gives a warning naming the file and the fallback, the built-in figures; one
 * older than {@link #OLD} is used with a warning. A file may name only some figures (a cluster's NIC, say): the others
 * stay built-in.
 */
public final class CalibrationFile {
    private CalibrationFile() {}

    /** The variable that names the file; {@code none} reads no file. */
    public static final String VARIABLE = "JCCL_CALIBRATION";

    /** The format this code reads and writes. */
    static final int FORMAT = 1;

    /** Age beyond which a calibration is still used but its reader is told to measure again. */
    static final Duration OLD = Duration.ofDays(180);

    /** Where a calibration was measured: the figures belong to this CPU, this many CPUs, and this Jccl. */
    public record Fingerprint(int cpus, String cpuModel, String jcclVersion) {
        /** This process's machine: its usable CPUs, {@code /proc/cpuinfo}'s model name (or the OS arch). */
        public static Fingerprint here(String jcclVersion) {
            return new Fingerprint(Runtime.getRuntime().availableProcessors(), modelOfThisCpu(), jcclVersion);
        }

        private static String modelOfThisCpu() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                    if (line.startsWith("model name")) {
                        return line.substring(line.indexOf(':') + 1).trim();
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not Linux, or no model line: the architecture is what we can say
            }
            return System.getProperty("os.arch");
        }
    }

    /** What reading gave: the figures to use, and what the user should hear about the file (warnings). */
    public record Loaded(Calibration calibration, List<String> warnings) {}

    /** The default file: {@code $XDG_CONFIG_HOME/jccl/calibration.properties}, else under {@code ~/.config}. */
    public static Path defaultPath(Map<String, String> env) {
        String xdg = env.get("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank()
                ? Path.of(xdg)
                : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".config");
        return base.resolve("jccl").resolve("calibration.properties");
    }

    /**
     * Reads the calibration {@code setting} names ({@code JCCL_CALIBRATION}'s value: a path, {@code none}, or null for
     * the default file, which may be absent without a word), checked against the machine {@code here} at {@code now}.
     */
    public static Loaded load(String setting, Map<String, String> env, Fingerprint here, Instant now) {
        if (setting != null && setting.trim().equalsIgnoreCase("none")) {
            return new Loaded(Calibration.DEFAULTS, List.of());
        }
        boolean named = setting != null && !setting.isBlank();
        Path file = named ? Path.of(setting.trim()) : defaultPath(env);
        List<String> warnings = new ArrayList<>();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            if (named) {
                warnings.add(VARIABLE + " names " + file + ", which does not exist; the tuner uses its built-in"
                        + " figures (write the file with `jccl perf --calibrate`)");
            }
            return new Loaded(Calibration.DEFAULTS, warnings);
        } catch (IOException | RuntimeException e) {
            warnings.add("calibration file " + file + " cannot be read (" + e.getMessage()
                    + "); the tuner uses its built-in figures");
            return new Loaded(Calibration.DEFAULTS, warnings);
        }
        try {
            return read(file, text, here, now);
        } catch (IllegalArgumentException e) {
            warnings.add("calibration file " + file + " is malformed: " + e.getMessage()
                    + "; the tuner uses its built-in figures (rewrite it with `jccl perf --calibrate`)");
            return new Loaded(Calibration.DEFAULTS, warnings);
        }
    }

    /**
     * Keys older files have and this Jccl no longer reads: {@code handoff.us}, a lone call's hand-off with two ranks
     * pinned to one CPU, which priced every step of ranks that share CPUs at 10-35 µs where a step of a loop of calls
     * waits 1-8 ({@code handoff.step.us} replaced it, 2026-11-28).
     */
    private static final Set<String> RETIRED = Set.of("handoff.us");

    /** Parses {@code text}; malformed content is an {@link IllegalArgumentException} saying which line and why. */
    static Loaded read(Path file, String text, Fingerprint here, Instant now) {
        Map<String, String> header = new LinkedHashMap<>();
        Map<String, Double> figures = new LinkedHashMap<>();
        Map<String, Double> known = Calibration.DEFAULTS.values();
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("line " + (i + 1) + " has no '=': " + line);
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (known.containsKey(key)) {
                try {
                    figures.put(key, Double.parseDouble(value));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            "line " + (i + 1) + ": " + key + " is not a number: '" + value + "'");
                }
            } else if (List.of("format", "written", "cpus", "cpu.model", "jccl.version")
                    .contains(key)) {
                header.put(key, value);
            } else if (RETIRED.contains(key)) {
                continue; // a figure an older Jccl measured and this one does not use: the rest of the file stands
            } else {
                throw new IllegalArgumentException("line " + (i + 1) + " has an unknown key '" + key + "' (known: "
                        + String.join(", ", known.keySet()) + ", and format, written, cpus, cpu.model, jccl.version)");
            }
        }
        String format = header.get("format");
        if (format != null && !format.equals(Integer.toString(FORMAT))) {
            throw new IllegalArgumentException("format " + format + ", and this Jccl reads format " + FORMAT);
        }
        Instant written = null;
        if (header.containsKey("written")) {
            try {
                written = Instant.parse(header.get("written"));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "written is not an ISO-8601 instant: '" + header.get("written") + "'");
            }
        }
        String stale = staleness(header, here);
        if (stale != null) {
            return new Loaded(
                    Calibration.DEFAULTS,
                    List.of("calibration file " + file + " is stale: " + stale
                            + "; the tuner uses its built-in figures (measure this machine with `jccl perf"
                            + " --calibrate`)"));
        }
        List<String> warnings = new ArrayList<>();
        if (written != null && Duration.between(written, now).compareTo(OLD) > 0) {
            warnings.add("calibration file " + file + " was written "
                    + Duration.between(written, now).toDays()
                    + " days ago; it is used, but the machine may have changed (measure again with `jccl perf"
                    + " --calibrate`)");
        }
        String source =
                file + (written == null ? "" : " of " + written.toString().substring(0, 10));
        // A figure out of range throws here, and load() says which file.
        return new Loaded(Calibration.DEFAULTS.with(figures, source), warnings);
    }

    /** Why a file's figures belong to another machine or Jccl, or null if they do not. */
    private static String staleness(Map<String, String> header, Fingerprint here) {
        String cpus = header.get("cpus");
        if (cpus != null && !cpus.equals(Integer.toString(here.cpus()))) {
            return "measured with " + cpus + " CPUs, and this process has " + here.cpus();
        }
        String model = header.get("cpu.model");
        if (model != null && !model.equals(here.cpuModel())) {
            return "measured on a " + model + ", and this is a " + here.cpuModel();
        }
        String version = header.get("jccl.version");
        if (version != null && here.jcclVersion() != null && !version.equals(here.jcclVersion())) {
            return "measured by Jccl " + version + ", and this is Jccl " + here.jcclVersion();
        }
        return null;
    }

    /** The file's text for {@code calibration}, measured on {@code here} at {@code when}, {@code notes} as comments. */
    public static String format(Calibration calibration, Fingerprint here, Instant when, List<String> notes) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Jccl calibration: the figures the tuner's cost model uses on this machine.\n");
        sb.append("# Written by `jccl perf --calibrate`; read by every communicator (")
                .append(VARIABLE);
        sb.append(" names another file, or none). Remove a figure to use the built-in one.\n");
        for (String note : notes) sb.append("# ").append(note).append('\n');
        sb.append("format = ").append(FORMAT).append('\n');
        sb.append("written = ").append(when).append('\n');
        sb.append("cpus = ").append(here.cpus()).append('\n');
        sb.append("cpu.model = ").append(here.cpuModel()).append('\n');
        if (here.jcclVersion() != null) {
            sb.append("jccl.version = ").append(here.jcclVersion()).append('\n');
        }
        for (Map.Entry<String, Double> e : calibration.values().entrySet()) {
            sb.append(e.getKey())
                    .append(" = ")
                    .append(String.format(Locale.ROOT, "%.4g", e.getValue()))
                    .append('\n');
        }
        return sb.toString();
    }

    /** Writes {@link #format}'s text to {@code file}, making its directory, replacing the old file in one rename. */
    public static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".calibration", ".tmp");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(
                    tmp,
                    file,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
