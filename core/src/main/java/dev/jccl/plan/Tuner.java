package dev.jccl.plan;

import dev.jccl.DataType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Chooses how each collective runs, as NCCL's tuning does: every algorithm × protocol that can carry the operation gets
 * an estimated time, and the cheapest wins, among those that {@code JCCL_ALGO} / {@code JCCL_PROTO} allow. The estimate
 * is α–β–γ per level: each step pays a latency (α) and its bytes over a bandwidth (β), inside a host at the
 * shared-memory figures, between hosts at the network's, with a host's network link shared by its ranks that send
 * across at once; bytes a rank reduces pay the kernels' rate (γ); where ranks share CPUs every step pays a hand-off.
 * The table is plain data, printed at start-up with {@code JCCL_DEBUG_SUBSYS=TUNING}, by {@code jccl info --tuner}, and
 * tested; {@code jccl sim} runs the real schedules on the same kind of model to check the choices.
 *
 * <p>Algorithms: {@link Algorithm#RING} (ring AllReduce/AllGather/ReduceScatter, pipelined chain Broadcast/Reduce,
 * pairwise AllToAll: what NCCL also calls Ring), {@link Algorithm#ONE_SHOT} (every rank hands its input to every rank
 * that needs it, which computes its own result, in rank order, in one round: the least latency and the fewest handoffs,
 * the most traffic), {@link Algorithm#HIERARCHICAL} (AllReduce across hosts with equal numbers of ranks: reduce-scatter
 * inside each host, AllReduce of each block across hosts, all-gather inside each host; see
 * {@code HierarchicalAllReduce}; Broadcast and Reduce across any hosts as a tree among the hosts' leaders and one
 * inside each host; AllGather across any hosts as a gather to each host's leader, a ring of leaders and a tree inside
 * each host; ReduceScatter as the same in reverse; AllToAll across any hosts as every rank's input to its host's
 * leader, one packed run between each pair of leaders and each rank's result back, which wins for small blocks on a few
 * hosts of many ranks), and the logarithmic ones for many ranks: {@link Algorithm#TREE},
 * {@link Algorithm#RECURSIVE_DOUBLING}, {@link Algorithm#RABENSEIFNER}, {@link Algorithm#BRUCK}. Protocols:
 * {@link Protocol#SIMPLE} (framed chunks through the transports' rings and sockets) and {@link Protocol#LL} (low
 * latency: each rank publishes flagged chunks in an outbox in shared memory that every local rank reads in place; only
 * when every rank shares memory).
 *
 * <p>The figures are a {@link Calibration}: measured on the machine by {@code jccl perf --calibrate} and read from its
 * file, or the built-in ones, measured on the project's reference machine; they decide crossovers, not promises.
 */
public final class Tuner {

    public enum Algorithm {
        RING("Ring"),
        ONE_SHOT("OneShot"),
        HIERARCHICAL("Hierarchical"),
        /**
         * Trees: binomial for Broadcast and Reduce; AllReduce over two trees with half the data each, pipelined binary
         * trees (NCCL's double binary tree) for messages of several pieces, binomial ones below.
         */
        TREE("Tree"),
        /** Recursive doubling AllReduce (for AllGather, see {@link #BRUCK}, which generalises it to any rank count). */
        RECURSIVE_DOUBLING("RecursiveDoubling"),
        /** Rabenseifner's AllReduce: reduce-scatter by recursive halving, all-gather by recursive doubling. */
        RABENSEIFNER("Rabenseifner"),
        /** Bruck's AllGather and AllToAll: ⌈log2 P⌉ steps for any rank count. */
        BRUCK("Bruck");

        private final String displayName;

        Algorithm(String displayName) {
            this.displayName = displayName;
        }

        public String displayName() {
            return displayName;
        }
    }

    public enum Protocol {
        LL("LL"),
        SIMPLE("Simple");

        private final String displayName;

        Protocol(String displayName) {
            this.displayName = displayName;
        }

        public String displayName() {
            return displayName;
        }
    }

    /** The way one operation runs. */
    public record Choice(Algorithm algorithm, Protocol protocol) {
        public String describe() {
            return algorithm.displayName() + "/" + protocol.displayName();
        }
    }

    /** Every choice, made once: choosing runs on every operation and allocates nothing. */
    private static final Choice[][] CHOICES = new Choice[Algorithm.values().length][Protocol.values().length];

    static {
        for (Algorithm a : Algorithm.values()) {
            for (Protocol p : Protocol.values()) CHOICES[a.ordinal()][p.ordinal()] = new Choice(a, p);
        }
    }

    /** Latency of one step (µs) and bandwidth (GB/s) of a class of link. */
    record Link(double stepMicros, double gbPerSecond) {}

    /**
     * The share of a step's latency that is each message's own cost to the rank that sends it (a frame's system call, a
     * ring slot's flags), and so is paid again for every further message of a step: one-shot sends one to every peer.
     */
    public static final double MESSAGE_SHARE = 0.25;

    private static final List<Collective> TUNED = List.of(
            Collective.ALL_REDUCE,
            Collective.BROADCAST,
            Collective.REDUCE,
            Collective.ALL_GATHER,
            Collective.REDUCE_SCATTER,
            Collective.ALL_TO_ALL);

    private final int nRanks;
    private final HostGroups hosts;
    private final boolean allShareMemory;
    private final boolean oversubscribed;
    /** Ranks per CPU where ranks share CPUs (1 where they do not, or where it is not known); see {@link #shareCpus}. */
    private final double cpuShare;
    /** What each step of a lockstep schedule waits for its partner where ranks share CPUs ({@link #stepHandoff}). */
    private final double stepHandoffMicros;
    /** The link between ranks of one host: shared memory, or sockets where some rank talks over the network only. */
    private final Link intra;
    /** Hosts (1 when the host groups are unknown) and the most ranks on one of them. */
    private final int hostCount;

    private final int perHost;
    private final Calibration calibration;
    /** Bytes of a pipeline's piece ({@code Config.chunkBytes(boolean, boolean)}), which a chain's every hop carries. */
    private final long chunkBytes;
    /** Steps between ranks that share memory, and over sockets, at the calibration's figures. */
    private final Link shm;

    private final Link net;
    private final Set<Algorithm> algorithms;
    private final Set<Protocol> protocols;
    /** Where {@link TreeAllReduce}'s binary trees over these ranks cross hosts. */
    private final TreeLinks treeLinks;
    /**
     * The {@link RootedTrees} of a pipelined Broadcast or Reduce: over all ranks, over the hosts' leaders (one per
     * host, every edge across), and over a host's ranks. Null where the group has fewer than two ranks.
     */
    private final TreeLinks rootedLinks;

    private final TreeLinks leaderLinks;
    private final TreeLinks localLinks;

    private final List<String> warnings = new ArrayList<>();

    /**
     * The same model for operations whose buffers fit in the hosts' last-level cache: shared-memory steps at
     * {@link Calibration#shmCachedGbPerSecond()}. Null where that rate is the one this tuner has (it is that model),
     * and where ranks share CPUs: a ring's slots are few, so its writer stalls whenever the reader is off its CPU, and
     * the cache's rate is not reached (4 ranks on 2 CPUs, 2 MiB AllReduce: Rabenseifner 670-751 µs, the one-shot LL,
     * whose outbox holds the whole message, 482-491 in two runs of three).
     */
    private final Tuner inCache;

    /**
     * Where ranks share CPUs, the same model for operations that spill out of the cache: shared-memory steps at
     * {@link #SPILLED_STALL} times less than the calibrated rate. Null where ranks have CPUs of their own, and where no
     * cache is known.
     */
    private final Tuner spilled;

    /**
     * How much slower than the model's shared-memory rate, beyond the CPUs' sharing ({@link #shareCpus}), the lockstep
     * schedules' steps ran where ranks share CPUs and the operation did not fit in the cache: each step waits for its
     * partner to be scheduled, and then finds its data in memory. First measured against the estimates without either
     * (2026-11-28): 4 ranks on 2 CPUs (2 per CPU), FLOAT16 64 MiB, Rabenseifner 50-97 ms against 25 estimated; 8 ranks
     * (4 per CPU), FLOAT32 16 MiB, 46-68 against 5.9, which set this factor at 3 and the one per share at 2. Measured
     * again in both of the VM's phases (2026-11-29, FLOAT32, interleaved), they ran faster: 8 ranks 16 MiB 23.8-29.1 ms
     * (4.0-4.9 times the estimate without either, which is 4 per CPU times 1.0-1.25), 4 ranks 16 MiB 7.8-14.9 and 64
     * MiB 41.4-53 (2.0-2.9 times, which is 2 per CPU times 1.0-1.45). At 3 and 2 the model priced them nearly twice
     * what they took and gave the one-shot LL every spilled AllReduce, which lost to Rabenseifner in both phases on 8
     * ranks (16 MiB: 39.5 ms and 44.2-57.3 against 27.6 and 23.8-29.1) and by 40-50% in the slow phase on 4. This
     * factor applies where the ranks per CPU are not known (or are 1), {@link #SPILLED_STALL_PER_SHARE} on top of the
     * sharing where they are.
     */
    static final double SPILLED_STALL = 2.4;

    /**
     * Beyond {@link #SPILLED_STALL}, how much slower than the shared rate ({@link #shareCpus}) those steps ran where
     * more than 2 ranks share each CPU; see there. With both, the steps run at the unshared rate divided by
     * {@code max(SPILLED_STALL, SPILLED_STALL_PER_SHARE × cpuShare)}: 2.4 at up to 2 ranks per CPU, 4.8 at 4.
     */
    static final double SPILLED_STALL_PER_SHARE = 1.2;

    /**
     * Where ranks share CPUs, how much longer than the calibrated LL rate (divided by the sharing) a one-shot
     * AllReduce's bytes beyond {@link #SHARED_CPU_LL_KNEE_BYTES} of input take, over both of the VM's phases. Its ranks
     * each read every peer's whole input from outboxes another CPU has just written, P + 1 times their input where
     * Rabenseifner's move twice it, so it pays most for moving lines between CPUs, which on this project's VM
     * alternates every few minutes between about 120 and about 500 ns a round trip (bench/core_probe). Measured,
     * FLOAT32 AllReduce, µs, the fast phase / the slow one (2026-11-29, interleaved runs of each):
     *
     * <ul>
     *   <li>4 ranks on 2 CPUs, 1 MiB: one-shot 371-864 / 711-1221, Rabenseifner 374-506 / 341-516, Open MPI 616-697 /
     *       686-994; 4 MiB: one-shot 1715-2484 / 2968-4479, Rabenseifner 2630-3137 / 1519-3574;
     *   <li>8 ranks on 2 CPUs, 1 MiB: one-shot 2127 / 2484-6324, Rabenseifner 1318 / 960-1579; 16 MiB: 39.5 ms /
     *       44.2-57.3, Rabenseifner 27.6 / 23.8-29.1; but 64 KiB: one-shot 160-181 against 192-638 (fast phase).
     * </ul>
     *
     * <p>Against the estimate at the calibrated rate the one-shot took 0.9-1.4 times as long in the fast phase and
     * 1.55-1.7 in the slow one: 1.4 prices an even mix. Small inputs are latency in both schedules and both phases (4
     * ranks, 64 KiB: one-shot 37-47 / 70-92, Rabenseifner 48-157 / 58-90), hence the knee. Priced at the bare rate,
     * every 4-rank AllReduce up to 32 MiB took the one-shot, which lost to Open MPI at 1 MiB in the slow phase.
     */
    static final double SHARED_CPU_LL_STALL = 1.4;

    /** The input per rank up to which a one-shot AllReduce on shared CPUs pays no {@link #SHARED_CPU_LL_STALL}. */
    static final double SHARED_CPU_LL_KNEE_BYTES = 64 * 1024;

    /**
     * What a one-shot AllReduce's {@code traffic} bytes cost beyond the LL rate where ranks share CPUs (see
     * {@link #SHARED_CPU_LL_STALL}), in bytes at that rate: a share of them growing with the input past the knee.
     */
    private double sharedCpuLlExtra(Collective c, double perRank, double traffic) {
        if (cpuShare <= 1 || c != Collective.ALL_REDUCE || perRank <= SHARED_CPU_LL_KNEE_BYTES) return 0;
        return (SHARED_CPU_LL_STALL - 1) * traffic * (1 - SHARED_CPU_LL_KNEE_BYTES / perRank);
    }

    /** What the unshared shared-memory rate is divided by, besides the CPUs' sharing, beyond the cache. */
    static double spilledStall(double cpuShare) {
        return Math.max(SPILLED_STALL / cpuShare, SPILLED_STALL_PER_SHARE);
    }

    /**
     * Where ranks share CPUs ({@code cpuShare > 1}), the same model without the sharing, for Broadcast and Reduce:
     * their ranks' work is uneven (a one-shot Reduce's root reads every rank's input, its other ranks only publish
     * theirs), so the busiest rank is seldom sharing its CPU with another busy one. Shared, the tuner took the
     * pipelined tree for an 8-rank 1 MiB Reduce on 2 CPUs, which measured 405-509 µs against the one-shot's 303-332
     * (2026-11-28).
     */
    private final Tuner rooted;

    /** Makes the child tuners: {@code figures} before the CPUs' sharing, divided by {@code share}. */
    private interface ChildFactory {
        Tuner make(Calibration figures, double share, double kernelSlowdown);
    }

    /**
     * How many times slower than FLOAT32's this tuner's type's reduce kernel is (1: FLOAT32's rate, the calibrated γ).
     * The reduce of every Simple schedule runs at γ divided by it; the one-shot's, which the LL rate includes at
     * FLOAT32's speed, pays the difference on top ({@link #oneShotReduceExtra}).
     */
    private final double kernelSlowdown;

    /**
     * The same model for the types whose kernels are slower than FLOAT32's ({@link Calibration#kernelSlowdown}). Priced
     * at FLOAT32's rate, the 16-bit floats took the one-shot LL for large AllReduces on 2 ranks, whose ranks each
     * reduce the whole message, where the ring reduces half: 64 MiB FLOAT16 measured 11.3-11.5 ms one-shot against the
     * ring's 9.9-10.2, BFLOAT16 7.9-14.7 against 7.8-8.8, while FLOAT32 runs the one-shot in 8.6 against 9.2
     * (2026-11-28).
     */
    private final Map<DataType, Tuner> slowTypes;

    /**
     * @param nRanks ranks in the communicator
     * @param allShareMemory every rank reaches every other through shared memory (LL is possible)
     * @param anyNetwork some pair of ranks talks over the network (ring steps cost a network step)
     * @param algo JCCL_ALGO / NCCL_ALGO, or null: names to allow, or {@code ^names} to forbid
     * @param proto JCCL_PROTO / NCCL_PROTO, or null, the same way
     */
    public Tuner(int nRanks, boolean allShareMemory, boolean anyNetwork, String algo, String proto) {
        this(nRanks, null, allShareMemory, anyNetwork, false, algo, proto);
    }

    /**
     * As above, knowing which ranks share a host ({@code hosts}, null if unknown), which the hierarchical algorithm
     * needs.
     */
    public Tuner(int nRanks, HostGroups hosts, boolean allShareMemory, boolean anyNetwork, String algo, String proto) {
        this(nRanks, hosts, allShareMemory, anyNetwork, false, algo, proto);
    }

    /**
     * As above; {@code oversubscribed} says that ranks of a host share CPUs, so that every hand-off between two ranks
     * may wait for its partner to be scheduled (see {@link Calibration#lockstepHandoffMicros}).
     */
    public Tuner(
            int nRanks,
            HostGroups hosts,
            boolean allShareMemory,
            boolean anyNetwork,
            boolean oversubscribed,
            String algo,
            String proto) {
        this(nRanks, hosts, allShareMemory, anyNetwork, oversubscribed, algo, proto, Calibration.DEFAULTS, 1 << 20);
    }

    /**
     * As above, with the machine's figures ({@link Calibration}: measured by {@code jccl perf --calibrate}, or the
     * built-in ones) and the bytes of a pipeline's piece ({@code Config.chunkBytes(boolean, boolean)}), which the
     * communicator also plans its operations with.
     */
    public Tuner(
            int nRanks,
            HostGroups hosts,
            boolean allShareMemory,
            boolean anyNetwork,
            boolean oversubscribed,
            String algo,
            String proto,
            Calibration calibration,
            long chunkBytes) {
        this(nRanks, hosts, allShareMemory, anyNetwork, oversubscribed, 1, algo, proto, calibration, chunkBytes);
    }

    /**
     * As above, knowing how many ranks share each CPU where they outnumber them ({@code cpuShare}, at least 1: the
     * most, over the hosts, of a host's ranks over its CPUs). The CPUs are time-sliced among the ranks, so every rank's
     * own work, its copies, reductions and outbox traffic, takes that many times as long, as {@link TimingSimulator}
     * charges it.
     */
    public Tuner(
            int nRanks,
            HostGroups hosts,
            boolean allShareMemory,
            boolean anyNetwork,
            boolean oversubscribed,
            double cpuShare,
            String algo,
            String proto,
            Calibration calibration,
            long chunkBytes) {
        this(
                nRanks,
                hosts,
                allShareMemory,
                anyNetwork,
                oversubscribed,
                algo,
                proto,
                calibration,
                cpuShare,
                cpuShare,
                chunkBytes,
                1,
                true);
    }

    /**
     * The figures as each rank gets them where {@code cpuShare} ranks share a CPU: the rates of what a rank's CPU does
     * (shared-memory copies, in and out of the cache, the outbox's traffic, the reduce kernels) divided among them; the
     * network's rate and every latency are not the CPU's, and stay. Without it the tuner priced each rank as if it had
     * a CPU, which favours the one-shot, whose every rank moves (P + 1) times its input where a ring moves twice:
     * measured at 6 and 8 ranks on 2 CPUs, 256 KiB AllReduce, the one-shot took 267-467 µs, the ring 177-226 and
     * Rabenseifner 156-196; at 4 ranks, 512 KiB, the one-shot 131-290 and the ring 87-122 (2026-11-28).
     */
    static Calibration shareCpus(Calibration calibration, double cpuShare) {
        if (!(cpuShare >= 1) || Double.isInfinite(cpuShare)) {
            throw new IllegalArgumentException("ranks per CPU must be at least 1, got " + cpuShare);
        }
        if (cpuShare == 1) return calibration;
        return calibration.with(
                Map.of(
                        "shm.bandwidth.gbps", calibration.shmGbPerSecond() / cpuShare,
                        "shm.cached.bandwidth.gbps", calibration.shmCachedGbPerSecond() / cpuShare,
                        "ll.bandwidth.gbps", calibration.llGbPerSecond() / cpuShare,
                        "reduce.gbps", calibration.reduceGbPerSecond() / cpuShare),
                calibration.source());
    }

    private Tuner(
            int nRanks,
            HostGroups hosts,
            boolean allShareMemory,
            boolean anyNetwork,
            boolean oversubscribed,
            String algo,
            String proto,
            Calibration unshared,
            double cpuShare,
            double handoffShare,
            long chunkBytes,
            double kernelSlowdown,
            boolean withTypes) {
        Calibration calibration = shareCpus(unshared, cpuShare);
        this.nRanks = nRanks;
        this.kernelSlowdown = kernelSlowdown;
        this.cpuShare = cpuShare;
        this.calibration = calibration;
        this.stepHandoffMicros = stepHandoff(oversubscribed, handoffShare, calibration);
        this.chunkBytes = Math.max(1, chunkBytes);
        this.shm = new Link(calibration.shmStepMicros(), calibration.shmGbPerSecond());
        this.net = new Link(calibration.netStepMicros(), calibration.netGbPerSecond());
        this.hosts = hosts;
        this.allShareMemory = allShareMemory;
        this.oversubscribed = oversubscribed;
        this.hostCount = hosts == null ? 1 : hosts.hosts();
        this.perHost = hosts == null ? nRanks : hosts.maxLocalSize();
        this.treeLinks = TreeLinks.of(Math.max(1, nRanks), hosts);
        this.rootedLinks = nRanks < 2 ? null : TreeLinks.ofRooted(nRanks, hosts);
        this.leaderLinks = hostCount < 2 ? null : TreeLinks.ofRooted(hostCount, HostGroups.evenly(hostCount, 1));
        this.localLinks = perHost < 2 ? null : TreeLinks.ofRooted(perHost, null);
        // Between hosts the network; inside a host shared memory, unless the ranks talk over sockets only.
        this.intra = anyNetwork && hostCount == 1 ? net : shm;
        this.algorithms = parse(
                algo, Algorithm.class, "ALGO", List.of("collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"));
        this.protocols = parse(proto, Protocol.class, "PROTO", List.of("ll128"));
        if (algo != null && !algo.isBlank()) warnWhereNothingAllowedApplies();
        // The children differ from this tuner only in their figures (before the CPUs' sharing), the ranks per CPU
        // they divide them by and their reduce kernel's rate; their ranks wait the same hand-offs.
        ChildFactory child = (figures, share, slowdown) -> new Tuner(
                nRanks,
                hosts,
                allShareMemory,
                anyNetwork,
                oversubscribed,
                algo,
                proto,
                figures,
                share,
                handoffShare,
                chunkBytes,
                slowdown,
                false);
        this.inCache = calibration.shmCachedGbPerSecond() == calibration.shmGbPerSecond()
                        || calibration.cacheMib() == 0
                        || oversubscribed
                ? null
                : child.make(
                        unshared.with(Map.of("shm.bandwidth.gbps", unshared.shmCachedGbPerSecond()), unshared.source()),
                        cpuShare,
                        kernelSlowdown);
        this.spilled = !oversubscribed || calibration.cacheMib() == 0
                ? null
                : child.make(
                        unshared.with(
                                Map.of(
                                        "shm.bandwidth.gbps",
                                        unshared.shmGbPerSecond() / spilledStall(cpuShare),
                                        "cache.mib",
                                        0.0),
                                unshared.source()),
                        cpuShare,
                        kernelSlowdown);
        this.rooted = cpuShare == 1 ? null : child.make(unshared, 1, kernelSlowdown);
        Map<DataType, Tuner> slow = new EnumMap<>(DataType.class);
        if (withTypes) {
            for (DataType t : DataType.values()) {
                double slowdown = calibration.kernelSlowdown(t);
                if (slowdown != 1) slow.put(t, child.make(unshared, cpuShare, slowdown));
            }
        }
        this.slowTypes = slow;
    }

    /**
     * A JCCL_ALGO that leaves a collective nothing it can run with (Bruck for an AllReduce, say) is not an error: that
     * collective runs with the tuner's pick, and the user hears so once, at start-up.
     */
    private void warnWhereNothingAllowedApplies() {
        if (nRanks < 2) return;
        for (Collective c : TUNED) {
            boolean runnable = false;
            for (Algorithm a : algorithms) {
                for (Protocol p : protocols) runnable |= !Double.isNaN(estimate(c, a, p, 1, 1));
            }
            if (!runnable) {
                warnings.add("JCCL_ALGO/NCCL_ALGO allows " + names(algorithms) + " (protocols " + names(protocols)
                        + "), which cannot run "
                        + c.displayName() + " here (" + nRanks + " ranks); " + c.displayName()
                        + " runs with the tuner's own pick");
            }
        }
    }

    /**
     * Whether {@code a} over {@code p} can run {@code c} on this communicator (a schedule exists, the links allow it).
     */
    public boolean canRun(Collective c, Algorithm a, Protocol p) {
        return !Double.isNaN(estimate(c, a, p, 1, 4));
    }

    /** The estimated µs of {@code a} over {@code p} for {@code count} elements of {@code type}; NaN where it cannot. */
    public double estimateMicros(Collective c, Algorithm a, Protocol p, long count, DataType type) {
        return forType(type).estimate(c, a, p, count, type.byteSize());
    }

    /** Bytes of a pipeline's piece: the largest piece of every schedule this tuner's communicator plans. */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** Problems with JCCL_ALGO / JCCL_PROTO, each a line for a warning. */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    /**
     * The fastest allowed way to run {@code collective} on {@code count} elements of {@code type} ({@code count} as the
     * API takes it: per rank for AllGather, ReduceScatter and AllToAll). When the user's filters leave nothing that can
     * run it, the fastest of all is used.
     */
    public Choice choose(Collective collective, long count, DataType type) {
        Tuner forType = forType(type);
        Choice best = null;
        double bestMicros = Double.POSITIVE_INFINITY;
        Choice bestUnfiltered = null;
        double bestUnfilteredMicros = Double.POSITIVE_INFINITY;
        for (Algorithm a : ALGORITHMS) {
            for (Protocol p : PROTOCOLS) {
                double t = forType.estimate(collective, a, p, count, type.byteSize());
                if (Double.isNaN(t)) continue;
                Choice c = CHOICES[a.ordinal()][p.ordinal()];
                if (t < bestUnfilteredMicros) {
                    bestUnfiltered = c;
                    bestUnfilteredMicros = t;
                }
                if (t < bestMicros && algorithms.contains(a) && protocols.contains(p)) {
                    best = c;
                    bestMicros = t;
                }
            }
        }
        return best != null ? best : bestUnfiltered;
    }

    private static final Algorithm[] ALGORITHMS = Algorithm.values();
    private static final Protocol[] PROTOCOLS = Protocol.values();

    /** The model that prices {@code type}'s reduce: its slow-type child, or this one for FLOAT32's rate. */
    private Tuner forType(DataType type) {
        return slowTypes.getOrDefault(type, this);
    }

    /** A rank's larger buffer, nccl-tests' "size": the whole result or input of the blocked collectives. */
    private double largerBuffer(Collective c, long count, int elementBytes) {
        return largerBuffer(c, count, elementBytes, nRanks);
    }

    /**
     * Bytes of the larger of a rank's two buffers for {@code count} elements as the API takes it: the whole gathered or
     * scattered buffer for the collectives whose count is per rank.
     */
    static double largerBuffer(Collective c, long count, int elementBytes, int nRanks) {
        double perRank = (double) count * elementBytes;
        boolean blocked = c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER || c == Collective.ALL_TO_ALL;
        return blocked ? perRank * nRanks : perRank;
    }

    /** Estimated µs of one way to run an operation, or NaN where that way cannot run it. */
    double estimate(Collective c, Algorithm a, Protocol p, long count, int elementBytes) {
        if (!TUNED.contains(c) || nRanks < 2) return a == Algorithm.RING && p == Protocol.SIMPLE ? 0 : Double.NaN;
        int n = nRanks;
        double perRank = (double) count * elementBytes;
        double total = largerBuffer(c, count, elementBytes);
        if (rooted != null && (c == Collective.BROADCAST || c == Collective.REDUCE)) {
            return rooted.estimate(c, a, p, count, elementBytes);
        }
        if (inCache != null && calibration.fitsInCache(total, perHost)) {
            return inCache.estimate(c, a, p, count, elementBytes);
        }
        if (spilled != null && !calibration.fitsInCache(total, perHost)) {
            return spilled.estimate(c, a, p, count, elementBytes);
        }
        if (p == Protocol.LL) {
            if (a != Algorithm.ONE_SHOT || !allShareMemory) return Double.NaN;
            // The busiest rank copies what it publishes into its outbox once and reads what it needs from the others'.
            double traffic = switch (c) {
                case ALL_REDUCE, REDUCE -> perRank + perRank * n;
                case REDUCE_SCATTER -> total + total;
                case ALL_GATHER, ALL_TO_ALL -> perRank + total * (n - 1) / n;
                case BROADCAST -> perRank;
                default -> Double.NaN;
            };
            // Where ranks share CPUs, one hand-off: each rank does all it can whenever it runs, and a peer scheduled
            // once finds every chunk it waits for. Charged two, the one-shot lost 2 ranks on 1 CPU to the ring and
            // recursive doubling, which measured slower: 16 B Broadcast 0.46-0.53 µs against the one-shot's 0.18,
            // AllReduce 2.59-2.65 against 1.84-1.92, AllGather and ReduceScatter alike; 64 KiB AllReduce 8.7-10.1
            // against 6.5-6.7 (taskset -c 0, 2026-11-28).
            double reduced = switch (c) {
                case ALL_REDUCE, REDUCE -> perRank * (n - 1);
                case REDUCE_SCATTER -> total * (n - 1) / n;
                default -> 0;
            };
            return calibration.llMicros()
                    + stepHandoffMicros
                    + (traffic + sharedCpuLlExtra(c, perRank, traffic)) / (calibration.llGbPerSecond() * 1e3)
                    + oneShotReduceExtra(reduced);
        }
        if (a == Algorithm.HIERARCHICAL && (c == Collective.BROADCAST || c == Collective.REDUCE)) {
            // With a rank per host the leaders' tree is the whole tree: the tree's schedule, less a copy per rank.
            if (!Planner.spansHosts(hosts) || perHost < 2) return Double.NaN;
            // Trees among the hosts' leaders, one rank per host, then trees inside the hosts (the other way round for
            // a Reduce); each level a binomial tree, or pipelined when the message is several pieces.
            boolean reduces = c == Collective.REDUCE;
            // The root copies while the leaders' trees drain, before the hosts' trees start.
            return groupTree(hostCount, leaderLinks, true, perRank, count, elementBytes, reduces)
                    + groupTree(perHost, localLinks, false, perRank, count, elementBytes, reduces)
                    + (reduces
                            ? 0
                            : rootsCopy(perRank, groupDrain(hostCount, leaderLinks, perRank, count, elementBytes)));
        }
        if (a == Algorithm.HIERARCHICAL && (c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER)) {
            if (!Planner.spansHosts(hosts)) return Double.NaN;
            // AllGather: the largest host's blocks to its leader, a ring of leaders passing whole hosts' blocks, then
            // the result down a tree inside each host. ReduceScatter: the same in reverse, reducing on the way.
            int l = hosts.maxLocalSize();
            int h = hosts.hosts();
            boolean reduces = c == Collective.REDUCE_SCATTER;
            double t = round(false, perRank * (l - 1), 1)
                    // The leader exchanges l - 1 messages with its ranks in one step, each with its share of a step.
                    + Math.max(0, l - 2) * intra.stepMicros() * MESSAGE_SHARE
                    + (h - 1) * round(true, perRank * l, 1)
                    + groupTree(l, localLinks, false, total, count * n, elementBytes, reduces);
            return reduces ? t + reduce((h - 1) * perRank * l) : t;
        }
        if (a == Algorithm.HIERARCHICAL && c == Collective.ALL_TO_ALL) {
            if (!Planner.spansHosts(hosts)) return Double.NaN;
            // Every rank's whole input to its leader, H - 1 rounds in which each leader trades one run of l × l blocks
            // with another (its host's link carries nothing else: only leaders cross), each rank's result back. The
            // leader's port takes the l - 1 inputs one after another, each with its share of a step, and sends the
            // l - 1 results the same way; it copies every block of its host twice, packing runs and ordering results.
            int l = hosts.maxLocalSize();
            int h = hosts.hosts();
            double handout = round(false, total * (l - 1), 1) + Math.max(0, l - 2) * intra.stepMicros() * MESSAGE_SHARE;
            return 2 * handout + (h - 1) * round(true, perRank * l * l, 1) + copy(2 * total * l);
        }
        if (a == Algorithm.HIERARCHICAL) {
            if (c != Collective.ALL_REDUCE || !hierarchical(hosts)) return Double.NaN;
            // Shared-memory rings inside hosts, L network rings side by side sharing each host's link. The rings drift
            // apart, so the link carries one ring's bytes while another's message is in flight: a network step costs
            // the longer of one ring's message and the link's share of all L (jccl sim, 64 hosts × 8, 2 MiB: 2.49 ms;
            // charging the latency on top of the L rings' bytes estimated 3.93 and lost the pick to the tree).
            int l = hosts.localSize();
            int h = hosts.hosts();
            double piece = total / l / h;
            double networkStep = Math.max(round(true, piece, 1), round(true, piece, l) - net.stepMicros());
            return 2 * (l - 1) * round(false, total / l, 1)
                    + 2 * (h - 1) * networkStep
                    + reduce(total * (l - 1) / l + total / l * (h - 1) / h);
        }
        if (a == Algorithm.ONE_SHOT) {
            if (c != Collective.ALL_REDUCE) return Double.NaN; // only AllReduce has a one-shot schedule
            // Sends its input to n-1 peers while receiving theirs, then reduces n inputs locally. The rank's port
            // takes every message's overhead and bytes one after another, while its host's link carries what all its
            // ranks send across: the longer of the two, and one latency (charging the link's bytes on top of the
            // messages put the estimate at 1.3-1.9 of jccl sim's from 256 B to 1 KiB on 2-32 hosts, and lost the
            // picks at 3 hosts × 7 ranks, 256 B-1 KiB, by up to 1.2×).
            boolean across = hostCount > 1;
            double latency = (across ? net : intra).stepMicros() * (1 - MESSAGE_SHARE);
            double port = (perHost - 1) * (intra.stepMicros() * MESSAGE_SHARE + perRank / (intra.gbPerSecond() * 1e3))
                    + (n - perHost) * (net.stepMicros() * MESSAGE_SHARE + perRank / (net.gbPerSecond() * 1e3));
            double link = across ? perRank * (n - perHost) * perHost / (net.gbPerSecond() * 1e3) : 0;
            // Where ranks share CPUs, each peer must be scheduled to take its message: a hand-off per peer of the host
            // (measured, 8 ranks on 2 CPUs, 8 B: one-shot 76-991 µs, recursive doubling's 3 rounds 40-204 µs).
            return latency
                    + stepHandoffMicros
                    + Math.max(port, link)
                    + (perHost - 1) * stepHandoffMicros
                    + n * perRank / (calibration.llGbPerSecond() * 1e3)
                    + oneShotReduceExtra(perRank * (n - 1));
        }
        if (a == Algorithm.RING) return ring(c, perRank, total);
        return logarithmic(c, a, n, perRank, total, count, elementBytes);
    }

    /**
     * One step in which every rank sends {@code bytes}: between ranks of a host, the intra-host link's latency and
     * bandwidth; across hosts ({@code crosses}), the network's latency, and its bandwidth shared by the
     * {@code sendersPerHost} ranks of a host that send across at once (a host's link is one NIC). Where ranks share
     * CPUs, a hand-off too.
     */
    private double round(boolean crosses, double bytes, double sendersPerHost) {
        if (!crosses) return intra.stepMicros() + stepHandoffMicros + bytes / (intra.gbPerSecond() * 1e3);
        return net.stepMicros() + stepHandoffMicros + sendersPerHost * bytes / (net.gbPerSecond() * 1e3);
    }

    /**
     * A pairwise exchange step across hosts, every rank of a host sending {@code bytes} over its link: one latency,
     * then the longer of the rank's own message (its overhead and bytes) and the link's share of every sender's bytes.
     * The steps carry no data from one to the next, so a rank's message overhead overlaps the link serving the others;
     * charging the link's bytes on top of a whole latency put the estimate at 1.15-1.2 of jccl sim's on 32 hosts × 16
     * at 256-512 KiB, and lost the 512 KiB pick to the two-level form by 1.13×.
     */
    private double pairwiseStepAcross(double bytes) {
        double message = net.stepMicros() * MESSAGE_SHARE + bytes / (net.gbPerSecond() * 1e3);
        double link = perHost * bytes / (net.gbPerSecond() * 1e3);
        return net.stepMicros() * (1 - MESSAGE_SHARE) + stepHandoffMicros + Math.max(message, link);
    }

    /** A step of a ring over all ranks: most hops inside hosts, one per host across; the slowest hop sets the pace. */
    private double ringStep(double bytes) {
        double inside = perHost > 1 ? round(false, bytes, 1) : 0;
        return hostCount > 1 ? Math.max(inside, round(true, bytes, 1)) : inside;
    }

    /**
     * Whether a step whose partners are {@code distance} ranks apart crosses hosts for some rank, with ranks placed
     * host by host: always once the distance reaches a host's ranks, and where hosts do not split into aligned groups.
     */
    private boolean crosses(long distance) {
        return hostCount > 1 && (distance >= perHost || perHost % (2 * distance) != 0);
    }

    /**
     * Round j of {@code trees} binomial trees (one, or AllReduce's two), {@code bytes} each. Inside a host a rank's
     * port carries every tree's part. Going up (a reduction) one rank of a host sends across per tree; going down (a
     * broadcast) every rank that has the data sends, and once 2^j reaches a host's ranks that is all the ranks of a
     * sending host, through its one link (found with the simulator: 8 hosts × 64 ranks, 64 KiB, the tree ran 6× the
     * estimate that had one sender per host).
     */
    private double treeRound(int j, double bytes, int trees, boolean down) {
        long distance = 1L << j;
        if (!crosses(distance)) return round(false, bytes, 1);
        return round(true, bytes, down && distance >= perHost ? perHost : trees);
    }

    /**
     * The pipelined double binary tree ({@link TreeAllReduce}), {@code pieces} per half of {@code piece} bytes each.
     * Filling and draining the pipeline, a piece passes every depth up and back down, a step per depth, at that depth's
     * link (across hosts where an edge of that depth crosses), a step carrying a piece and a half on the busiest port
     * (an inner rank takes its two children's pieces at once, a leaf's port has one; 1 and 2 put the estimate at 0.8
     * and 1.47 of the simulator's times where the fill dominates, 1.5 within 0.98-1.27 throughout). Once it runs, each
     * further piece costs the busiest port's step: a rank sends and receives four pieces a step (up and down the tree
     * it is inner in, up or down the one it is a leaf of) and combines two, and a host's link carries a piece each way
     * for every tree edge that leaves the host ({@link TreeLinks}). Checked against {@code jccl sim}.
     */
    private double pipelinedTree(long pieces, double piece) {
        double combine = reduce(2 * piece);
        double fill = 0;
        for (int depth = 1; depth <= treeLinks.height(); depth++) {
            fill += 2 * (round(treeLinks.crossesAtDepth()[depth], 1.5 * piece, 1) + combine);
        }
        double inside = round(false, 4 * piece, 1);
        double across = treeLinks.edgesPerHost() > 0 ? round(true, piece, treeLinks.edgesPerHost()) : 0;
        return fill
                + (pieces - 1) * (Math.max(inside, across) + combine)
                + pipelineHandoffs(pieces + 2L * treeLinks.height());
    }

    /**
     * A Broadcast of {@code bytes} ({@code count} elements), or with {@code reduces} a Reduce, over a group of
     * {@code groupSize} ranks whose trees are {@code links}, every edge across hosts or none ({@code acrossHosts}): the
     * binomial tree's rounds of the whole message when it is one piece, else the pipelined {@link RootedTrees}. The
     * levels of the two-level Broadcast and Reduce, and the last (first) level of the two-level AllGather
     * (ReduceScatter).
     */
    private double groupTree(
            int groupSize,
            TreeLinks links,
            boolean acrossHosts,
            double bytes,
            long count,
            int elementBytes,
            boolean reduces) {
        if (groupSize < 2) return 0;
        long pieces = TreeBroadcast.pieces(groupSize, count, Math.max(1, chunkBytes / elementBytes));
        if (pieces > 1) return pipelinedRootedTree(links, pieces, bytes / 2 / pieces, reduces);
        int rounds = BinomialTree.rounds(groupSize);
        return rounds * round(acrossHosts, bytes, 1) + (reduces ? reduce(rounds * bytes) : 0);
    }

    /**
     * How long {@link #groupTree}'s Broadcast runs after the root's last send: none for a binomial tree (the root sends
     * in every round), else the pipeline's fill below the root's children.
     */
    private double groupDrain(int groupSize, TreeLinks links, double bytes, long count, int elementBytes) {
        if (groupSize < 2) return 0;
        long pieces = TreeBroadcast.pieces(groupSize, count, Math.max(1, chunkBytes / elementBytes));
        return pieces > 1 ? pipelinedTreeDrain(links, bytes / 2 / pieces) : 0;
    }

    /**
     * The fill of a pipelined Broadcast's trees below depth 1: the steps the trees drain after the root's last send.
     */
    private double pipelinedTreeDrain(TreeLinks links, double piece) {
        return treeFill(links, piece, 0, 2);
    }

    /**
     * A piece passing the pipelined trees' depths from {@code fromDepth} down (up, for a Reduce): a step per depth at
     * that depth's link, plus {@code combine} where each step also combines.
     */
    private double treeFill(TreeLinks links, double piece, double combine, int fromDepth) {
        double fill = 0;
        for (int depth = fromDepth; depth <= links.height(); depth++) {
            fill += round(links.crossesAtDepth()[depth], 1.5 * piece, 1) + combine;
        }
        return fill;
    }

    /**
     * The pipelined {@link RootedTrees} ({@link TreeBroadcast}, {@link TreeReduce}), {@code pieces} per half of
     * {@code piece} bytes each. Filling the pipeline, a piece passes every depth, a step per depth at that depth's
     * link. Once it runs, each further piece costs the busiest port's step: a rank takes a piece of each half and
     * passes on two of the half whose tree it forwards for (a Reduce combines two), and a host's link carries a piece
     * for every edge that leaves the host in the busier direction.
     */
    private double pipelinedRootedTree(TreeLinks links, long pieces, double piece, boolean reduces) {
        double combine = reduces ? reduce(2 * piece) : 0;
        double fill = treeFill(links, piece, combine, 1);
        double inside = round(false, 2 * piece, 1);
        double across = links.edgesPerHost() > 0 ? round(true, piece, links.edgesPerHost()) : 0;
        return fill + (pieces - 1) * (Math.max(inside, across) + combine) + pipelineHandoffs(pieces + links.height());
    }

    /**
     * Where ranks share CPUs, what a pipelined tree's {@code steps} wait for besides the hand-off {@link #round}
     * charges: in each step a rank meets up to four peers (a parent in each tree, two children in one), and each must
     * be scheduled before the step can end. Measured, 8 ranks on this machine's 2 CPUs, 2 MiB Reduce: the pipelined
     * tree took 2.7-19.7 ms, against the one-shot's 0.73-0.90 and the chain's 1.2-2.6, where the estimate without these
     * hand-offs picked the tree (0.77 ms); with 4 ranks, 0.35-0.37 ms against the one-shot's 0.27-0.29.
     */
    private double pipelineHandoffs(long steps) {
        return 3 * steps * stepHandoffMicros;
    }

    /** Indices below {@code n} with bit {@code d} (a power of two) set: the blocks a Bruck AllToAll round moves. */
    private static long blocksWithBit(long d, long n) {
        return n / (2 * d) * d + Math.max(0, n % (2 * d) - d);
    }

    /**
     * What a Broadcast root's copy of its SEND into its RECV (out of place, as nccl-tests runs it) adds: the pipelined
     * schedules copy after the root's last send, so only what outlasts the {@code drain} that follows counts; the
     * others copy first. Left out of the estimates, the copy made them half the simulator's at 16 MiB on 1 × 8 ranks.
     */
    private double rootsCopy(double bytes, double drain) {
        return Math.max(0, copy(bytes) - drain);
    }

    /** A local copy of {@code bytes}, at the intra-host rate as the simulator counts it. */
    private double copy(double bytes) {
        return bytes / (intra.gbPerSecond() * 1e3);
    }

    /**
     * What a step of a lockstep schedule (ring, tree, recursive, the Simple one-shot's messages, the LL one-shot's one
     * wait) waits for its partner to be scheduled where ranks share CPUs: {@link Calibration#lockstepHandoffMicros} at
     * the hosts' ranks per CPU, measured in a loop of calls, or at two where that is not known (ranks forced to yield
     * by {@code JCCL_OVERSUBSCRIBED=1}).
     */
    private static double stepHandoff(boolean oversubscribed, double ranksPerCpu, Calibration calibration) {
        return oversubscribed ? calibration.lockstepHandoffMicros(Math.max(2, ranksPerCpu)) : 0;
    }

    /** γ: the time to reduce {@code bytes}, at this tuner's type's kernel rate. */
    private double reduce(double bytes) {
        return bytes * kernelSlowdown / (calibration.reduceGbPerSecond() * 1e3);
    }

    /**
     * What reducing {@code bytes} in a one-shot costs beyond FLOAT32's kernel: the LL rate was measured with FLOAT32,
     * so it includes that kernel's time already.
     */
    private double oneShotReduceExtra(double bytes) {
        return bytes * (kernelSlowdown - 1) / (calibration.reduceGbPerSecond() * 1e3);
    }

    /**
     * A pipelined chain of {@code total} bytes in chunks: the first chunk passes every hop (inside hosts, and across
     * once per host boundary), then each further chunk leaves at the slowest hop's pace. Filling the chain costs a
     * chunk's time per hop, not a bare latency: the simulator showed it (8 × 64 ranks, 8 MiB Broadcast: the chain 96 ms
     * simulated, the estimate a fifth of that, so the tuner took it over the two-level tree's 20 ms).
     */
    private double chain(double total) {
        double piece = Math.min(total, chunkBytes);
        double chunks = Math.max(1, Math.ceil(total / chunkBytes));
        return chainFill(piece) + (chunks - 1) * ringStep(piece);
    }

    /** A piece passing every hop of the chain: inside hosts, and across once per host boundary. */
    private double chainFill(double piece) {
        return (nRanks - hostCount) * round(false, piece, 1)
                + (hostCount - 1) * (hostCount > 1 ? round(true, piece, 1) : 0);
    }

    /**
     * How long a chain runs after its root's last send: the fill without its first hop, where the chain is longer than
     * one hop (on two ranks the root copies first).
     */
    private double chainDrain(double total) {
        if (nRanks <= 2) return 0;
        double piece = Math.min(total, chunkBytes);
        boolean firstHopCrosses = perHost == 1 && hostCount > 1; // else the root's successor shares its host
        return chainFill(piece) - round(firstHopCrosses, piece, 1);
    }

    /** Rings, chains and pairwise exchange: many steps of one block or chunk each. */
    private double ring(Collective c, double perRank, double total) {
        int n = nRanks;
        double block = total / n;
        return switch (c) {
            case ALL_REDUCE -> 2 * (n - 1) * ringStep(block) + reduce(total * (n - 1) / n);
            case ALL_GATHER -> (n - 1) * ringStep(block);
            case REDUCE_SCATTER -> (n - 1) * ringStep(block) + reduce(total * (n - 1) / n);
            case BROADCAST -> chain(total) + rootsCopy(total, chainDrain(total));
            case REDUCE -> chain(total) + reduce(total);
            // Pairwise: n - 1 steps of a block; across hosts, a host's ranks share its link.
            case ALL_TO_ALL -> {
                double inside = perHost > 1 ? (perHost - 1) * round(false, block, 1) : 0;
                double across = hostCount > 1 ? (n - perHost) * pairwiseStepAcross(block) : 0;
                yield inside + across;
            }
            default -> Double.NaN;
        };
    }

    /**
     * The tree and recursive algorithms: a few steps of the whole message, or of halves of it, each; a step whose
     * partners are on different hosts pays the network, shared by the ranks of a host that send across. NaN where
     * {@code a} has no schedule for {@code c}. Every count is the busiest rank's.
     */
    private double logarithmic(
            Collective c, Algorithm a, int n, double perRank, double total, long count, int elementBytes) {
        int powerOfTwo = Integer.highestOneBit(n);
        int log2 = Integer.numberOfTrailingZeros(powerOfTwo);
        int ceilLog2 = 32 - Integer.numberOfLeadingZeros(n - 1);
        // The pairs beyond a power of two hand over their input and take back the result: two steps to a neighbour.
        double fold = powerOfTwo == n ? 0 : 2 * round(crosses(1), perRank, 1);
        double t = 0;
        if (c == Collective.ALL_REDUCE && a == Algorithm.RECURSIVE_DOUBLING) {
            for (int j = 0; j < log2; j++) t += round(crosses(1L << j), perRank, perHost);
            return t + fold + reduce((log2 + (fold > 0 ? 1 : 0)) * perRank);
        }
        if (c == Collective.ALL_REDUCE && a == Algorithm.RABENSEIFNER) {
            for (int j = 0; j < log2; j++) {
                long distance = powerOfTwo >> (j + 1); // halving: half the data, then a quarter, …
                double part = perRank * distance / powerOfTwo;
                t += 2 * round(crosses(distance), part, perHost); // and the doubling round of the same distance
            }
            return t + fold + reduce(perRank * (powerOfTwo - 1) / powerOfTwo + (fold > 0 ? perRank : 0));
        }
        if (c == Collective.ALL_REDUCE && a == Algorithm.TREE) {
            long halfCount = Math.ceilDiv(count, 2);
            long pieces = TreeAllReduce.pieces(halfCount, Math.max(1, chunkBytes / elementBytes));
            if (pieces > 1) return pipelinedTree(pieces, perRank / 2 / pieces);
            // One piece: up then down two binomial trees, a half in each per step (a rank's two trees overlap).
            for (int j = 0; j < ceilLog2; j++) {
                t += treeRound(j, perRank / 2, 2, false) + treeRound(j, perRank / 2, 2, true);
            }
            return t + reduce(ceilLog2 * perRank);
        }
        if ((c == Collective.BROADCAST || c == Collective.REDUCE) && a == Algorithm.TREE) {
            long pieces = TreeBroadcast.pieces(n, count, Math.max(1, chunkBytes / elementBytes));
            boolean reduces = c == Collective.REDUCE;
            double drain = 0;
            if (pieces > 1) {
                t = pipelinedRootedTree(rootedLinks, pieces, perRank / 2 / pieces, reduces); // combines included
                drain = pipelinedTreeDrain(rootedLinks, perRank / 2 / pieces);
            } else {
                for (int j = 0; j < ceilLog2; j++) t += treeRound(j, perRank, 1, !reduces);
                if (reduces) t += reduce(ceilLog2 * perRank);
            }
            return t + (reduces ? 0 : rootsCopy(perRank, drain));
        }
        if (c == Collective.ALL_GATHER && a == Algorithm.BRUCK) {
            double block = total / n;
            for (long d = 1; d < n; d <<= 1) {
                double bytes = Math.min(d, n - d) * block;
                double inside = d < perHost ? round(false, bytes, 1) : 0;
                t += Math.max(inside, hostCount > 1 ? round(true, bytes, Math.min(d, perHost)) : 0);
            }
            return t;
        }
        if (c == Collective.ALL_TO_ALL && a == Algorithm.BRUCK) {
            // Each round sends the blocks whose index has that round's bit set, about half, packed into one message
            // and unpacked after; rotating in and out copies every block twice more. Across hosts the rank at a host's
            // edge crosses in every round, while the ranks whose partners stay on the host run ahead, so their
            // crossings use the host's link while the edge rank is still in earlier rounds: the time is the edge
            // rank's rounds, or the link's bytes over the whole operation if those take longer. (Charging every round
            // its crossing ranks' bytes one after another put 4 hosts × 16 ranks, 4 KiB, at 116 µs against the
            // simulator's 92, and lost the pick to the two-level AllToAll's 112.)
            double block = total / n;
            double link = 0;
            for (long d = 1; d < n; d <<= 1) {
                double bytes = blocksWithBit(d, n) * block;
                double inside = d < perHost ? round(false, bytes, 1) : 0;
                t += Math.max(inside, hostCount > 1 ? round(true, bytes, 1) : 0) + copy(2 * bytes);
                link += Math.min(d, perHost) * bytes / (net.gbPerSecond() * 1e3);
            }
            if (hostCount > 1) t = Math.max(t, net.stepMicros() + link);
            return t + copy(2 * total);
        }
        return Double.NaN;
    }

    /**
     * NCCL's tuning table: per collective and algorithm/protocol, the latency (µs) and bandwidth (GB/s of nccl-tests'
     * size) the model assumes; "-" where the pair cannot run it.
     */
    public String table() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-14s", "Algorithm"));
        for (Algorithm a : Algorithm.values()) sb.append(String.format(Locale.ROOT, "| %-27s", a.displayName()));
        sb.append('\n').append(String.format(Locale.ROOT, "%-14s", "Protocol"));
        for (Algorithm a : Algorithm.values()) {
            sb.append('|');
            for (Protocol p : Protocol.values()) sb.append(String.format(Locale.ROOT, " %-13s", p.displayName()));
        }
        sb.append('\n');
        for (Collective c : TUNED) {
            sb.append(String.format(Locale.ROOT, "%-14s", c.displayName()));
            for (Algorithm a : Algorithm.values()) {
                sb.append('|');
                for (Protocol p : Protocol.values()) {
                    // Latency: the estimate for nothing; bandwidth: nccl-tests' size over the time the bytes add.
                    long count = 1 << 20;
                    double lat = estimate(c, a, p, 0, 1);
                    double t = estimate(c, a, p, count, 1);
                    if (Double.isNaN(lat) || Double.isNaN(t)) {
                        sb.append(String.format(Locale.ROOT, " %-13s", "-"));
                        continue;
                    }
                    boolean blocked =
                            c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER || c == Collective.ALL_TO_ALL;
                    double size = blocked ? (double) count * nRanks : count;
                    sb.append(String.format(Locale.ROOT, " %5.1f/%6.2f ", lat, size / (t - lat) / 1e3));
                }
            }
            sb.append('\n');
        }
        sb.append("(latency µs / bandwidth GB/s, ").append(setting()).append(')');
        return sb.toString();
    }

    /**
     * The tuner's choices, for {@code jccl info --tuner}: for each collective, a row per size from {@code minBytes} to
     * {@code maxBytes} (×{@code factor}, nccl-tests' sizes, FLOAT32) with the estimated µs of every algorithm/protocol
     * that can run it, the pick marked {@code *}. Estimates ignore JCCL_ALGO/JCCL_PROTO; the pick honours them.
     */
    public String choiceTable(long minBytes, long maxBytes, long factor) {
        StringBuilder sb = new StringBuilder();
        for (Collective c : TUNED) {
            List<Choice> runnable = new ArrayList<>();
            for (Algorithm a : ALGORITHMS) {
                for (Protocol p : PROTOCOLS) {
                    if (!Double.isNaN(estimate(c, a, p, nRanks, 4))) runnable.add(CHOICES[a.ordinal()][p.ordinal()]);
                }
            }
            sb.append(String.format(Locale.ROOT, "%-14s %10s", c.displayName(), "size"));
            for (Choice ch : runnable) sb.append(String.format(Locale.ROOT, " %24s", ch.describe()));
            sb.append('\n');
            for (long bytes = minBytes; bytes <= maxBytes; bytes = Math.multiplyExact(bytes, Math.max(2, factor))) {
                boolean blocked =
                        c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER || c == Collective.ALL_TO_ALL;
                long count = Math.max(1, (blocked ? bytes / nRanks : bytes) / 4);
                Choice pick = choose(c, count, DataType.FLOAT32);
                sb.append(String.format(Locale.ROOT, "%-14s %10s", "", sizeText(bytes)));
                for (Choice ch : runnable) {
                    double us = estimate(c, ch.algorithm(), ch.protocol(), count, 4);
                    sb.append(String.format(Locale.ROOT, " %23.1f%s", us, ch == pick ? "*" : " "));
                }
                sb.append('\n');
                if (bytes > Long.MAX_VALUE / Math.max(2, factor)) break;
            }
        }
        sb.append("(estimated µs per operation, FLOAT32; * the pick; ")
                .append(setting())
                .append(')');
        return sb.toString();
    }

    /**
     * What the tables are for: ranks and hosts, the links, shared CPUs, and what JCCL_ALGO / JCCL_PROTO allow; one
     * sentence for {@link #table()} and {@link #choiceTable}.
     */
    private String setting() {
        return String.format(
                Locale.ROOT,
                "%d ranks%s, %s%s; allowed: algorithms %s, protocols %s; figures: %s",
                nRanks,
                hosts == null || hosts.hosts() < 2 ? "" : " on " + hosts.summary(),
                allShareMemory
                        ? "all in shared memory"
                        : hostCount == 1 && intra == net ? "over the network" : "shared memory and network",
                !oversubscribed
                        ? ""
                        : cpuShare > 1
                                ? String.format(Locale.ROOT, ", ranks share CPUs (%.3g per CPU)", cpuShare)
                                : ", ranks share CPUs",
                names(algorithms),
                names(protocols),
                calibration.source());
    }

    /** A size as the tables print it: {@code 8 B}, {@code 64 KiB}, {@code 256 MiB}, {@code 1 GiB}. */
    public static String sizeText(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) return (bytes >> 30) + " GiB";
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) return (bytes >> 20) + " MiB";
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) return (bytes >> 10) + " KiB";
        return bytes + " B";
    }

    /** Hosts that the hierarchical schedule fits: two or more, each with the same two or more ranks. */
    static boolean hierarchical(HostGroups g) {
        return g != null && g.hosts() >= 2 && g.uniform() && g.localSize() >= 2;
    }

    private static <E extends Enum<E>> String names(Set<E> set) {
        List<String> out = new ArrayList<>();
        for (E e : set) out.add(e instanceof Algorithm a ? a.displayName() : ((Protocol) e).displayName());
        return String.join(",", out);
    }

    /** NCCL's filter syntax: {@code Ring,LL} allows those; {@code ^LL} allows all but those; case does not matter. */
    private <E extends Enum<E>> Set<E> parse(String spec, Class<E> type, String variable, List<String> ncclOnly) {
        Set<E> all = EnumSet.allOf(type);
        if (spec == null || spec.isBlank()) return all;
        String s = spec.trim();
        boolean exclude = s.startsWith("^");
        if (exclude) s = s.substring(1);
        Set<E> named = EnumSet.noneOf(type);
        for (String part : s.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT).replace("_", "");
            if (name.isEmpty()) continue;
            E match = null;
            for (E e : all) {
                String display = (e instanceof Algorithm a ? a.displayName() : ((Protocol) e).displayName())
                        .toLowerCase(Locale.ROOT);
                if (display.equals(name)) match = e;
            }
            if (match != null) {
                named.add(match);
            } else if (ncclOnly.contains(name)) {
                warnings.add("JCCL_" + variable + "/NCCL_" + variable + " names " + part.trim()
                        + ", which NCCL has and Jccl does not; ignored");
            } else {
                warnings.add("JCCL_" + variable + "/NCCL_" + variable + " names " + part.trim()
                        + ", which is not a Jccl "
                        + (type == Algorithm.class
                                ? "algorithm ("
                                        + names(EnumSet.allOf(Algorithm.class)).replace(",", ", ") + ")"
                                : "protocol (LL, Simple)")
                        + "; ignored");
            }
        }
        if (exclude) {
            Set<E> allowed = EnumSet.copyOf(all);
            allowed.removeAll(named);
            return allowed;
        }
        return named.isEmpty() ? all : named;
    }
}
