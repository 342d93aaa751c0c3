package dev.jccl.tools;

import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Calibration;
import dev.jccl.plan.CalibrationFile;
import dev.jccl.plan.CalibrationFile.Fingerprint;
import dev.jccl.plan.Tuner;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.tools.perf.PerfReports;
import dev.jccl.tools.perf.PerfRow;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongToDoubleFunction;
import java.util.stream.Collectors;

/**
 * {@code jccl perf --calibrate}: measures the figures of the tuner's cost model on this machine and writes them to the
 * {@link CalibrationFile} every communicator reads. Each link's figures come from a two-rank run of the algorithm the
 * tuner prices with them, so that a straight line through the measured times, read through the tuner's own estimate,
 * gives them:
 *
 * <ul>
 *   <li>shared memory: AllReduce, Ring/Simple, which the tuner prices as two dependent steps of half the message each
 *       and a reduce of half of it ({@link #ringLink}); the in-cache rate from the sizes whose buffers fit in the
 *       last-level cache, whose size sysfs gives. The rings, recursive doubling, Rabenseifner and the trees are all
 *       priced in such steps;
 *   <li>sockets: the same with {@code JCCL_SHM_DISABLE=1} (on one host, loopback: run it across two hosts for the NIC's
 *       figures, or write those by hand);
 *   <li>the LL outbox: AllReduce, OneShot/LL (three times the message in traffic);
 *   <li>a step's hand-off where ranks share CPUs: AllReduce, RecursiveDoubling/Simple, of a few bytes, in a loop of
 *       calls, four ranks pinned to two CPUs, per step less the shared-memory step (a lone call's wait, two ranks
 *       pinned to one CPU, was measured until 2026-11-28: 33-35 µs against a loop's 2.3-2.6 here, it priced every step
 *       4 times too dear);
 *   <li>γ: the FLOAT32 SUM kernel on 1 MiB in this JVM, with the kernels the ranks use; measured first, since the
 *       ring's line is read through it.
 * </ul>
 *
 * <p>Why not a Broadcast for the steps, as this did until 2026-11: a Broadcast loop measures a pipeline, not a step.
 * The root never waits for its peer, and a 2-rank Broadcast of 512 KiB to 2 MiB ran at 8.8-8.9 GB/s in the calibration
 * while the ring AllReduce's steps moved 24 GB/s. With the Broadcast's rate the tuner priced the 2-rank ring AllReduce
 * of 2 MiB at 220 µs and took the one-shot LL (128 µs) from 256 KiB up; the ring measured 117 µs there, and 48 against
 * the one-shot's 56-66 at 1 MiB: the measured file picked worse than the built-in figures. Now both pick alike on 2
 * ranks.
 *
 * <p>Every size is timed in three runs (blocking calls back to back, out of place) and the median kept.
 */
final class Calibrator {
    /** A fitted line: latency (µs), bandwidth (GB/s), and how far the worst measured size is from it (a fraction). */
    record Fit(double latencyMicros, double gbPerSecond, double worstError) {
        /** The line's time for {@code bytes} of message, {@code trafficPerByte} bytes of traffic per byte. */
        double micros(long bytes, double trafficPerByte) {
            return latencyMicros + bytes * trafficPerByte / (gbPerSecond * 1e3);
        }
    }

    /**
     * A link's figures: one step's latency (µs), its bandwidth (GB/s), and whether the reduce left none of the slope.
     */
    record Link(double stepMicros, double gbPerSecond, boolean reduceExplainsSlope) {}

    /**
     * The least share of a ring AllReduce's slope that must be left to the link once the reduce's is taken out; below
     * it the measurement says nothing reliable about the link.
     */
    static final double MIN_LINK_SHARE = 0.2;

    /** One size's time. */
    record Sample(long bytes, double micros) {}

    /** How much is measured: the real thing, or a quick pass (tests) that proves the pipeline. */
    record Effort(long maxBytes, long maxLlBytes, int runs, int iters, String warmupSeconds) {
        /**
         * 100 iterations per size: a time is their mean, and with 20 one rescheduled iteration in a run (18 µs where
         * the rest take 1.9, measured on a 2-vCPU VM) moved the small sizes' line by several µs. Up to 32 MiB, so that
         * two sizes (8 and 32 MiB) lie beyond a 32 MiB cache for the rate out of it.
         */
        static final Effort FULL = new Effort(32L << 20, 4L << 20, 3, 100, "5");

