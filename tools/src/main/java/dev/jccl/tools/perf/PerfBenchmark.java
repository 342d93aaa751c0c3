package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.concurrent.Futures;
import dev.jccl.plan.OpRequest;
import dev.jccl.plan.Planner;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.runtime.RuntimeCommunicator;
import dev.jccl.topology.CpuSharing;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one {@code jccl perf} sweep on one rank of a communicator, as nccl-tests' common.cu does: warm up at the largest
 * and smallest size, then for every size time {@code iters} operations out-of-place and in-place, combine the ranks'
 * times ({@code -a}), and check the result ({@code -c}). Every rank runs this; rank 0 prints the table and writes the
 * report.
 *
 * <p>Buffers (send, receive, expected) are allocated once, for the largest size, and zeroed when allocated, so no page
 * is faulted in while the clock runs.
 */
public final class PerfBenchmark {
    /** Seed of the data the timed operations carry; check {@code c} uses seed {@code c + 1}. */
    private static final long TIMING_SEED = 99;
    /** A sweep shorter than this shows no progress line. */
    static final long PROGRESS_AFTER_NANOS = 2_000_000_000L;

    private static final int DEVICE_LINE_BYTES = 256;

    private final Communicator comm;
    private final PerfTarget target;
    private final PerfOptions options;
    private final PrintStream out;
    private final ProgressLine progress;
    private final int rank;
    private final int ranks;
    private final List<PerfRow> rows = new ArrayList<>();
    private long outOfBounds;
    private double busbwSum;
    private int busbwCount;

    /**
     * Eight bytes of native memory for the bookkeeping collectives (time aggregation, wrong counts, warm-up agreement).
     */
    private final MemorySegment scalar = Arena.ofAuto().allocate(8, 8);

    private MemorySegment sendBuffer;
    private MemorySegment recvBuffer;
    private MemorySegment expectedBuffer;

    /**
     * @param out where rank 0 prints the table (other ranks print nothing there)
     * @param progressOut where rank 0 draws its progress line when {@link PerfOptions#progress()} is set
     */
    public PerfBenchmark(Communicator comm, PerfOptions options, PrintStream out, PrintStream progressOut) {
        this(comm, new HostTarget(comm), options, out, new ProgressLine(progressOut, PROGRESS_AFTER_NANOS));
    }

    /**
     * As above, with the operations run by {@code target} (device buffers for {@code --device cuda}); {@code comm}
     * still carries the bookkeeping (barriers, time aggregation, wrong counts).
     */
    public PerfBenchmark(
            Communicator comm, PerfTarget target, PerfOptions options, PrintStream out, PrintStream progressOut) {
        this(comm, target, options, out, new ProgressLine(progressOut, PROGRESS_AFTER_NANOS));
    }

    /** As above; tests shorten the time before the progress line appears. */
    PerfBenchmark(
            Communicator comm, PerfOptions options, PrintStream out, PrintStream progressOut, long progressAfterNanos) {
        this(comm, new HostTarget(comm), options, out, new ProgressLine(progressOut, progressAfterNanos));
    }

    private PerfBenchmark(
            Communicator comm, PerfTarget target, PerfOptions options, PrintStream out, ProgressLine progress) {
        this.comm = comm;
        this.target = target;
        this.options = options;
        this.out = out;
        this.progress = progress;
        this.rank = comm.rank();
        this.ranks = comm.size();
    }

