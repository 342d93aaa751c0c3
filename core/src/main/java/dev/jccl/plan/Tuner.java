package dev.jccl.plan;

import dev.jccl.DataType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Chooses how each collective runs, as NCCL's tuning does: every algorithm × protocol that can carry the operation gets
 * an estimated time {@code latency + bytes × factor / bandwidth}, and the cheapest wins, among those that
 * {@code JCCL_ALGO} / {@code JCCL_PROTO} allow. The table is plain data, printed at start-up with
 * {@code JCCL_DEBUG_SUBSYS=TUNING} and tested.
 *
 * <p>Algorithms: {@link Algorithm#RING} (ring AllReduce/AllGather/ReduceScatter, pipelined chain Broadcast/Reduce,
 * pairwise AllToAll: what NCCL also calls Ring), and {@link Algorithm#ONE_SHOT} (every rank hands its input to every
 * rank that needs it, which computes its own result, in rank order, in one round: the least latency and the fewest
 * handoffs, the most traffic), and {@link Algorithm#HIERARCHICAL} (AllReduce across hosts with equal numbers of ranks:
 * reduce-scatter inside each host, AllReduce of each block across hosts, all-gather inside each host; see
 * {@code HierarchicalAllReduce}). Protocols: {@link Protocol#SIMPLE} (framed chunks through the transports' rings and
 * sockets) and {@link Protocol#LL} (low latency: each rank publishes flagged chunks in an outbox in shared memory that
 * every local rank reads in place; only when every rank shares memory).
 *
 * <p>The constants are measured on the project's reference machine (a Firecracker VM with 2 Zen 5 vCPUs, no PCID),
 * rounded; they decide crossovers, not promises.
 */
public final class Tuner {

    public enum Algorithm {
        RING("Ring"),
        ONE_SHOT("OneShot"),
        HIERARCHICAL("Hierarchical");

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
     * Ring steps between ranks that share memory: one pass of the runtime's step loop plus a cache-line handoff. The
     * bandwidth is what a ring AllReduce reaches per byte of its factor on the reference VM (2 Zen 5 vCPUs), between
     * the cache-resident figure (8-10 GB/s at 1 MiB) and the out-of-cache one (3.8 GB/s at 64 MiB): every byte is
     * copied into the pair's ring and out.
     */
    static final Link SHM = new Link(1.5, 6.0);
    /** Ring steps over sockets: a loopback or LAN round of small frames. */
    static final Link NET = new Link(12.0, 2.5);
    /**
     * The outbox exchange: one flag per chunk, data copied once and read in place by every reader. Bandwidth per byte
     * of traffic (see {@link #estimate}), measured with the Vector API kernels: 2 ranks, 1 MiB, 118 µs for 3 MiB (26
     * GB/s), 64 MiB 10.3 ms for 192 MiB (19.5 GB/s), where the ring took 17.5 ms; 4 ranks on 2 CPUs, 1 MiB, 390-500 µs
     * where the ring took 1.2-4.5 ms. So on one host the outbox wins up to 4 ranks at any size; from 5 ranks, where
     * each reader's traffic grows with the ranks and the ring's does not, the ring wins big reductions.
     */
    static final double LL_MICROS = 0.6;