        /**
         * The tests' pass: one run per size (each run is a job of two JVMs; three made the test 64 s), of 50
         * iterations, so that one rescheduled iteration cannot bend a line on a busy 2-vCPU machine (with 10, once in a
         * full suite, the times fell with the size and the fit refused them).
         */
        static final Effort QUICK = new Effort(1L << 20, 1L << 20, 1, 50, "0.5");
    }

    private static final Duration JOB_LIMIT = Duration.ofMinutes(3);

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final Effort effort;

    Calibrator(Map<String, String> env, PrintStream out, PrintStream err, Effort effort) {
        this.env = env;
        this.out = out;
        this.err = err;
        this.effort = effort;
    }

    /** Measures, prints the figures beside the built-in ones, writes {@code file}; returns the exit code. */
    int run(Path file) throws IOException, InterruptedException {
        Fingerprint here = Fingerprint.here(Jccl.version());
        out.printf(
                Locale.ROOT,
                "# jccl perf --calibrate: 2 local ranks, sizes 8 B to %s, median of %d run(s) per size;"
                        + " %d CPUs (%s)%n",
                Tuner.sizeText(effort.maxBytes()),
                effort.runs(),
                here.cpus(),
                here.cpuModel());
        Map<String, Double> figures = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> ring = Map.of("JCCL_ALGO", "Ring", "JCCL_PROTO", "Simple");

        double gamma = reduceRate(DataType.FLOAT32);
        figures.put("reduce.gbps", gamma);
        double float16 = gamma / reduceRate(DataType.FLOAT16);
        double bfloat16 = gamma / reduceRate(DataType.BFLOAT16);
        figures.put("reduce.float16.slowdown", float16);
        figures.put("reduce.bfloat16.slowdown", bfloat16);
        notes.add(String.format(
                Locale.ROOT,
                "reduce: FLOAT32 SUM kernel on 1 MiB in one JVM (%s); FLOAT16's %.3gx as long, BFLOAT16's %.3gx (ranks"
                        + " started without the Vector API reduce BFLOAT16 about 15x slower than that)",
                ReduceKernels.describe(),
                float16,
                bfloat16));

        List<Sample> shmTimes = measure("all_reduce", effort.maxBytes(), ring);
        double sysfsCacheMib = lastLevelCacheMib(Path.of("/sys/devices/system/cpu/cpu0/cache"));
        // Where sysfs has no cache directory (some VMs and containers), the tuner keeps the built-in cache size, so the
        // in-cache rate is measured over the sizes that size holds: the rate and the split it is used with agree.
        double cacheMib = sysfsCacheMib > 0 ? sysfsCacheMib : Calibration.DEFAULTS.cacheMib();
        // The sizes the tuner prices at the in-cache rate (those whose 2 ranks' buffers fit) give the step and that
        // rate; the larger ones the rate out of the cache. One line through every size is the small sizes' line,
        // since the fit weighs each size alike: on this project's VM it put the rate beyond the cache at 23 GB/s,
        // where 8 MiB ran at 12.
        Calibration withCache = Calibration.DEFAULTS.with(Map.of("cache.mib", cacheMib), "this machine's cache");
        Map<Boolean, List<Sample>> byCache =
                shmTimes.stream().collect(Collectors.partitioningBy(t -> withCache.fitsInCache(t.bytes(), 2)));
        List<Sample> cached = byCache.get(true);
        List<Sample> beyond = byCache.get(false);
        Fit shmLine = fit(cached.size() >= 2 ? cached : shmTimes, 1);
        Fit beyondLine = beyond.size() >= 2 ? fit(beyond, 1) : shmLine;
        Link shm = ringLink(shmLine, gamma);
        Link shmBeyond = ringLink(beyondLine, gamma);
        figures.put("shm.step.us", shm.stepMicros());
        figures.put("shm.bandwidth.gbps", shmBeyond.gbPerSecond());
        if (sysfsCacheMib > 0) {
            figures.put("cache.mib", cacheMib);
        } else {
            notes.add(String.format(
                    Locale.ROOT,
                    "cache: the last-level cache's size is not in sysfs; the built-in %.0f MiB decides which sizes"
                            + " count as in the cache",
                    cacheMib));
        }
        if (cached.size() >= 2) {
            figures.put("shm.cached.bandwidth.gbps", shm.gbPerSecond());
            notes.add(note(
                    "shm",
                    String.format(
                            Locale.ROOT,
                            "AllReduce Ring/Simple over shared memory, the sizes that fit in %.0f MiB of cache",
                            cacheMib),
                    shmLine,
                    shm));
        } else {
            notes.add(note("shm", "AllReduce Ring/Simple over shared memory, every size", shmLine, shm)
                    + "; fewer than two sizes fit in the cache, so its rate is the built-in one");
        }
        if (beyond.size() >= 2) {
            notes.add(note("shm.bandwidth", "the same, the sizes that do not fit", beyondLine)
                    + String.format(
                            Locale.ROOT, "; %.4g GB/s once the reduce's share is taken out", shmBeyond.gbPerSecond()));
        } else {
            notes.add("shm.bandwidth: fewer than two sizes beyond the cache; the in-cache line's rate");
        }

        Map<String, String> sockets = new HashMap<>(ring);
        sockets.put("JCCL_SHM_DISABLE", "1");
        List<Sample> netTimes = measure("all_reduce", effort.maxBytes(), sockets);
        Fit netLine = fit(netTimes, 1);
        Link net = ringLink(netLine, gamma);
        figures.put("net.step.us", net.stepMicros());
        figures.put("net.bandwidth.gbps", net.gbPerSecond());
        notes.add(note("net", "AllReduce Ring/Simple over loopback sockets", netLine, net));

        Map<String, String> outbox = Map.of("JCCL_ALGO", "OneShot", "JCCL_PROTO", "LL");
        List<Sample> llTimes = measure("all_reduce", effort.maxLlBytes(), outbox);
        Fit ll = fit(llTimes, 3);
        printSamples(
                List.of("shm", "net", "ll"),
                List.of(shmTimes, netTimes, llTimes),
                List.of(
                        bytes -> (withCache.fitsInCache(bytes, 2) ? shmLine : beyondLine).micros(bytes, 1),
                        bytes -> netLine.micros(bytes, 1),
                        bytes -> ll.micros(bytes, 3)));
        figures.put("ll.latency.us", ll.latencyMicros());
        figures.put("ll.bandwidth.gbps", ll.gbPerSecond());
        notes.add(note("ll", "AllReduce OneShot/LL, 3x the message in traffic", ll));

        List<String> pair = pinnableCpus(2);
        if (!pair.isEmpty()) {
            // Two ranks on each CPU, in a loop of calls: what a lockstep step waits where ranks share CPUs. Recursive
            // doubling's steps are pairwise exchanges that both partners must run for, log2(ranks) of them, each of
            // the 2-rank shared-memory step measured above and a hand-off. From 16 B every rank has an element.
            int ranks = 2 * pair.size();
            int steps = Integer.numberOfTrailingZeros(ranks);
            Map<String, String> crowded =
                    Map.of("JCCL_ALGO", "RecursiveDoubling", "JCCL_PROTO", "Simple", "JCCL_OVERSUBSCRIBED", "1");
            List<Sample> loop = measureSizes("all_reduce", 16, 256, crowded, String.join(",", pair), ranks);
            double perStep = median(loop) / steps;
            figures.put("handoff.step.us", Math.max(0, perStep - shm.stepMicros()));
            notes.add(String.format(
                    Locale.ROOT,
                    "handoff.step: AllReduce RecursiveDoubling/Simple of 16-256 B, %d ranks on CPUs %s, %.3g us:"
                            + " %.3g us for each of its %d steps, less the shm step",
                    ranks,
                    String.join(",", pair),
                    median(loop),
                    perStep,
                    steps));
        } else {
            notes.add("handoff.step: not measured (no taskset to pin ranks); built-in figure");
        }

        Calibration measured = Calibration.DEFAULTS.with(figures, file.toString());
        printFigures(measured, notes);
        CalibrationFile.write(file, CalibrationFile.format(measured, here, Instant.now(), notes));
        out.println("# wrote " + file + " (every communicator started with JCCL_CALIBRATION unset or naming it reads"
                + " it; `jccl info --tuner` shows the picks it leads to)");
        return 0;
    }