    /** Runs the sweep; returns the report (complete on every rank; only rank 0 prints and writes it). */
    public PerfReport run() {
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Integer> roots = rootsToRun(); // every rank refuses a bad -r the same way, before any traffic
        long maxBytes = options.sweep().max();
        List<String> devices = gatherDeviceLines();
        Set<String> hosts = new LinkedHashSet<>();
        for (String d : devices) hosts.add(hostOf(d));
        String transport = target.transport(transportOf(comm));
        String algorithm = target.algorithm(algorithmAt(maxBytes));
        printHeader(devices, hosts.size(), transport, algorithm, maxBytes);

        try (Arena arena = Arena.ofShared()) {
            // Shared, because -z 0 runs operations on the communicator's progress thread.
            sendBuffer = arena.allocate(Math.max(1, maxBytes), 64);
            recvBuffer = arena.allocate(Math.max(1, maxBytes), 64);
            expectedBuffer = options.checks() > 0 ? arena.allocate(Math.max(1, maxBytes), 64) : MemorySegment.NULL;
            target.bind(sendBuffer, recvBuffer);
            warmUpTheJvm(roots.getFirst());
            progress.sweepStarted();
            for (DataType type : options.types()) {
                for (ReduceOp op : opsToRun()) {
                    for (int root : roots) timeTest(type, op, root);
                }
            }
        } finally {
            progress.erase();
            target.unbind();
        }
        double avg = busbwCount == 0 ? 0 : busbwSum / busbwCount;
        if (rank == 0) {
            out.print(PerfTable.footer(outOfBounds, avg));
            out.flush();
        }
        String label = transport + " " + algorithm + " " + ranks + (ranks == 1 ? " rank" : " ranks");
        PerfReport report = new PerfReport(
                PerfReports.TOOL,
                Jccl.version(),
                options.collective().cliName(),
                ranks,
                hosts.size(),
                transport,
                algorithm,
                label,
                hostOf(devices.getFirst()),
                started,
                options.arguments(),
                rows,
                outOfBounds,
                avg);
        if (rank == 0 && options.json() != null) PerfReports.write(report, options.json());
        if (rank == 0 && options.plot() != null) plot(report);
        return report;
    }

    private void plot(PerfReport report) {
        List<BusbwPlot.Run> run =
                List.of(new BusbwPlot.Run(options.plot().getFileName().toString(), report));
        BusbwPlot.Lines lines = BusbwPlot.lines(run, false);
        if (lines.lines().isEmpty()) {
            out.println("# --plot: nothing to draw (every row has size 0)");
            return;
        }
        BusbwPlot.write(lines.lines(), BusbwPlot.defaultTitle(run, false), 900, 560, options.plot());
        out.println("# Plot: " + options.plot());
    }

    private List<ReduceOp> opsToRun() {
        return options.collective().reduces() ? options.ops() : Arrays.asList((ReduceOp) null);
    }

    private List<Integer> rootsToRun() {
        if (!options.collective().rooted()) return List.of(-1);
        if (options.roots() == null) {
            List<Integer> all = new ArrayList<>();
            for (int r = 0; r < ranks; r++) all.add(r);
            return all;
        }
        for (int r : options.roots()) {
            if (r < 0 || r >= ranks) {
                throw new IllegalArgumentException(
                        "-r " + r + " is not a rank of this " + ranks + "-rank job; use 0.." + (ranks - 1) + " or all");
            }
        }
        return options.roots();
    }

    /** The longest warm-up, in multiples of {@code --warmup-time}, while some rank's compiler is still busy. */
    static final int WARMUP_LIMIT_FACTOR = 5;

    /**
     * The longest warm-up: {@link #WARMUP_LIMIT_FACTOR} times {@code --warmup-time}, and that many times more again
     * where the job's ranks outnumber this host's CPUs, whose every rank's compiler then runs on the same few CPUs. 16
     * ranks on 2 CPUs, AllReduce of 256 KiB: cut off at 15 s, the compilers still busy, it read 14-17 ms a call; with
     * the warm-up left to end when they were idle, 0.49-0.55 (2026-11-28). Ranks on other hosts count too, which only
     * lengthens a bound that is reached while some compiler is still busy.
     */
    private double warmupLimitSeconds() {
        double ranksPerCpu = CpuSharing.ranksPerCpu(ranks, Runtime.getRuntime().availableProcessors());
        return WARMUP_LIMIT_FACTOR * ranksPerCpu * options.warmupSeconds();
    }