    static final double LL_GB_PER_SECOND = 20.0;
    /**
     * Where ranks share CPUs, what one hand-off between ranks adds: the rank that waits must yield its CPU to a peer
     * and be scheduled again. A yield that switches between two rank processes costs about 6 µs on the reference VM
     * (PTI, no PCID: each switch flushes the TLB), and a hand-off needs one or two. A ring step is one hand-off; the LL
     * round needs every rank of a CPU to run once, about two. The ranks' copying and reducing also share the CPUs,
     * which slows every algorithm alike and so is left out of the comparison.
     */
    static final double HANDOFF_MICROS = 10.0;

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
    private final Link link;
    private final Set<Algorithm> algorithms;
    private final Set<Protocol> protocols;
    private final List<String> warnings = new ArrayList<>();

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
     * may wait for a context switch (see {@link #HANDOFF_MICROS}).
     */
    public Tuner(
            int nRanks,
            HostGroups hosts,
            boolean allShareMemory,
            boolean anyNetwork,
            boolean oversubscribed,
            String algo,
            String proto) {
        this.nRanks = nRanks;
        this.hosts = hosts;
        this.allShareMemory = allShareMemory;
        this.oversubscribed = oversubscribed;
        this.link = anyNetwork ? NET : SHM;
        this.algorithms = parse(
                algo,
                Algorithm.class,
                "ALGO",
                List.of("tree", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"));
        this.protocols = parse(proto, Protocol.class, "PROTO", List.of("ll128"));
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
        Choice best = null;
        double bestMicros = Double.POSITIVE_INFINITY;
        Choice bestUnfiltered = null;
        double bestUnfilteredMicros = Double.POSITIVE_INFINITY;
        for (Algorithm a : ALGORITHMS) {
            for (Protocol p : PROTOCOLS) {
                double t = estimate(collective, a, p, count, type.byteSize());
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

    /** Estimated µs of one way to run an operation, or NaN where that way cannot run it. */
    double estimate(Collective c, Algorithm a, Protocol p, long count, int elementBytes) {
        if (!TUNED.contains(c) || nRanks < 2) return a == Algorithm.RING && p == Protocol.SIMPLE ? 0 : Double.NaN;
        int n = nRanks;
        double perRank = (double) count * elementBytes;
        boolean blocked = c == Collective.ALL_GATHER || c == Collective.REDUCE_SCATTER || c == Collective.ALL_TO_ALL;
        double total = blocked ? perRank * n : perRank; // nccl-tests' "size": the larger buffer
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
            return LL_MICROS + (oversubscribed ? 2 * HANDOFF_MICROS : 0) + traffic / (LL_GB_PER_SECOND * 1e3);
        }
        if (a == Algorithm.HIERARCHICAL) {
            if (c != Collective.ALL_REDUCE || !hierarchical(hosts)) return Double.NaN;
            // Shared-memory rings inside hosts, L network rings side by side sharing each host's link.
            int l = hosts.localSize();
            int h = hosts.hosts();
            double handoff = oversubscribed ? HANDOFF_MICROS : 0;
            return 2 * (l - 1) * (SHM.stepMicros() + handoff)
                    + 2 * (h - 1) * (NET.stepMicros() + handoff)
                    + total * 2.0 * (l - 1) / l / (SHM.gbPerSecond() * 1e3)
                    + total * 2.0 * (h - 1) / h / (NET.gbPerSecond() * 1e3);
        }
        if (a == Algorithm.ONE_SHOT) {
            if (c != Collective.ALL_REDUCE) return Double.NaN; // only AllReduce has a one-shot schedule
            // Sends its input to n-1 peers while receiving theirs, then reduces n inputs locally.
            return link.stepMicros()
                    + (oversubscribed ? 2 * HANDOFF_MICROS : 0)
                    + (n - 1) * perRank / (link.gbPerSecond() * 1e3)
                    + n * perRank / (LL_GB_PER_SECOND * 1e3);
        }
        double steps;
        double factor;
        switch (c) {
            case ALL_REDUCE -> {
                steps = 2 * (n - 1);
                factor = 2.0 * (n - 1) / n;
            }
            case BROADCAST, REDUCE -> {
                steps = n - 1;
                factor = 1;
            }
            default -> {
                steps = n - 1;
                factor = (n - 1.0) / n;
            }
        }
        return steps * (link.stepMicros() + (oversubscribed ? HANDOFF_MICROS : 0))
                + total * factor / (link.gbPerSecond() * 1e3);
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
        sb.append(String.format(
                Locale.ROOT,
                "(latency µs / bandwidth GB/s, %d ranks%s, %s%s; allowed: algorithms %s, protocols %s)",
                nRanks,
                hosts == null || hosts.hosts() < 2 ? "" : " on " + hosts.hosts() + " hosts (" + hosts + ")",
                allShareMemory
                        ? "all in shared memory"
                        : link == NET ? "over the network" : "shared memory and network",
                oversubscribed ? ", ranks share CPUs" : "",
                names(algorithms),
                names(protocols)));
        return sb.toString();
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
                warnings.add(
                        "JCCL_" + variable + "/NCCL_" + variable + " names " + part.trim() + ", which is not a Jccl "
                                + (type == Algorithm.class
                                        ? "algorithm (Ring, OneShot, Hierarchical)"
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