    /** Each size's measured time beside the fitted line's, so that how well a line fits can be seen. */
    private void printSamples(List<String> names, List<List<Sample>> series, List<LongToDoubleFunction> lines) {
        out.printf(Locale.ROOT, "# %10s", "size");
        for (String n : names) out.printf(Locale.ROOT, " %10s %10s", n + " µs", "line");
        out.println();
        TreeMap<Long, Map<String, Sample>> bySize = new TreeMap<>();
        for (int i = 0; i < names.size(); i++) {
            for (Sample s : series.get(i)) {
                bySize.computeIfAbsent(s.bytes(), k -> new HashMap<>()).put(names.get(i), s);
            }
        }
        for (Map.Entry<Long, Map<String, Sample>> e : bySize.entrySet()) {
            out.printf(Locale.ROOT, "  %10s", Tuner.sizeText(e.getKey()));
            for (int i = 0; i < names.size(); i++) {
                Sample s = e.getValue().get(names.get(i));
                if (s == null) {
                    out.printf(Locale.ROOT, " %10s %10s", "-", "-");
                    continue;
                }
                out.printf(
                        Locale.ROOT, " %10.2f %10.2f", s.micros(), lines.get(i).applyAsDouble(s.bytes()));
            }
            out.println();
        }
    }

    private void printFigures(Calibration measured, List<String> notes) {
        out.printf(Locale.ROOT, "%-26s %12s %12s%n", "figure", "measured", "built-in");
        Map<String, Double> builtIn = Calibration.DEFAULTS.values();
        for (Map.Entry<String, Double> e : measured.values().entrySet()) {
            out.printf(Locale.ROOT, "%-26s %12.4g %12.4g%n", e.getKey(), e.getValue(), builtIn.get(e.getKey()));
        }
        for (String n : notes) out.println("# " + n);
    }

