package dev.jccl.plan;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Predicts how long an operation takes by running every rank's real schedule, the plans the runtime executes, on a
 * model machine of hosts × ranks per host: no formula per algorithm, so what the simulator says of an algorithm is what
 * its schedule does. For {@code jccl sim} and for checking the tuner's choices at rank counts no test machine has.
 *
 * <p>The model, lockstep as the runtime is: a rank starts step k when it has finished step k−1 and done step k's local
 * work (copies at the intra-host bandwidth, reductions and AVG's division at {@code reduceGbPerSecond}). A transfer of
 * step k starts when both its ranks have started step k and its ports are free, and takes the level's latency plus its
 * bytes over the level's bandwidth. Every rank has a send port and a receive port (one transfer at a time each way); a
 * transfer between hosts also holds its hosts' network ports, which all ranks of a host share. A rank finishes step k
 * when its transfers are done and it has combined what it received. Where a host's ranks outnumber its CPUs, each
 * rank's own work takes ranks-per-CPU times as long and each message waits a hand-off for its receiver; where an
 * operation's buffers fit in the last-level cache, transfers inside a host run at the in-cache rate. Not modelled: the
 * forwarding of a piece before its step ends, the one-shot's low-latency outbox (protocol LL).
 *
 * <p>Schedules are compiled to arrays as they are planned, so 4096 ranks fit: a ring at 4096 ranks is 8190 steps.
 */
public final class TimingSimulator {
    private TimingSimulator() {}

    /**
     * One level of the machine: a transfer's latency (µs), the bandwidth (GB/s), and the time a rank spends on each
     * message it sends or receives besides its bytes (µs: a frame's system call, a ring slot's flags), which is what
     * makes a thousand small messages cost more than one.
     */
    public record Level(double latencyMicros, double gbPerSecond, double overheadMicros) {
        public Level {
            if (!(latencyMicros >= 0) || !(gbPerSecond > 0) || !(overheadMicros >= 0)) {
                throw new IllegalArgumentException("a level needs a latency >= 0 µs, a bandwidth > 0 GB/s and an"
                        + " overhead >= 0 µs, got " + latencyMicros + " µs, " + gbPerSecond + " GB/s, "
                        + overheadMicros + " µs");
            }
        }

        /**
         * A level whose one-message step takes {@code stepMicros} plus the bytes' time, as the tuner's figures are
         * measured: of it, {@link Tuner#MESSAGE_SHARE} is the per-message overhead, the rest the latency.
         */
        public static Level ofStep(double stepMicros, double gbPerSecond) {
            return new Level(stepMicros * (1 - Tuner.MESSAGE_SHARE), gbPerSecond, stepMicros * Tuner.MESSAGE_SHARE);
        }

        /** How long a message holds a rank's port: its overhead and its bytes. */
        double busyMicros(long bytes) {
            return overheadMicros + bytes / (gbPerSecond * 1e3);
        }
    }

    /**
     * The model machine.
     *
     * @param hosts hosts (rank r is on host {@code r / ranksPerHost})
     * @param ranksPerHost ranks on each host
     * @param intraHost a transfer between two ranks of one host
     * @param interHost a transfer between hosts; a host's transfers out (and in) share its bandwidth
     * @param reduceGbPerSecond what a rank reduces per second (γ)
     * @param cpusPerHost CPUs each host's ranks share: with fewer than its ranks, every rank's own work (copies,
     *     reductions, each message's overhead) takes {@code ranksPerHost / cpusPerHost} times as long, as the CPUs are
     *     time-sliced, and every transfer waits for a hand-off
     * @param handoffMicros where ranks share CPUs, what each message waits for its receiver to be scheduled (µs); a
     *     rank's messages wait one after another. {@code jccl sim} takes {@link Calibration#lockstepHandoffMicros} at
     *     the machine's ranks per CPU: a step of a loop of calls, not a lone call's wait
     * @param intraHostInCache a transfer between two ranks of one host while the operation's buffers fit in the
     *     last-level cache ({@code cacheMib}, as {@link Calibration#fitsInCache} counts them); {@code intraHost} beyond
     * @param cacheMib the last-level cache of a host (MiB), 0 if none is modelled
     */
    public record Machine(
            int hosts,
            int ranksPerHost,
            Level intraHost,
            Level interHost,
            double reduceGbPerSecond,
            int cpusPerHost,
            double handoffMicros,
            Level intraHostInCache,
            double cacheMib) {
        /** A machine with a CPU for every rank. */
        public Machine(int hosts, int ranksPerHost, Level intraHost, Level interHost, double reduceGbPerSecond) {
            this(hosts, ranksPerHost, intraHost, interHost, reduceGbPerSecond, ranksPerHost, 0);
        }

        /** A machine without a cache: one shared-memory rate whatever the operation's size. */
        public Machine(
                int hosts,
                int ranksPerHost,
                Level intraHost,
                Level interHost,
                double reduceGbPerSecond,
                int cpusPerHost,
                double handoffMicros) {
            this(
                    hosts,
                    ranksPerHost,
                    intraHost,
                    interHost,
                    reduceGbPerSecond,
                    cpusPerHost,
                    handoffMicros,
                    intraHost,
                    0);
        }

        public Machine {
            if (intraHostInCache == null || !(cacheMib >= 0)) {
                throw new IllegalArgumentException("a machine needs an in-cache level and a cache >= 0 MiB, got "
                        + intraHostInCache + ", " + cacheMib + " MiB");
            }
            if (cpusPerHost < 1 || !(handoffMicros >= 0)) {
                throw new IllegalArgumentException("a host needs at least 1 CPU and a hand-off >= 0 µs, got "
                        + cpusPerHost + " CPUs, " + handoffMicros + " µs");
            }
            if (hosts < 1 || ranksPerHost < 1 || (long) hosts * ranksPerHost > 1 << 20) {
                throw new IllegalArgumentException(hosts + " hosts × " + ranksPerHost
                        + " ranks: each must be at least 1, the product at most 2^20");
            }
            if (!(reduceGbPerSecond > 0)) {
                throw new IllegalArgumentException("reduce bandwidth must be > 0 GB/s, got " + reduceGbPerSecond);
            }
        }

        public int ranks() {
            return hosts * ranksPerHost;
        }

        int hostOf(int rank) {
            return rank / ranksPerHost;
        }

        /** Whether a host's ranks outnumber its CPUs. */
        public boolean oversubscribed() {
            return ranksPerHost > cpusPerHost;
        }

        /** How much longer a rank's own work takes because its host's ranks share the CPUs (1 where they do not). */
        public double cpuShare() {
            return Math.max(1.0, (double) ranksPerHost / cpusPerHost);
        }

        /**
         * The machine as an operation whose larger buffer has {@code bytes} per rank finds it: with the in-cache level
         * between ranks of a host where its buffers fit in the cache, as the tuner prices it. Without it the simulator
         * ran every size at one rate, and a calibrated file's single line put 8 and 64 MiB AllReduces on 2 ranks at
         * 0.36-0.59 of their measured time, while 1 MiB matched (2026-11-27).
         */
        public Machine forBuffer(double bytes) {
            if (intraHostInCache.equals(intraHost) || !Calibration.fitsInCache(cacheMib, bytes, ranksPerHost)) {
                return this;
            }
            return new Machine(
                    hosts,
                    ranksPerHost,
                    intraHostInCache,
                    interHost,
                    reduceGbPerSecond,
                    cpusPerHost,
                    handoffMicros,
                    intraHostInCache,
                    cacheMib);
        }

        /** Which ranks share a host, as the planner and tuner take it. */
        public HostGroups hostGroups() {
            return HostGroups.evenly(hosts, ranksPerHost);
        }
    }

    /**
     * What the simulation found.
     *
     * @param micros time until the last rank finished
     * @param algorithm the schedules' name ({@code ring}, {@code tree}, …)
     * @param steps the most steps any rank's schedule has
     * @param transfers sends over all ranks (estimated from rank 0's when skipped)
     */
    public record Result(double micros, String algorithm, int steps, long transfers) {
        /** Whether the schedules were too many transfers to simulate ({@link #MAX_TRANSFERS}); micros is NaN then. */
        public boolean skipped() {
            return Double.isNaN(micros);
        }
    }

    /**
     * Transfers over all ranks beyond which a simulation is not run (about 1.2 GB of arrays): a one-shot AllReduce of
     * 256 MiB on 4096 ranks is four billion. Such a {@link Result} has NaN for its time.
     */
    public static final long MAX_TRANSFERS = 100_000_000L;

    /**
     * Plans {@code collective} for every rank of {@code machine} with {@code algorithm} (as the runtime would, chunks
     * of {@code chunkBytes}) and simulates it. {@code count} is per rank as the API takes it.
     */
    public static Result simulate(
            Machine machine,
            Collective collective,
            Tuner.Algorithm algorithm,
            long count,
            DataType type,
            ReduceOp op,
            int root,
            long chunkBytes) {
        int size = machine.ranks();
        Machine m = machine.forBuffer(Tuner.largerBuffer(collective, count, type.byteSize(), size));
        HostGroups hosts = m.hostGroups();
        long chunk = Math.max(1, chunkBytes / type.byteSize());
        IntFunction<Schedule> plan = r ->
                Planner.plan(new OpRequest(collective, r, size, count, op, root, -1, false, chunk, algorithm), hosts);
        IntFunction<Compiled> compile = r -> Compiled.of(plan.apply(r), type.byteSize(), m);
        Schedule rankZero = plan.apply(0);
        String name = rankZero.algorithm();
        Compiled first = Compiled.of(rankZero, type.byteSize(), m);
        long transfers = (long) first.peer().length * size;
        if (transfers > MAX_TRANSFERS) return new Result(Double.NaN, name, first.steps(), transfers);
        // Planning is pure, and most of the work: every core plans ranks of its own.
        Compiled[] ranks = IntStream.range(0, size)
                .parallel()
                .mapToObj(r -> r == 0 ? first : compile.apply(r))
                .toArray(Compiled[]::new);
        return run(m, ranks, name);
    }

    /** One rank's schedule as arrays: per step its local cost, the bytes it combines, and its sends. */
    private record Compiled(double[] localMicros, long[] combinedBytes, int[] firstSend, int[] peer, long[] bytes) {
        int steps() {
            return localMicros.length;
        }

        static Compiled of(Schedule s, int elementBytes, Machine m) {
            int steps = s.steps().size();
            double[] local = new double[steps];
            long[] combined = new long[steps];
            int[] first = new int[steps + 1];
            int sends = 0;
            for (Step step : s.steps()) {
                for (Action a : step.actions()) {
                    if (a instanceof Action.Send) sends++;
                }
            }
            int[] peer = new int[sends];
            long[] bytes = new long[sends];
            int i = 0;
            for (int k = 0; k < steps; k++) {
                first[k] = i;
                for (Action a : s.steps().get(k).actions()) {
                    switch (a) {
                        case Action.Send send -> {
                            peer[i] = send.peer();
                            bytes[i++] = send.from().count() * elementBytes;
                        }
                        case Action.Receive v -> {
                            if (v.combineWith() != null) combined[k] += v.into().count() * elementBytes;
                        }
                        case Action.LocalCopy c ->
                            local[k] += c.to().count()
                                    * elementBytes
                                    * m.cpuShare()
                                    / (m.intraHost().gbPerSecond() * 1e3);
                        case Action.LocalReduce x ->
                            local[k] += x.into().count() * elementBytes * m.cpuShare() / (m.reduceGbPerSecond() * 1e3);
                        case Action.DivideBySize d ->
                            local[k] +=
                                    d.region().count() * elementBytes * m.cpuShare() / (m.reduceGbPerSecond() * 1e3);
                    }
                }
            }
            first[steps] = i;
            return new Compiled(local, combined, first, peer, bytes);
        }
    }

    private static Result run(Machine m, Compiled[] ranks, String name) {
        int size = ranks.length;
        double[] clock = new double[size];
        double[] start = new double[size];
        double[] end = new double[size];
        double[] sendFree = new double[size];
        double[] recvFree = new double[size];
        double[] hostOutFree = new double[m.hosts()];
        double[] hostInFree = new double[m.hosts()];
        int steps = 0;
        long transfers = 0;
        for (Compiled c : ranks) steps = Math.max(steps, c.steps());
        for (int k = 0; k < steps; k++) {
            for (int r = 0; r < size; r++) {
                if (k >= ranks[r].steps()) continue;
                start[r] = clock[r] + ranks[r].localMicros()[k];
                end[r] = start[r];
            }
            for (int r = 0; r < size; r++) {
                Compiled c = ranks[r];
                if (k >= c.steps()) continue;
                for (int i = c.firstSend()[k]; i < c.firstSend()[k + 1]; i++) {
                    int q = c.peer()[i];
                    int hr = m.hostOf(r);
                    int hq = m.hostOf(q);
                    boolean network = hr != hq;
                    double ready = Math.max(start[r], start[q]);
                    Level level = network ? m.interHost() : m.intraHost();
                    // Each port the transfer passes serves its bytes after what it already has queued; the transfer is
                    // done when the last of them is, plus the link's latency.
                    // Ranks that share CPUs do their part of a transfer (a message's overhead; inside a host, the
                    // copies) in time slices.
                    double busy = network
                            ? level.overheadMicros() * m.cpuShare() + c.bytes()[i] / (level.gbPerSecond() * 1e3)
                            : level.busyMicros(c.bytes()[i]) * m.cpuShare();
                    sendFree[r] = Math.max(sendFree[r], ready) + busy;
                    // Where ranks share CPUs the receiver must be scheduled for each message, one after another.
                    recvFree[q] = Math.max(recvFree[q], ready) + busy + (m.oversubscribed() ? m.handoffMicros() : 0);
                    double last = Math.max(sendFree[r], recvFree[q]);
                    if (network) {
                        // A host's link carries only bytes: the per-message overhead is the sending rank's.
                        double wire = c.bytes()[i] / (level.gbPerSecond() * 1e3);
                        hostOutFree[hr] = Math.max(hostOutFree[hr], ready) + wire;
                        hostInFree[hq] = Math.max(hostInFree[hq], ready) + wire;
                        last = Math.max(last, Math.max(hostOutFree[hr], hostInFree[hq]));
                    }
                    double done = last + level.latencyMicros();
                    end[r] = Math.max(end[r], done);
                    end[q] = Math.max(end[q], done);
                    transfers++;
                }
            }
            for (int r = 0; r < size; r++) {
                if (k >= ranks[r].steps()) continue;
                clock[r] = end[r] + ranks[r].combinedBytes()[k] * m.cpuShare() / (m.reduceGbPerSecond() * 1e3);
            }
        }
        double last = 0;
        for (double t : clock) last = Math.max(last, t);
        return new Result(last, name, steps, transfers);
    }
}
