package dev.jccl.tools;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.LaunchEnvironment;
import dev.jccl.plan.CalibrationFile;
import dev.jccl.tools.perf.PerfBenchmark;
import dev.jccl.tools.perf.PerfCollective;
import dev.jccl.tools.perf.PerfDevice;
import dev.jccl.tools.perf.PerfOptions;
import dev.jccl.tools.perf.PerfReport;
import dev.jccl.tools.perf.PerfTarget;
import dev.jccl.tools.perf.PlotCommand;
import dev.jccl.tools.perf.SizeSweep;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * {@code jccl perf <benchmark>}: nccl-tests for Jccl. Same flags, same defaults, same table. It runs as one rank per
 * process: {@code -np N} starts N local processes itself; under {@code mpirun}, {@code srun} or {@code jccl run} each
 * process joins as the launcher says; with neither, the process is a communicator of one rank.
 */
@Command(
        name = "perf",
        mixinStandardHelpOptions = true,
        subcommands = PlotCommand.class,
        description = {
            "Measure a collective like nccl-tests does and print its table: size, count, type, redop, root,"
                    + " then time, algbw, busbw and #wrong, out-of-place and in-place.",
            "BENCHMARK is all_reduce, all_gather, broadcast, reduce, reduce_scatter, alltoall or sendrecv."
                    + " Flags and defaults are nccl-tests' own; sizes take K, M, G suffixes (binary).",
            "Exit code 1 when any element is wrong."
        },
        footer = {
            "",
            "Examples:",
            "  jccl perf all_reduce -np 4 -b 8 -e 64M -f 4             # 4 local ranks, "
                    + "sizes 8 B to 64 MiB, x4 each step",
            "  jccl perf all_gather -np 2 -d all -c 1 --json ag.json    # every type, write the rows as JSON",
            "  jccl perf all_reduce -np 2 --device cuda -e 1G -f 2      # GPU buffers (NCCL, or staged)",
            "  mpirun -np 8 -x JCCL_ROOT=host0 jccl perf all_reduce -b 1M -e 1G -f 2",
            "  jccl perf plot ag.json ar.json -o busbw.png             # draw busbw against size",
            "  jccl perf --calibrate                                    # measure the tuner's figures here"
        })
final class PerfCommand implements Callable<Integer> {
    /**
     * Set by {@code perf -np} on its rank 0 when the launcher's own output is a terminal (a system property rather than
     * a variable, so that Jccl's check for misspelt JCCL_ variables stays quiet).
     */
    static final String PROGRESS_PROPERTY = "jccl.perf.progress";

    @ParentCommand
    private JcclCommand parent;

    @Spec
    private CommandSpec spec;