    private static String note(String what, String how, Fit line, Link link) {
        return note(what, how, line)
                + (link.reduceExplainsSlope()
                        ? "; the reduce alone explains the line's slope, so the rate is the line's, reduce included"
                        : String.format(
                                Locale.ROOT,
                                "; a step of %.3g us, %.4g GB/s once the reduce's share is taken out",
                                link.stepMicros(),
                                link.gbPerSecond()));
    }

    /**
     * A link's figures read off the line through a 2-rank AllReduce, Ring/Simple: the tuner prices it as two steps of
     * half the message (two latencies, the message once over the link) and a reduce of half the message at the kernel's
     * rate γ, so the line's intercept is two steps and its slope is {@code 1/β + 1/(2γ)}. Where the reduce would
     * explain nearly all of the slope (the copy and the reduce overlap on a machine whose kernel is slow), the rate is
     * the line's own, reduce included, which prices the ring no faster than measured.
     */
    static Link ringLink(Fit line, double reduceGbPerSecond) {
        double microsPerByte = 1 / (line.gbPerSecond() * 1e3);
        double reducePerByte = 1 / (2 * reduceGbPerSecond * 1e3);
        double linkPerByte = microsPerByte - reducePerByte;
        boolean reduceExplainsSlope = linkPerByte < microsPerByte * MIN_LINK_SHARE;
        double gbPerSecond = reduceExplainsSlope ? line.gbPerSecond() : 1 / (linkPerByte * 1e3);
        return new Link(line.latencyMicros() / 2, gbPerSecond, reduceExplainsSlope);
    }

    private static String note(String what, String how, Fit f) {
        return String.format(
                Locale.ROOT, "%s: %s, 2 ranks; the line's worst size is %.0f%% off", what, how, 100 * f.worstError());
    }

    /** Times {@code benchmark} at sizes 8 B to {@code maxBytes} (x4), medians over the runs. */
    private List<Sample> measure(String benchmark, long maxBytes, Map<String, String> extra)
            throws IOException, InterruptedException {
        return measureSizes(benchmark, 8, maxBytes, extra, null, 2);
    }