    /**
     * Runs the first case at every size of the sweep, out of place and in place, with the barrier and time aggregation
     * of a row, in rounds, until {@code --warmup-time} has passed on every rank (the ranks agree through an AllReduce,
     * so they stop after the same round). A JVM runs interpreted code, and competes with its own compiler threads, for
     * about its first second, and each size may take another path (another algorithm, another protocol) that needs
     * compiling too; code compiled for one shape of call (native memory, out of place) is thrown away and recompiled
     * the first time another comes (in place, a heap array). Without this the first rows would time the compiler. Past
     * {@code --warmup-time}, a rank whose compiler is still busy (see {@link JitActivity}) holds the others back, up to
     * {@link #warmupLimitSeconds}.
     */
    private void warmUpTheJvm(int root) {
        if (options.warmupSeconds() <= 0) return;
        PerfCollective coll = options.collective();
        DataType type = options.types().getFirst();
        ReduceOp op = opsToRun().getFirst();
        int ws = type.byteSize();
        long start = System.nanoTime();
        double limitSeconds = warmupLimitSeconds();
        JitActivity jit = new JitActivity();
        boolean done = false;
        while (!done) {
            for (long bytes : options.sweep().sizes()) {
                PerfCollective.Geometry g = coll.geometry(bytes / ws, ranks);
                // About 8 MiB per size and round, between one call and a hundred warm-up batches.
                long batch = Math.clamp((8L << 20) / Math.max(1, bytes), 1, 100L * Math.max(1, options.warmupIters()));
                for (boolean inPlace : new boolean[] {false, true}) {
                    iterate((int) batch, operation(g, type, op, root, inPlace));
                    comm.barrier();
                }
            }
            aggregate(0);
            // Every rank stops after the same round: the first at which all have warmed up long enough.
            double elapsed = (System.nanoTime() - start) / 1e9;
            boolean jitQuiet = jit.quiet();
            boolean warm = elapsed >= options.warmupSeconds() && jitQuiet || elapsed >= limitSeconds;
            scalar.set(ValueLayout.JAVA_DOUBLE, 0, warm ? 1 : 0);
            comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, ReduceOp.MIN);
            done = scalar.get(ValueLayout.JAVA_DOUBLE, 0) == 1;
        }
    }

    // ---------------------------------------------------------------- one (type, op, root)

    private void timeTest(DataType type, ReduceOp op, int root) {
        comm.barrier();
        PerfCollective coll = options.collective();
        int ws = type.byteSize();
        for (long warmBytes : new long[] {options.sweep().max(), options.sweep().min()}) {
            PerfCollective.Geometry g = coll.geometry(warmBytes / ws, ranks);
            // The same calls as the timed loop (async ones start the progress thread, and get compiled).
            iterate(options.warmupIters(), operation(g, type, op, root, false));
        }
        List<Long> sizes = options.sweep().sizes();
        for (int s = 0; s < sizes.size(); s++) {
            long size = sizes.get(s);
            PerfCollective.Geometry g = coll.geometry(size / ws, ranks);
            String redop = op == null ? "none" : op.ncclTestsName();
            StringBuilder line = new StringBuilder(
                    PerfTable.rowStart(g.sizeBytes(type), g.paramCount(), type.ncclTestsName(), redop, root));
            for (boolean inPlace : new boolean[] {false, true}) {
                showProgress(type, redop, size, s, sizes.size(), inPlace);
                line.append(measure(g, type, op, root, inPlace));
            }
            if (rank == 0) {
                progress.erase();
                out.println(line);
                out.flush();
            }
        }
    }

    /** One half-row: time, bandwidths and check of one size, out-of-place or in-place. */
    private String measure(PerfCollective.Geometry g, DataType type, ReduceOp op, int root, boolean inPlace) {
        PerfCollective coll = options.collective();
        Operation operation = operation(g, type, op, root, inPlace);
        MemorySegment send = operation.send();
        MemorySegment recv = operation.recv();
        if (options.checks() > 0) {
            // Real data while timing, as nccl-tests does: garbage floats could be denormals, which are slow.
            new DataCheck(coll, type, op, root, rank, ranks, TIMING_SEED).prepare(send, recv, expectedBuffer, g);
            target.toDevice(send, recv);
        }
        operation.run(target);
        comm.barrier();

        long start = System.nanoTime();
        iterate(options.iters(), operation);
        double seconds = aggregate((System.nanoTime() - start) / 1e9 / ((double) options.iters() * options.aggIters()));
        double algbw = seconds > 0 ? g.sizeBytes(type) / 1e9 / seconds : 0;
        double busbw = algbw * coll.busFactor(ranks);

        Long wrong = options.checks() > 0 ? check(g, operation) : null;
        if (wrong != null && wrong > 0) outOfBounds++;
        busbwSum += busbw;
        busbwCount++;
        String redop = op == null ? "none" : op.ncclTestsName();
        rows.add(new PerfRow(
                g.sizeBytes(type),
                g.paramCount(),
                type.ncclTestsName(),
                redop,
                root,
                inPlace,
                seconds * 1e6,
                algbw,
                busbw,
                wrong));
        return PerfTable.measurement(seconds * 1e6, algbw, busbw, wrong);
    }

    /**
     * {@code n} operations as {@code -z} says: blocking calls (with a barrier after each for -z 1), or all issued
     * asynchronously and then waited for (nccl-tests: enqueue on the stream, synchronize once).
     */
    private void iterate(int n, Operation operation) {
        int agg = options.aggIters();
        if (options.blocking()) {
            boolean barrier = options.calls() == PerfOptions.Calls.BLOCKING_WITH_BARRIER;
            for (int i = 0; i < n; i++) {
                if (agg == 1) {
                    operation.run(target);
                } else {
                    // -m: the iteration's operations issued together, then waited for (nccl-tests' group).
                    issueAndWait(agg, operation);
                }
                if (barrier) comm.barrier();
            }
            return;
        }
        issueAndWait(n * agg, operation);
    }

    /**
     * {@code n} operations issued asynchronously, then waited for. Only the futures not yet done are held: operations
     * finish in order, so those at the head that are done are checked and let go as the loop issues. Holding all of
     * them, as this loop once did, kept millions of futures alive through young collections: a 3-million-call 8-byte
     * loop spent a third of its CPU time in the JVM's Serial GC copying them (perf), and timed the harness, not Jccl.
     */
    private void issueAndWait(int n, Operation operation) {
        ArrayDeque<CompletableFuture<Void>> pending = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            pending.addLast(operation.start(target));
            while (pending.size() > 1 && pending.peekFirst().isDone()) Futures.join(pending.pollFirst());
        }
        // Wait once, for the last (waking this thread for every one would cost the progress thread a system call per
        // operation), then collect any errors.
        if (!pending.isEmpty()) pending.getLast().exceptionally(e -> null).join();
        for (CompletableFuture<Void> f : pending) Futures.join(f);
    }

    /** One operation of a half-row, as the timed loops repeat it: the collective, its slices and its arguments. */
    private record Operation(
            PerfCollective coll,
            MemorySegment send,
            MemorySegment recv,
            long count,
            DataType type,
            ReduceOp op,
            int root) {
        /** Runs it on the target's mirrors of the slices and waits for it. */
        void run(PerfTarget target) {
            coll.run(target.communicator(), target.operand(send), target.operand(recv), count, type, op, root);
        }

        /** Starts it on the target's mirrors of the slices; operations complete in call order. */
        CompletableFuture<Void> start(PerfTarget target) {
            return coll.start(target.communicator(), target.operand(send), target.operand(recv), count, type, op, root);
        }
    }

    /**
     * Runs {@code -c} checked operations on fresh data; returns the wrong elements over all ranks (stops at the first
     * bad one).
     */
    private long check(PerfCollective.Geometry g, Operation operation) {
        MemorySegment send = operation.send();
        MemorySegment recv = operation.recv();
        long total = 0;
        for (int c = 0; c < options.checks() && total == 0; c++) {
            DataCheck check = new DataCheck(
                    operation.coll(), operation.type(), operation.op(), operation.root(), rank, ranks, c + 1);
            check.prepare(send, recv, expectedBuffer, g);
            target.toDevice(send, recv);
            comm.barrier();
            operation.run(target);
            target.toHost(recv);
            if (options.corrupt() && rank == corruptingRank(operation.root())) check.corrupt(recv, g);
            scalar.set(ValueLayout.JAVA_LONG, 0, check.countWrong(recv, expectedBuffer, g));
            comm.allReduce(scalar, scalar, 1, DataType.INT64, ReduceOp.SUM);
            total = scalar.get(ValueLayout.JAVA_LONG, 0);
        }
        return total;
    }

    /** The rank whose result the debug option damages: one that checks something (Reduce: the root). */
    private int corruptingRank(int root) {
        return options.collective() == PerfCollective.REDUCE ? root : ranks - 1;
    }

    /**
     * Combines this rank's time with the others' as {@code -a} says. Through native memory, like the timed calls: a
     * heap array here would show the JIT another kind of segment in the paths the timed calls take, and have it
     * recompile them while the next row is being timed.
     */
    private double aggregate(double seconds) {
        scalar.set(ValueLayout.JAVA_DOUBLE, 0, seconds);
        switch (options.average()) {
            case 0 -> comm.broadcast(scalar, scalar, 1, DataType.FLOAT64, 0);
            case 1 -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, ReduceOp.SUM);
            case 2 -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, ReduceOp.MIN);
            default -> comm.allReduce(scalar, scalar, 1, DataType.FLOAT64, ReduceOp.MAX);
        }
        double t = scalar.get(ValueLayout.JAVA_DOUBLE, 0);
        return options.average() == 1 ? t / ranks : t;
    }

    /** The operation of a half-row: the collective on this size's slices, out of place or in place. */
    private Operation operation(PerfCollective.Geometry g, DataType type, ReduceOp op, int root, boolean inPlace) {
        int ws = type.byteSize();
        return new Operation(
                options.collective(), send(g, ws, inPlace), recv(g, ws, inPlace), g.paramCount(), type, op, root);
    }

    private MemorySegment send(PerfCollective.Geometry g, int ws, boolean inPlace) {
        long bytes = g.sendCount() * ws;
        return inPlace ? recvBuffer.asSlice(g.sendInPlaceStep() * rank * ws, bytes) : sendBuffer.asSlice(0, bytes);
    }

    private MemorySegment recv(PerfCollective.Geometry g, int ws, boolean inPlace) {
        return recvBuffer.asSlice(inPlace ? g.recvInPlaceStep() * rank * ws : 0, g.recvCount() * ws);
    }

    // ---------------------------------------------------------------- header

    /** {@code "rank pid host"} of every rank, in rank order. */
    private List<String> gatherDeviceLines() {
        byte[] mine = new byte[DEVICE_LINE_BYTES];
        // JCCL_HOSTID, where set, is what makes ranks count as different hosts (network namespaces, containers).
        String hostId = comm.config().hostId();
        String host = hostName() + (hostId == null || hostId.isBlank() ? "" : "[" + hostId + "]");
        byte[] text =
                (ProcessHandle.current().pid() + " " + host + "\t" + target.device()).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(text, 0, mine, 0, Math.min(text.length, DEVICE_LINE_BYTES));
        byte[] all = new byte[DEVICE_LINE_BYTES * ranks];
        comm.allGather(mine, all);
        List<String> lines = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            String s = new String(all, r * DEVICE_LINE_BYTES, DEVICE_LINE_BYTES, StandardCharsets.UTF_8);
            int end = s.indexOf('\0');
            lines.add(r + " " + (end < 0 ? s : s.substring(0, end)));
        }
        return lines;
    }

    private void printHeader(List<String> devices, int hosts, String transport, String algorithm, long maxBytes) {
        if (rank != 0) return;
        SizeSweep sw = options.sweep();
        out.printf(
                Locale.ROOT,
                "# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(%s) warmup iters: "
                        + "%d iters: %d agg iters: %d validation: %d graph: 0%n",
                sw.min(),
                sw.max(),
                sw.factor() > 1 ? sw.factor() : sw.increment(),
                sw.factor() > 1 ? "factor" : "bytes",
                options.warmupIters(),
                options.iters(),
                options.aggIters(),
                options.checks());
        if (options.calls() == PerfOptions.Calls.BLOCKING_WITH_BARRIER) {
            out.println("# Blocking Enabled: wait for completion and barrier after each collective ");
        } else if (options.calls() == PerfOptions.Calls.BLOCKING) {
            out.println("# Blocking Enabled: blocking calls back to back, no barrier (-z 2, Jccl's) ");
        }
        out.println("#");
        out.println("# Using devices");
        for (String d : devices) {
            String[] f = d.split(" ", 3);
            String[] hostAndDevice = f[2].split("\t", 2);
            // nccl-tests' device line: the device (the CPU for host memory) and Jccl's transport.
            out.printf(
                    Locale.ROOT,
                    "#  Rank %2d Group %2d Pid %6s on %10s device %s %s%n",
                    Integer.parseInt(f[0]),
                    0,
                    f[1],
                    hostAndDevice[0],
                    hostAndDevice.length > 1 ? hostAndDevice[1] : "cpu [host memory]",
                    transport);
        }
        long buffers = options.checks() > 0 ? 3 : 2;
        out.printf(
                Locale.ROOT,
                "#%n# Jccl %s: %d %s on %d %s, transport %s, algorithm %s, %s%n",
                Jccl.version(),
                ranks,
                ranks == 1 ? "rank" : "ranks",
                hosts,
                hosts == 1 ? "host" : "hosts",
                transport,
                algorithm,
                switch (options.calls()) {
                    case ASYNC -> "async calls (-z 0)";
                    case BLOCKING_WITH_BARRIER -> "blocking calls (-z 1)";
                    case BLOCKING -> "blocking calls, no barrier (-z 2)";
                });
        String path = target.pathLine();
        if (path != null) out.printf(Locale.ROOT, "# %s%n", path);
        out.printf(
                Locale.ROOT,
                "# Algorithms: %s%n",
                algorithm.equals("NCCL") ? "NCCL's own choice per size" : algorithmsOverSweep());
        if (options.collective().reduces()) out.printf(Locale.ROOT, "# Reduce kernels: %s%n", ReduceKernels.describe());
        if (options.warmupSeconds() > 0) {
            out.printf(
                    Locale.ROOT,
                    "# JVM warm-up: the first case at every size for %.1f s (--warmup-time), "
                            + "and on until every rank's JIT compiler"
                            + " has been idle for a second (at most %.0f s), before timing%n",
                    options.warmupSeconds(),
                    warmupLimitSeconds());
        }
        out.printf(
                Locale.ROOT,
                "# Memory: %d buffers of %s per rank (send, recv%s), %s in all per rank, "
                        + "allocated and zeroed before timing%s%n",
                buffers,
                SizeSweep.binary(maxBytes),
                buffers == 3 ? ", expected" : "",
                SizeSweep.binary(buffers * maxBytes),
                path == null ? "" : "; send and recv mirrored on the device, where the operations run");
        out.println("#");
        out.print(PerfTable.columnHeader());
        out.flush();
    }

    /** How the communicator runs the first type and op at {@code bytes}: {@code Ring/Simple}, {@code OneShot/LL}, … */
    private String algorithmAt(long bytes) {
        PerfCollective coll = options.collective();
        if (coll == PerfCollective.SENDRECV) return ranks == 1 ? "local" : "p2p";
        DataType type = options.types().getFirst();
        PerfCollective.Geometry g = coll.geometry(bytes / type.byteSize(), ranks);
        if (comm instanceof RuntimeCommunicator rc) return rc.algorithmFor(coll.collective(), g.paramCount(), type);
        ReduceOp op = coll.reduces() ? options.ops().getFirst() : null;
        int root = coll.rooted() ? 0 : -1;
        return Planner.plan(new OpRequest(
                        coll.collective(),
                        0,
                        ranks,
                        Math.max(1, g.paramCount()),
                        op,
                        root,
                        Math.max(1, comm.config().chunkBytes() / type.byteSize())))
                .algorithm();
    }

    /** {@code OneShot/LL for 8 B-32 KiB, Ring/Simple for 64 KiB-64 MiB}: where the sweep changes algorithm. */
    private String algorithmsOverSweep() {
        List<Long> sizes = options.sweep().sizes();
        StringBuilder sb = new StringBuilder();
        String current = null;
        long from = 0;
        long last = 0;
        for (long size : sizes) {
            String a = algorithmAt(size);
            if (!a.equals(current)) {
                if (current != null) {
                    sb.append(sb.isEmpty() ? "" : ", ")
                            .append(current)
                            .append(" for ")
                            .append(range(from, last));
                }
                current = a;
                from = size;
            }
            last = size;
        }
        if (current != null) {
            sb.append(sb.isEmpty() ? "" : ", ").append(current).append(" for ").append(range(from, last));
        }
        return sb.toString();
    }

    private static String range(long from, long to) {
        return from == to ? SizeSweep.binary(from) : SizeSweep.binary(from) + "-" + SizeSweep.binary(to);
    }

    /** The host of a gathered device line {@code "rank pid host[\tdevice]"}. */
    private static String hostOf(String deviceLine) {
        return deviceLine.split(" ", 3)[2].split("\t", 2)[0];
    }

    private static String transportOf(Communicator c) {
        return c instanceof RuntimeCommunicator rc
                ? rc.transportSummary()
                : c.getClass().getSimpleName();
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }

    // ---------------------------------------------------------------- progress

    private void showProgress(DataType type, String redop, long size, int index, int count, boolean inPlace) {
        if (rank != 0 || !options.progress() || !progress.due()) return;
        progress.show(String.format(
                Locale.ROOT,
                "%s %s %s: %s %s (%d of %d sizes)",
                options.collective().cliName(),
                type.ncclTestsName(),
                redop,
                SizeSweep.binary(size),
                inPlace ? "in-place" : "out-of-place",
                index + 1,
                count));
    }
}