    // Optional to picocli only so that `perf plot …` parses; call() insists on it.
    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "BENCHMARK",
            description = "all_reduce, all_gather, broadcast, reduce, reduce_scatter, alltoall or sendrecv")
    private String benchmark;

    @Option(
            names = {"-b", "--minbytes"},
            paramLabel = "SIZE",
            defaultValue = "32M",
            description = "Smallest size (default ${DEFAULT-VALUE}).")
    private String minBytes;

    @Option(
            names = {"-e", "--maxbytes"},
            paramLabel = "SIZE",
            defaultValue = "32M",
            description = "Largest size (default ${DEFAULT-VALUE}).")
    private String maxBytes;

    @Option(
            names = {"-i", "--stepbytes"},
            paramLabel = "SIZE",
            defaultValue = "1M",
            description = "Size increment when -f is 1 (default ${DEFAULT-VALUE}).")
    private String stepBytes;

    @Option(
            names = {"-f", "--stepfactor"},
            paramLabel = "N",
            defaultValue = "1",
            description = "Size multiplier between rows (default ${DEFAULT-VALUE}: use -i).")
    private long stepFactor;

    @Option(
            names = {"-n", "--iters"},
            paramLabel = "N",
            defaultValue = "20",
            description = "Timed iterations per row (default ${DEFAULT-VALUE}).")
    private int iters;

    @Option(
            names = {"-w", "--warmup_iters"},
            paramLabel = "N",
            defaultValue = "5",
            description = "Warm-up iterations (default ${DEFAULT-VALUE}).")
    private int warmupIters;

    @Option(
            names = "--warmup-time",
            paramLabel = "SECONDS",
            defaultValue = "3",
            description = "JVM warm-up before the first row: the first case runs at the largest and "
                    + "smallest size until this many seconds have passed on every rank, so the "
                    + "rows time compiled code (default ${DEFAULT-VALUE}; 0 for none).")
    private double warmupSeconds;

    @Option(
            names = {"-c", "--check"},
            paramLabel = "N",
            defaultValue = "1",
            description = "Checked iterations per row; 0 turns checking off (default ${DEFAULT-VALUE}).")
    private int check;

    @Option(
            names = {"-o", "--op"},
            paramLabel = "OP",
            defaultValue = "sum",
            description = "sum, prod, min, max, avg or all (default ${DEFAULT-VALUE}).")
    private String op;

    @Option(
            names = {"-d", "--datatype"},
            paramLabel = "TYPE",
            defaultValue = "float",
            description = "int8, uint8, int32, uint32, int64, uint64, half, bfloat16, float, double "
                    + "or all (default ${DEFAULT-VALUE}).")
    private String datatype;

    @Option(
            names = {"-r", "--root"},
            paramLabel = "ROOT",
            defaultValue = "0",
            description = "Root rank of broadcast/reduce, or all (default ${DEFAULT-VALUE}).")
    private String root;

    @Option(
            names = {"-z", "--blocking"},
            paramLabel = "0|1|2",
            defaultValue = "0",
            description = "0: issue the iterations asynchronously, wait at the end; 1: blocking calls "
                    + "and a barrier after each; 2: blocking calls back to back, as MPI benchmarks "
                    + "time them (default ${DEFAULT-VALUE}).")
    private int blocking;

    @Option(
            names = {"-a", "--average"},
            paramLabel = "0-3",
            defaultValue = "1",
            description = "Time reported across ranks: 0 rank 0's, 1 mean, 2 min, 3 max (default ${DEFAULT-VALUE}).")
    private int average;

    @Option(
            names = "-np",
            paramLabel = "N",
            description = "Start N local ranks (processes) and run the benchmark across them.")
    private Integer localRanks;

    @Option(
            names = "--json",
            paramLabel = "FILE",
            description = "Also write every row, with the run's facts, as JSON (read by `jccl perf plot`).")
    private Path json;

    @Option(
            names = "--plot",
            paramLabel = "PNG",
            description = "Also draw busbw against size for this run (for several runs: --json, then `perf plot`).")
    private Path plot;

    @Option(
            names = "--ifname",
            paramLabel = "FILTER",
            description = "With -np: interface for the ranks (default: JCCL_SOCKET_IFNAME if set, else lo).")
    private String ifname;

    @Option(
            names = {"-T", "--timeout"},
            paramLabel = "DURATION",
            description = "Stop after this long (seconds, or 30s, 5m) and exit 124: with -np every rank, under a "
                    + "launcher each process (nccl-tests' -T).")
    private String timeout;

    // nccl-tests' remaining flags: accepted with their meaning where it applies; where it cannot, a note
    // in the header or a refusal that says why (see NcclTestsFlags).

    @Option(
            names = {"-t", "--nthreads"},
            paramLabel = "N",
            defaultValue = "1",
            description = "nccl-tests' threads per process; Jccl perf runs one rank per process, so only 1.")
    private int threads;

    @Option(
            names = {"-g", "--ngpus"},
            paramLabel = "N",
            defaultValue = "1",
            description = "nccl-tests' GPUs per thread; one device (--device) per rank, so only 1.")
    private int gpus;

    @Option(
            names = {"-m", "--agg_iters"},
            paramLabel = "N",
            defaultValue = "1",
            description = "Operations per iteration, issued together and waited for together; times are per "
                    + "operation (default ${DEFAULT-VALUE}).")
    private int aggIters;

    @Option(
            names = {"-N", "--run_cycles"},
            paramLabel = "N",
            defaultValue = "1",
            description = "Run the sweep N times, printing each; 0 runs until stopped (default ${DEFAULT-VALUE}).")
    private int cycles;

    @Option(
            names = {"-p", "--parallel_init"},
            paramLabel = "0|1",
            defaultValue = "0",
            description = "nccl-tests' threaded init; one rank per process inits on its own (noted, no effect).")
    private int parallelInit;

    @Option(
            names = {"-G", "--cudagraph"},
            paramLabel = "N",
            defaultValue = "0",
            description = "nccl-tests' CUDA graph replays; Jccl issues plain calls (noted in the header).")
    private int cudaGraphs;

    @Option(
            names = {"-C", "--report_cputime"},
            paramLabel = "0|1",
            defaultValue = "0",
            description = "nccl-tests' CPU-time report; Jccl's times are taken on the CPU's clock either way.")
    private int cpuTime;

    @Option(
            names = {"-R", "--local_register"},
            paramLabel = "0|1|2",
            defaultValue = "0",
            description = "nccl-tests' buffer registration; Jccl registers nothing ahead (noted in the header).")
    private int register;

    @Option(
            names = "--device",
            paramLabel = "host|cuda",
            defaultValue = "host",
            description = "Where the buffers live: host (default) or cuda, GPU memory, one GPU per "
                    + "local rank (local rank modulo the GPUs seen)."
                    + " Device buffers go to NCCL where every rank can load it and has its own "
                    + "GPU, else they are staged through pinned host"
                    + " memory; the header says which and why (JCCL_CUDA_PATH=staged|nccl chooses).")
    private String device;

    @Option(
            names = "--calibrate",
            description = "Instead of a benchmark: measure the tuner's figures on this machine (shared memory,"
                    + " sockets, the LL outbox, the reduce kernels on 2 local ranks; a step's hand-off on 4 ranks that"
                    + " share 2 CPUs; about three minutes) and"
                    + " write them to the calibration file that every communicator reads.")
    private boolean calibrate;

    @Option(
            names = "--calibration-file",
            paramLabel = "FILE",
            description = "With --calibrate: where to write (default: JCCL_CALIBRATION, else"
                    + " ~/.config/jccl/calibration.properties).")
    private Path calibrationFile;

    /** A calibration of a few small sizes, once: proves the pipeline in tests, measures nothing worth keeping. */
    @Option(names = "--calibrate-quick", hidden = true)
    private boolean calibrateQuick;

    /** Damages one received element before the check, to prove that a wrong result is reported (tests use it). */
    @Option(names = "--debug-corrupt", hidden = true)
    private boolean corrupt;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (calibrate) return calibrate();
        // A progress line on a terminal, or when perf -np (on one) asks for it; PerfBenchmark draws it on rank 0 only.
        PerfOptions options = options(Boolean.getBoolean(PROGRESS_PROPERTY) || onTerminal());
        Map<String, String> env = parent.environment();
        PerfDevice where = PerfDevice.parse(spec.commandLine(), device);
        String noDevice = where.unavailable(env);
        if (noDevice != null) {
            // Said once, by the launcher, before any rank starts: the run cannot do what was asked.
            parent.err().println("jccl perf: " + noDevice);
            parent.err().flush();
            return PerfDevice.NO_DEVICE_EXIT;
        }
        NcclTestsFlags flags = ncclTestsFlags();
        if (localRanks != null) return runLocalRanks(env);
        Config config = Config.fromEnvironment(env);
        Duration limit = RankEnvironment.parseTimeout(spec.commandLine(), timeout);
        if (limit != null) Watchdog.exitAfter(limit, parent.err());
        boolean launched = LaunchEnvironment.launched(env);
        int localRank = launched ? Math.max(0, LaunchEnvironment.detect(env).localRank()) : 0;
        try (Communicator comm = launched ? join(env, config) : Jccl.init(0, 1, UniqueId.create(config), config);
                PerfTarget target = where.open(comm, localRank, env)) {
            if (comm.rank() == 0) flags.notes().forEach(parent.out()::println);
            long wrongRows = 0;
            for (int cycle = 0; cycles == 0 || cycle < cycles; cycle++) {
                PerfReport report = new PerfBenchmark(comm, target, options, parent.out(), parent.err()).run();
                wrongRows += report.outOfBounds();
            }
            return wrongRows == 0 ? 0 : 1;
        }
    }

    private int calibrate() throws IOException, InterruptedException {
        if (benchmark != null || localRanks != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--calibrate runs its own benchmarks on 2 local ranks; leave out "
                            + (benchmark != null ? "BENCHMARK (" + benchmark + ")" : "-np"));
        }
        Map<String, String> env = parent.environment();
        Path file = calibrationFile;
        if (file == null) {
            String named = Config.fromEnvironment(env).calibration();
            file = named == null || named.equalsIgnoreCase("none") ? CalibrationFile.defaultPath(env) : Path.of(named);
        }
        Calibrator.Effort effort = calibrateQuick ? Calibrator.Effort.QUICK : Calibrator.Effort.FULL;
        try {
            return new Calibrator(env, parent.out(), parent.err(), effort).run(file);
        } catch (IllegalStateException e) {
            parent.err().println("jccl perf --calibrate: " + e.getMessage() + "; nothing was written");
            return 1;
        }
    }

    private static Communicator join(Map<String, String> env, Config config) {
        LaunchEnvironment.Launch launch = LaunchEnvironment.detect(env);
        return Jccl.init(launch.rank(), launch.size(), launch.id(), config);
    }

    /** {@code -np N}: this process only launches; N children run the benchmark, rank 0 prints. */
    private int runLocalRanks(Map<String, String> env) throws IOException, InterruptedException {
        if (localRanks < 1) {
            throw new ParameterException(spec.commandLine(), "-np must be at least 1, got " + localRanks);
        }
        Duration limit = RankEnvironment.parseTimeout(spec.commandLine(), timeout);
        boolean terminal = onTerminal();
        List<Map<String, String>> environments = RankEnvironment.localJob(env, localRanks, ifname);
        RankSupervisor job = new RankSupervisor(
                "jccl perf",
                rankCommand(terminal),
                environments,
                new LineSink(parent.out()),
                new LineSink(parent.err()),
                new RankSupervisor.Output(false, terminal));
        return job.run(limit);
    }

    /**
     * This same program, minus {@code -np N}, in a fresh JVM of the running kind. Only rank 0 draws progress, and its
     * stderr is ours, so the property reaches every rank harmlessly.
     */
    private List<String> rankCommand(boolean progress) {
        List<String> cmd = perfInThisJvm(progress);
        cmd.addAll(argumentsWithoutLocalRanks());
        return cmd;
    }

    /** {@code jccl perf} in a fresh JVM of the running kind, to which a rank's arguments are added. */
    static List<String> perfInThisJvm(boolean progress) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-D" + PROGRESS_PROPERTY + "=" + progress));
        // The ranks reduce with the fastest kernels this Java runtime has: the Vector API's wherever its module is
        // there, also when this JVM was started without it (java -jar jccl.jar, as the GPU bundle's run.sh does).
        if (java.lang.module.ModuleFinder.ofSystem()
                .find("jdk.incubator.vector")
                .isPresent()) {
            cmd.addAll(List.of("--add-modules", "jdk.incubator.vector"));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), JcclCommand.class.getName(), "perf"));
        return cmd;
    }

    private List<String> argumentsWithoutLocalRanks() {
        List<String> original = perfArguments();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < original.size(); i++) {
            String a = original.get(i);
            if (a.equals("-np")) {
                i++;
                continue;
            }
            if (a.startsWith("-np=")) continue;
            out.add(a);
        }
        return out;
    }

    /** The arguments after {@code perf} (picocli's original arguments start at {@code jccl}'s). */
    private List<String> perfArguments() {
        List<String> all = spec.commandLine().getParseResult().originalArgs();
        int at = all.indexOf(spec.name());
        return at < 0 ? all : all.subList(at + 1, all.size());
    }

    private static boolean onTerminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }

    /** nccl-tests' flags that Jccl takes with another or no meaning: refused here, or noted by rank 0. */
    private NcclTestsFlags ncclTestsFlags() {
        try {
            return new NcclTestsFlags(threads, gpus, cycles, parallelInit, cudaGraphs, cpuTime, register);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private PerfOptions options(boolean progress) {
        if (benchmark == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "which benchmark? Name one of all_reduce, all_gather, broadcast, reduce,"
                            + " reduce_scatter, alltoall, sendrecv (or `perf plot FILE…` to draw a --json report)");
        }
        if (json != null) checkWritable("--json", json);
        if (plot != null) checkWritable("--plot", plot);
        try {
            PerfCollective collective = PerfCollective.parse(benchmark);
            SizeSweep sweep = new SizeSweep(
                    SizeSweep.parseSize("-b", minBytes),
                    SizeSweep.parseSize("-e", maxBytes),
                    stepFactor,
                    SizeSweep.parseSize("-i", stepBytes));
            sweep.sizes(); // refuses absurd row counts now, not after connecting
            return new PerfOptions(
                    collective,
                    sweep,
                    iters,
                    warmupIters,
                    warmupSeconds,
                    check,
                    ops(),
                    types(),
                    roots(),
                    PerfOptions.Calls.of(blocking),
                    average,
                    corrupt,
                    json,
                    plot,
                    progress,
                    perfArguments(),
                    aggIters);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** An output path whose directory is missing would only fail after the whole sweep; say so now. */
    private void checkWritable(String option, Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !java.nio.file.Files.isDirectory(dir)) {
            throw new ParameterException(
                    spec.commandLine(), option + " " + file + ": directory " + dir + " does not exist");
        }
        if (java.nio.file.Files.isDirectory(file)) {
            throw new ParameterException(spec.commandLine(), option + " " + file + " is a directory; give a file name");
        }
    }

    private List<ReduceOp> ops() {
        // nccl-tests' order for -o all.
        if (op.equalsIgnoreCase("all")) {
            return List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG);
        }
        return List.of(ReduceOp.parse(op));
    }

    private List<DataType> types() {
        if (datatype.equalsIgnoreCase("all")) {
            // nccl-tests' order for -d all.
            return List.of(
                    DataType.INT8,
                    DataType.UINT8,
                    DataType.INT32,
                    DataType.UINT32,
                    DataType.INT64,
                    DataType.UINT64,
                    DataType.FLOAT16,
                    DataType.FLOAT32,
                    DataType.FLOAT64,
                    DataType.BFLOAT16);
        }
        return List.of(DataType.parse(datatype));
    }

    private List<Integer> roots() {
        if (root.equalsIgnoreCase("all")) return null;
        try {
            return List.of(Integer.parseInt(root.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-r takes a rank number or all, got '" + root + "'");
        }
    }
}