    /** As above from {@code minBytes}, with {@code ranks} local ranks, all pinned to {@code pinTo} CPUs if not null. */
    private List<Sample> measureSizes(
            String benchmark, long minBytes, long maxBytes, Map<String, String> extra, String pinTo, int ranks)
            throws IOException, InterruptedException {
        Map<Long, List<Double>> times = new TreeMap<>();
        for (int run = 0; run < effort.runs(); run++) {
            for (PerfRow row : runOnce(benchmark, minBytes, maxBytes, extra, pinTo, ranks)) {
                if (!row.inPlace()) {
                    times.computeIfAbsent(row.size(), k -> new ArrayList<>()).add(row.timeUs());
                }
            }
        }
        List<Sample> samples = new ArrayList<>();
        for (Map.Entry<Long, List<Double>> e : times.entrySet()) {
            List<Double> t = new ArrayList<>(e.getValue());
            t.sort(null);
            samples.add(new Sample(e.getKey(), t.get(t.size() / 2)));
        }
        return samples;
    }

    private List<PerfRow> runOnce(
            String benchmark, long minBytes, long maxBytes, Map<String, String> extra, String pinTo, int ranks)
            throws IOException, InterruptedException {
        Path json = Files.createTempFile("jccl-calibrate", ".json");
        try {
            Map<String, String> base = new HashMap<>(env);
            base.putAll(extra);
            base.put("JCCL_CALIBRATION", "none"); // the runs force their algorithm; a broken file is not their business
            List<Map<String, String>> environments = RankEnvironment.localJob(base, ranks, null);
            List<String> cmd = new ArrayList<>();
            if (pinTo != null) cmd.addAll(List.of("taskset", "-c", pinTo));
            cmd.addAll(PerfCommand.perfInThisJvm(false));
            cmd.addAll(List.of(
                    benchmark,
                    "-b",
                    Long.toString(minBytes),
                    "-e",
                    Long.toString(maxBytes),
                    "-f",
                    "4",
                    "-z",
                    "2",
                    "-c",
                    "0",
                    "-n",
                    Integer.toString(effort.iters()),
                    "-w",
                    "5",
                    "--warmup-time",
                    effort.warmupSeconds(),
                    "--json",
                    json.toString()));
            RankSupervisor job = new RankSupervisor(
                    "jccl perf --calibrate",
                    cmd,
                    environments,
                    new LineSink(OutputStream.nullOutputStream()),
                    new LineSink(err),
                    RankSupervisor.Output.PREFIXED);
            int rc = job.run(JOB_LIMIT);
            if (rc != 0) {
                throw new IllegalStateException("the calibration run `" + benchmark + "` with " + extra
                        + " failed (exit " + rc + "); the ranks' messages are above");
            }
            return PerfReports.read(json).rows();
        } finally {
            Files.deleteIfExists(json);
        }
    }

    /**
     * The straight line {@code t = a + b·k·bytes} through the samples ({@code k}: bytes of traffic per byte of message)
     * that is closest relative to each time, so that 8 B weighs as much as 16 MiB; a negative intercept is taken as 0
     * and the slope refitted.
     */
    static Fit fit(List<Sample> samples, double trafficPerByte) {
        if (samples.size() < 2) throw new IllegalStateException("a line needs two sizes, got " + samples.size());
        double sw = 0;
        double swx = 0;
        double swxx = 0;
        double swt = 0;
        double swxt = 0;
        for (Sample s : samples) {
            double w = 1 / (s.micros() * s.micros());
            double x = s.bytes() * trafficPerByte;
            sw += w;
            swx += w * x;
            swxx += w * x * x;
            swt += w * s.micros();
            swxt += w * x * s.micros();
        }
        double det = sw * swxx - swx * swx;
        double a = (swt * swxx - swx * swxt) / det;
        double b = (sw * swxt - swx * swt) / det;
        if (a < 0) {
            a = 0;
            b = swxt / swxx;
        }
        if (!(b > 0)) {
            throw new IllegalStateException("the times do not grow with the size (slope " + b
                    + " µs per byte); the machine was too busy to measure: run it again on a quiet machine");
        }
        double worst = 0;
        for (Sample s : samples) {
            double model = a + b * s.bytes() * trafficPerByte;
            worst = Math.max(worst, Math.abs(model - s.micros()) / s.micros());
        }
        return new Fit(a, 1 / (b * 1e3), worst);
    }

