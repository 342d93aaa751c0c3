package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Calibration;
import dev.jccl.plan.CalibrationFile;
import dev.jccl.plan.Collective;
import dev.jccl.plan.TimingSimulator;
import dev.jccl.plan.TimingSimulator.Level;
import dev.jccl.plan.TimingSimulator.Machine;
import dev.jccl.plan.Tuner;
import dev.jccl.tools.perf.PerfCollective;
import dev.jccl.tools.perf.SizeSweep;
import dev.jccl.topology.CpuSharing;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code jccl sim}: every algorithm's real schedules on a model cluster ({@link TimingSimulator}), with the tuner's
 * pick beside them, for a sweep of sizes like {@code perf}'s.
 */
@Command(
        name = "sim",
        mixinStandardHelpOptions = true,
        description = {
            "Predict each algorithm's time and bus bandwidth on a model cluster by running every rank's real "
                    + "schedule (the plans the runtime executes) on a discrete-event model, and show the tuner's "
                    + "pick. Nothing is sent: any number of hosts and ranks, up to 4096 ranks in seconds.",
            "Example: jccl sim all_reduce --hosts 8 --ranks-per-host 128 -b 8 -e 256M"
        })
final class SimCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(
            index = "0",
            defaultValue = "all_reduce",
            paramLabel = "BENCHMARK",
            description =
                    "all_reduce, all_gather, broadcast, reduce, reduce_scatter or alltoall (default: all_reduce).")
    private String benchmark;

    @Option(names = "--hosts", paramLabel = "H", defaultValue = "1", description = "Hosts (default: 1).")
    private int hosts;

    @Option(
            names = "--ranks-per-host",
            paramLabel = "L",
            defaultValue = "8",
            description = "Ranks on each host (default: 8).")
    private int ranksPerHost;

    @Option(names = "-b", paramLabel = "SIZE", defaultValue = "8", description = "Smallest size (default: 8).")
    private String minBytes;

    @Option(names = "-e", paramLabel = "SIZE", defaultValue = "256M", description = "Largest size (default: 256M).")
    private String maxBytes;

    @Option(names = "-f", paramLabel = "FACTOR", defaultValue = "8", description = "Size factor (default: 8).")
    private long factor;

    @Option(
            names = "--intra",
            paramLabel = "US,GBPS",
            description = "A step's latency (µs) and the bandwidth (GB/s) between ranks of a host (default: the"
                    + " tuner's shared-memory figures, from the calibration file or built in: 1.5,6, and 10 GB/s while"
                    + " the buffers fit in the figures' cache, built in 32 MiB); a quarter of the latency is paid per"
                    + " message. Given, it is the one rate at every size.")
    private String intra;

    @Option(
            names = "--inter",
            paramLabel = "US,GBPS",
            description = "A step's latency (µs) and the bandwidth (GB/s) of a host's network link, shared by its ranks"
                    + " (default: the tuner's socket figures, from the calibration file or built in: 12,2.5;"
                    + " 5,25 is a 200 Gb/s RDMA NIC).")
    private String inter;

    @Option(
            names = "--gamma",
            paramLabel = "GBPS",
            description = "What a rank reduces per second, GB/s (default: the calibration's, built in 16).")
    private Double gamma;

    @Option(
            names = "--cpus-per-host",
            paramLabel = "C",
            description = "CPUs each host's ranks share (default: one per rank). Fewer than the ranks time-slices their"
                    + " work and makes every transfer wait for a hand-off (--handoff).")
    private Integer cpusPerHost;

    @Option(
            names = "--handoff",
            paramLabel = "US",
            description = "Where two ranks share each CPU, what a step of a schedule waits for its partner to run in a"
                    + " loop of calls, µs; other shares scale it by (ranks per CPU - 1)^1.2 (default: the"
                    + " calibration's handoff.step.us, built in 2.3).")
    private Double handoff;

    @Option(
            names = "--calibration",
            paramLabel = "FILE",
            description = "Figures for the defaults above: a file `jccl perf --calibrate` wrote, or none for the"
                    + " built-in ones (default: JCCL_CALIBRATION, else ~/.config/jccl/calibration.properties if"
                    + " present).")
    private String calibrationFile;

    @ParentCommand
    private JcclCommand parent;

    @Override
    public Integer call() {
        PerfCollective bench = parseBenchmark();
        if (bench == PerfCollective.SENDRECV) throw usage("sim covers collectives; sendrecv has one algorithm");
        if (factor < 2) throw usage("-f must be at least 2, got " + factor);
        Config config = Config.fromEnvironment(parent.environment());
        if (calibrationFile != null) {
            config = config.toBuilder().calibration(calibrationFile).build();
        }
        CalibrationFile.Loaded loaded = Calibrations.load(config, parent.environment());
        PrintWriter out = spec.commandLine().getOut();
        loaded.warnings().forEach(w -> out.println("# warning: " + w));
        Calibration figures = loaded.calibration();
        Machine machine;
        Calibration tuned;
        try {
            double[] in = figures("--intra", intra, figures.shmStepMicros(), figures.shmGbPerSecond());
            double[] across = figures("--inter", inter, figures.netStepMicros(), figures.netGbPerSecond());
            double reduce = gamma != null ? gamma : figures.reduceGbPerSecond();
            double stepWait = handoff != null ? handoff : figures.stepHandoffMicros();
            // The figures' two shared-memory rates, in the cache and beyond it, unless --intra gives the one rate.
            double inCacheRate = intra != null ? in[1] : figures.shmCachedGbPerSecond();
            double cacheMib = intra != null ? 0 : figures.cacheMib();
            int cpus = cpusPerHost != null ? cpusPerHost : ranksPerHost;
            // Each transfer waits for its receiver as a step of a loop of calls does, at this machine's ranks per CPU.
            double wait = figures.with(Map.of("handoff.step.us", stepWait), figures.source())
                    .lockstepHandoffMicros(CpuSharing.ranksPerCpu(ranksPerHost, cpus));
            machine = new Machine(
                    hosts,
                    ranksPerHost,
                    Level.ofStep(in[0], in[1]),
                    Level.ofStep(across[0], across[1]),
                    reduce,
                    cpus,
                    wait,
                    Level.ofStep(in[0], inCacheRate),
                    cacheMib);
            // The tuner picks with the figures the model runs on.
            tuned = figures.with(
                    Map.of(
                            "shm.step.us",
                            in[0],
                            "shm.bandwidth.gbps",
                            in[1],
                            "shm.cached.bandwidth.gbps",
                            inCacheRate,
                            "cache.mib",
                            cacheMib,
                            "net.step.us",
                            across[0],
                            "net.bandwidth.gbps",
                            across[1],
                            "reduce.gbps",
                            reduce,
                            "handoff.step.us",
                            stepWait),
                    figures.source());
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        int n = machine.ranks();
        Collective c = bench.collective();
        // The simulated machine's ranks of one host share memory, so the runtime would cut a quarter of the buffer.
        int chunk = config.chunkBytes(false, machine.oversubscribed());
        Tuner tuner = new Tuner(
                n,
                machine.hostGroups(),
                hosts == 1,
                hosts > 1,
                machine.oversubscribed(),
                machine.cpuShare(),
                null,
                "Simple",
                tuned,
                chunk);
        List<Tuner.Algorithm> algorithms = new ArrayList<>();
        for (Tuner.Algorithm a : Tuner.Algorithm.values()) {
            if (tuner.canRun(c, a, Tuner.Protocol.SIMPLE)) algorithms.add(a);
        }
        out.printf(
                Locale.ROOT,
                "# jccl sim %s: %d host(s) × %d ranks = %d ranks; intra-host %s, inter-host %s, reduce %.1f GB/s;"
                        + "%s float32, sum, chunks of %d bytes; figures: %s%n",
                bench.cliName(),
                hosts,
                ranksPerHost,
                n,
                describe(machine.intraHost())
                        + (machine.cacheMib() > 0
                                ? String.format(
                                        Locale.ROOT,
                                        " (%.1f GB/s while a host's buffers fit in %.0f MiB of cache)",
                                        machine.intraHostInCache().gbPerSecond(),
                                        machine.cacheMib())
                                : ""),
                describe(machine.interHost()),
                machine.reduceGbPerSecond(),
                machine.oversubscribed()
                        ? String.format(
                                Locale.ROOT,
                                " %d CPUs per host (hand-off %.2f µs a step);",
                                machine.cpusPerHost(),
                                machine.handoffMicros())
                        : "",
                chunk,
                figures.source());
        out.print(String.format(Locale.ROOT, "# %10s", "size"));
        for (Tuner.Algorithm a : algorithms) out.printf(Locale.ROOT, " %28s", a.displayName() + " µs  busbw");
        out.printf(Locale.ROOT, "  %-18s %s%n", "tuner's pick", "pick / best");
        boolean skipped = false;
        long min = SizeSweep.parseSize("-b", minBytes);
        long max = SizeSweep.parseSize("-e", maxBytes);
        for (long bytes = Math.max(min, 1); bytes <= max; bytes = Math.multiplyExact(bytes, factor)) {
            boolean blocked =
                    c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER || c == Collective.ALL_TO_ALL;
            long count = Math.max(1, (blocked ? bytes / n : bytes) / 4);
            long rowBytes = (blocked ? count * n : count) * 4;
            out.printf(Locale.ROOT, "  %10s", Tuner.sizeText(rowBytes));
            Tuner.Algorithm pick = tuner.choose(c, count, DataType.FLOAT32).algorithm();
            double best = Double.POSITIVE_INFINITY;
            double picked = Double.NaN;
            for (Tuner.Algorithm a : algorithms) {
                TimingSimulator.Result r = TimingSimulator.simulate(
                        machine,
                        c,
                        a,
                        count,
                        DataType.FLOAT32,
                        bench.reduces() ? ReduceOp.SUM : null,
                        bench.rooted() ? 0 : -1,
                        chunk);
                if (r.skipped()) {
                    out.printf(Locale.ROOT, " %16s%s %9s", "-", a == pick ? "*" : " ", "-");
                    skipped = true;
                    continue;
                }
                double busbw = rowBytes / r.micros() / 1e3 * bench.busFactor(n);
                out.printf(Locale.ROOT, " %16.1f%s %9.3f", r.micros(), a == pick ? "*" : " ", busbw);
                best = Math.min(best, r.micros());
                if (a == pick) picked = r.micros();
            }
            out.printf(
                    Locale.ROOT,
                    "  %-18s %s%n",
                    pick.displayName(),
                    Double.isNaN(picked) ? "-" : String.format(Locale.ROOT, "%.2f", picked / best));
            if (bytes > Long.MAX_VALUE / factor) break;
        }
        out.println("# µs: predicted time of the slowest rank; busbw in GB/s as perf computes it; * the tuner's pick");
        if (skipped) {
            out.printf(
                    Locale.ROOT,
                    "# -: more than %,d transfers over all ranks, not simulated%n",
                    TimingSimulator.MAX_TRANSFERS);
        }
        out.flush();
        return 0;
    }

    private PerfCollective parseBenchmark() {
        try {
            return PerfCollective.parse(benchmark);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** An option's latency and bandwidth, or the calibration's where the option is not given. */
    private double[] figures(String option, String text, double micros, double gbPerSecond) {
        if (text == null) return new double[] {micros, gbPerSecond};
        String[] parts = text.split(",");
        try {
            if (parts.length == 2) return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1])};
        } catch (NumberFormatException e) {
            // the message below says what is wanted
        }
        throw usage(option + " takes latency µs and bandwidth GB/s as two numbers, e.g. 1.5,6; got '" + text + "'");
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static String describe(Level l) {
        return String.format(
                Locale.ROOT,
                "%.2f µs %.1f GB/s (%.2f µs of it per message)",
                l.latencyMicros() + l.overheadMicros(),
                l.gbPerSecond(),
                l.overheadMicros());
    }
}