    /**
     * The largest cache of {@code cacheDir} ({@code /sys/devices/system/cpu/cpu0/cache}: an {@code index*} folder per
     * cache with its {@code level} and {@code size}, such as {@code 32768K}), in MiB; 0 where none can be read.
     */
    static double lastLevelCacheMib(Path cacheDir) {
        int bestLevel = 0;
        double bestMib = 0;
        try (var dirs = Files.newDirectoryStream(cacheDir, "index*")) {
            for (Path d : dirs) {
                try {
                    int level = Integer.parseInt(
                            Files.readString(d.resolve("level")).strip());
                    double mib = sizeMib(Files.readString(d.resolve("size")).strip());
                    if (level > bestLevel || (level == bestLevel && mib > bestMib)) {
                        bestLevel = level;
                        bestMib = mib;
                    }
                } catch (IOException | NumberFormatException e) {
                    // a cache without a readable level or size: the others still say which is last
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return bestMib;
    }

    private static double sizeMib(String size) {
        if (size.isEmpty()) throw new NumberFormatException("an empty size");
        char unit = Character.toUpperCase(size.charAt(size.length() - 1));
        String digits = Character.isDigit(unit) ? size : size.substring(0, size.length() - 1);
        double value = Long.parseLong(digits);
        return switch (unit) {
            case 'K' -> value / 1024;
            case 'M' -> value;
            case 'G' -> value * 1024;
            default -> value / (1 << 20);
        };
    }

    private static double median(List<Sample> samples) {
        List<Double> t = new ArrayList<>();
        for (Sample s : samples) t.add(s.micros());
        t.sort(null);
        return t.get(t.size() / 2);
    }

    /**
     * γ of {@code type}: SUM of two 1 MiB buffers into a third, after a warm-up long enough for the JIT, median of 5,
     * in GB/s of one operand.
     */
    static double reduceRate(DataType type) {
        long bytes = 1 << 20;
        long count = bytes / type.byteSize();
        ReduceKernel kernel = ReduceKernels.of(type, ReduceOp.SUM);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(bytes, 64);
            MemorySegment b = arena.allocate(bytes, 64);
            MemorySegment dst = arena.allocate(bytes, 64);
            long warmUntil = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < warmUntil) kernel.apply(a, 0, b, 0, dst, 0, count);
            List<Double> rates = new ArrayList<>();
            for (int round = 0; round < 5; round++) {
                int reps = 50;
                long t0 = System.nanoTime();
                for (int i = 0; i < reps; i++) kernel.apply(a, 0, b, 0, dst, 0, count);
                double micros = (System.nanoTime() - t0) / 1e3 / reps;
                rates.add(bytes / micros / 1e3);
            }
            rates.sort(null);
            return rates.get(2);
        }
    }

    /**
     * Up to {@code n} CPUs this process may run on, to pin a run's ranks to, or none where {@code taskset} is missing
     * (Linux's {@code Cpus_allowed_list} names the allowed CPUs, as lists and ranges: {@code 0-3,8}).
     */
    private static List<String> pinnableCpus(int n) {
        boolean taskset = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "taskset"))) taskset = true;
        }
        if (!taskset) return List.of();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return firstCpus(line.substring(line.indexOf(':') + 1).trim(), n);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no pinning
        }
        return List.of();
    }

    /** The first {@code n} CPUs of a kernel CPU list such as {@code 0-3,8}. */
    static List<String> firstCpus(String list, int n) {
        List<String> cpus = new ArrayList<>();
        for (String part : list.split(",")) {
            if (part.isBlank()) continue;
            String[] range = part.trim().split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            for (int cpu = from; cpu <= to && cpus.size() < n; cpu++) cpus.add(Integer.toString(cpu));
            if (cpus.size() == n) break;
        }
        return cpus;
    }
}
