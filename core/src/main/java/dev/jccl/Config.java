package dev.jccl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a communicator. Each knob is a {@code JCCL_*} variable; where NCCL has the same knob its {@code NCCL_*}
 * name is read too, and the {@code JCCL_} one wins, so cluster scripts written for NCCL carry over.
 *
 * <p>Build one with {@link #builder()}, or read the environment with {@link #fromEnvironment()}. Instances are
 * immutable and thread-safe.
 */
public final class Config {
    /**
     * Deadline of every wait ({@code 300s} by default; {@code 90}, {@code 90s}, {@code 2m}, {@code 500ms}). The suffix
     * constants below name variables read as {@code JCCL_<suffix>}, or else as NCCL's {@code NCCL_<suffix>}.
     */
    public static final String TIMEOUT = "JCCL_TIMEOUT";

    /** Network interfaces to use: name prefixes, {@code ^} to exclude, {@code =} for exact names. */
    public static final String SOCKET_IFNAME = "SOCKET_IFNAME";
    /** Debug level: {@code VERSION}, {@code WARN}, {@code INFO} or {@code TRACE} (see {@link DebugLevel}). */
    public static final String DEBUG = "DEBUG";
    /** Subsystems whose debug lines are printed ({@code INIT,COLL,NET,…}; {@code ^} excludes). */
    public static final String DEBUG_SUBSYS = "DEBUG_SUBSYS";
    /** Algorithms the tuner may choose from ({@code ring}, {@code ^tree}, …). */
    public static final String ALGO = "ALGO";
    /** Protocols the tuner may choose from. */
    public static final String PROTO = "PROTO";
    /** Staging bytes per connection (default 4 MiB); chunks are a quarter of it. */
    public static final String BUFFSIZE = "BUFFSIZE";
    /** NCCL's TCP helper threads per connection (1..16): checked and shown, not used; Jccl's TCP has one. */
    public static final String SOCKET_NTHREADS = "SOCKET_NTHREADS";
    /** NCCL's sockets per helper thread (1..16): checked and shown, not used; Jccl opens one per peer. */
    public static final String NSOCKS_PERTHREAD = "NSOCKS_PERTHREAD";
    /** Accepted for NCCL compatibility; Jccl's channels are chosen per transport. */
    public static final String MIN_NCHANNELS = "MIN_NCHANNELS";
    /** Accepted for NCCL compatibility; Jccl's channels are chosen per transport. */
    public static final String MAX_NCHANNELS = "MAX_NCHANNELS";
    /** {@code 1} makes ranks on the same host talk over TCP instead of shared memory. */
    public static final String SHM_DISABLE = "SHM_DISABLE";
    /** Network transport between hosts: {@code Socket} (default) or a plugin's name, such as {@code UCX}. */
    public static final String NET = "NET";
    /** RDMA devices (and ports) a network plugin may use, in NCCL's syntax ({@code mlx5_0:1,^mlx5_3}). */
    public static final String IB_HCA = "IB_HCA";
    /** Overrides which host a rank counts as on (ranks of one host share memory). */
    public static final String HOSTID = "HOSTID";
    /** Whether this host's ranks share CPUs: {@code auto} (default), {@code 1} or {@code 0}. */
    public static final String OVERSUBSCRIBED = "JCCL_OVERSUBSCRIBED";
    /**
     * Whether ranks of one host may read each other's buffers directly, by single copy ({@code process_vm_readv}):
     * {@code 1} (default, where the kernel allows it) or {@code 0} (always copy through shared memory).
     */
    public static final String SHM_SINGLE_COPY = "JCCL_SHM_SINGLE_COPY";
    /** How many of its latest operations each rank's flight recorder keeps (default 2048; 0 turns it off). */
    public static final String TRACE_BUFFER = "JCCL_TRACE_BUFFER";
    /** Where a rank writes its flight recorder when an operation fails (default: the JVM's temporary directory). */
    public static final String TRACE_DIR = "JCCL_TRACE_DIR";
    /**
     * The tuner's calibration file, written by {@code jccl perf --calibrate}, or {@code none} (default:
     * {@code ~/.config/jccl/calibration.properties} if it exists).
     */
    public static final String CALIBRATION = "JCCL_CALIBRATION";
    /** Where debug lines go: {@code auto} (default), {@code stdout} or {@code logger} ({@link System.Logger}). */
    public static final String DEBUG_SINK = "JCCL_DEBUG_SINK";

    /** Suffixes read as {@code JCCL_x}, then {@code NCCL_x}. */
    static final List<String> SHARED_WITH_NCCL = List.of(
            SOCKET_IFNAME,
            DEBUG,
            DEBUG_SUBSYS,
            ALGO,
            PROTO,
            BUFFSIZE,
            SOCKET_NTHREADS,
            NSOCKS_PERTHREAD,
            MIN_NCHANNELS,
            MAX_NCHANNELS,
            SHM_DISABLE,
            NET,
            IB_HCA,
            HOSTID);

    /** Variables only Jccl reads (beyond the launcher ones, see {@code LaunchEnvironment}). */
    static final List<String> JCCL_ONLY = List.of(
            TIMEOUT,
            OVERSUBSCRIBED,
            SHM_SINGLE_COPY,
            TRACE_BUFFER,
            TRACE_DIR,
            CALIBRATION,
            DEBUG_SINK,
            "JCCL_ID",
            "JCCL_ROOT",
            "JCCL_RANK",
            "JCCL_WORLD_SIZE",
            "JCCL_LOCAL_RANK",
            "JCCL_LOCAL_SIZE",
            "JCCL_PORT",
            "JCCL_SECRET",
            "JCCL_JOB_ID",
            "JCCL_JVM_ROOT",
            // read by the jccl-cuda module
            "JCCL_CUDA_LIB",
            "JCCL_NCCL_LIB",
            "JCCL_CUDA_PATH");

    /** Deadline of every wait when {@code JCCL_TIMEOUT} is not set. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(300);
    /** Bytes of staging per connection; chunks are a quarter of it so that two are always in flight. */
    public static final int DEFAULT_BUFFSIZE = 4 << 20;

    /**
     * The default piece where the ranks of one host talk over sockets ({@link #chunkBytes(boolean, boolean)}). Open
     * MPI's TCP BTL cuts large messages into 128 KiB fragments too ({@code btl_tcp_max_send_size}). Measured on the
     * 2-CPU loopback machine (2 ranks, AllReduce, medians of 3): 128 KiB pieces take 0.65-0.85 of the time of 1 MiB
     * pieces from 1 MiB to 64 MiB (1 MiB: 212 against 323 µs; 64 MiB: 20.1 against 23.6 ms); 256 KiB gained only at 1
     * MiB and 64 KiB lost. Neither socket buffers of 4 MiB nor reads capped at 128 KiB made 1 MiB pieces faster, so it
     * is the steps' length that matters, not the socket's.
     *
     * <p>Not used where ranks share CPUs, where every extra step costs hand-offs (4 ranks on 2 CPUs, 1 MiB: 1179
     * against 728 µs); nor with UCX (64 MiB over loopback: 47.8 ms in 128 KiB pieces against 35.7 in 1 MiB ones); nor
     * across hosts, where it is not measured and the cost model says more, shorter steps lose (2 hosts at 12 µs and 2.5
     * GB/s: the ring 15% slower at 16 MiB).
     */
    public static final int SOCKET_CHUNK_BYTES = 128 << 10;

    /** The smallest accepted {@code BUFFSIZE}. */
    public static final int MIN_BUFFSIZE = 4 << 10;

    /** Operations the flight recorder keeps when {@code JCCL_TRACE_BUFFER} is not set. */
    public static final int DEFAULT_TRACE_BUFFER = 2048;

    /** NCCL-style debug levels, in increasing verbosity. */
    public enum DebugLevel {
        /** Nothing. */
        NONE,
        /** The version banner only. */
        VERSION,
        /** Errors and warnings (the default). */
        WARN,
        /** Also set-up: transports per peer, interfaces, tuner choices. */
        INFO,
        /** Also every operation. */
        TRACE
    }

    /**
     * Where debug lines go ({@code JCCL_DEBUG_SINK}): {@code STDOUT} prints NCCL-shaped lines, {@code LOGGER} makes
     * them {@link System.Logger} records (logger {@code dev.jccl.<SUBSYS>}), {@code AUTO} chooses the logger when the
     * application has installed its own {@link System.LoggerFinder} and stdout otherwise.
     */
    public enum DebugSink {
        /** The logger if the application installed a {@link System.LoggerFinder}, else stdout. */
        AUTO,
        /** NCCL-shaped lines on stdout. */
        STDOUT,
        /** {@link System.Logger} records. */
        LOGGER
    }

    /**
     * Whether the ranks of this host share CPUs ({@code JCCL_OVERSUBSCRIBED}), which decides how waiting ranks wait
     * (yield rather than spin) and which algorithms the tuner prefers (fewer hand-offs between ranks). {@code AUTO}
     * compares this host's ranks with the CPUs the JVM may use (its affinity mask and a container's CPU quota).
     */
    public enum Oversubscription {
        /** Decided by comparing this host's ranks with the JVM's CPUs. */
        AUTO,
        /** The ranks share CPUs: waiters yield. */
        YES,
        /** Every rank has a CPU: waiters may spin. */
        NO
    }

    private final Duration timeout;
    private final String socketIfname;
    private final DebugLevel debugLevel;
    private final String debugSubsys;
    private final DebugSink debugSink;
    private final String algo;
    private final String proto;
    private final int buffSize;
    private final int socketThreads;
    private final int socketsPerThread;
    private final boolean shmDisable;
    private final String net;
    private final String ibHca;
    private final String hostId;
    private final Oversubscription oversubscription;
    private final boolean shmSingleCopy;
    private final int traceBuffer;
    private final String traceDir;
    private final String calibration;
    private final Map<String, String> sources;

    private Config(Builder b) {
        this.timeout = b.timeout;
        this.socketIfname = b.socketIfname;
        this.debugLevel = b.debugLevel;
        this.debugSubsys = b.debugSubsys;
        this.debugSink = b.debugSink;
        this.algo = b.algo;
        this.proto = b.proto;
        this.buffSize = b.buffSize;
        this.socketThreads = b.socketThreads;
        this.socketsPerThread = b.socketsPerThread;
        this.shmDisable = b.shmDisable;
        this.net = b.net;
        this.ibHca = b.ibHca;
        this.hostId = b.hostId;
        this.oversubscription = b.oversubscription;
        this.shmSingleCopy = b.shmSingleCopy;
        this.traceBuffer = b.traceBuffer;
        this.traceDir = b.traceDir;
        this.calibration = b.calibration;
        this.sources = Map.copyOf(b.sources);
    }

    /** A builder with every setting at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.timeout = timeout;
        b.socketIfname = socketIfname;
        b.debugLevel = debugLevel;
        b.debugSubsys = debugSubsys;
        b.debugSink = debugSink;
        b.algo = algo;
        b.proto = proto;
        b.buffSize = buffSize;
        b.socketThreads = socketThreads;
        b.socketsPerThread = socketsPerThread;
        b.shmDisable = shmDisable;
        b.net = net;
        b.ibHca = ibHca;
        b.hostId = hostId;
        b.oversubscription = oversubscription;
        b.shmSingleCopy = shmSingleCopy;
        b.traceBuffer = traceBuffer;
        b.traceDir = traceDir;
        b.calibration = calibration;
        b.sources.putAll(sources);
        return b;
    }

    /** Reads {@code JCCL_*} / {@code NCCL_*} variables from the process environment. */
    public static Config fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * Reads the variables from {@code env}. A malformed value is an {@link IllegalArgumentException} naming the
     * variable; unknown {@code JCCL_*} names are reported by {@link #unknownVariables}.
     */
    public static Config fromEnvironment(Map<String, String> env) {
        Builder b = new Builder();
        Map<String, String> fromVariables = new LinkedHashMap<>();
        String t = env.get(TIMEOUT);
        if (t != null && !t.isBlank()) {
            b.timeout(parseDuration(TIMEOUT, t));
            fromVariables.put("timeout", TIMEOUT);
        }
        String o = env.get(OVERSUBSCRIBED);
        if (o != null && !o.isBlank()) {
            b.oversubscription(parseOversubscription(o));
            fromVariables.put("oversubscribed", OVERSUBSCRIBED);
        }
        String sc = env.get(SHM_SINGLE_COPY);
        if (sc != null && !sc.isBlank()) {
            b.shmSingleCopy(parseSwitch(SHM_SINGLE_COPY, sc));
            fromVariables.put("shmSingleCopy", SHM_SINGLE_COPY);
        }
        String tb = env.get(TRACE_BUFFER);
        if (tb != null && !tb.isBlank()) {
            b.traceBuffer(parseInt(TRACE_BUFFER, tb));
            fromVariables.put("traceBuffer", TRACE_BUFFER);
        }
        String td = env.get(TRACE_DIR);
        if (td != null && !td.isBlank()) {
            b.traceDir(td.trim());
            fromVariables.put("traceDir", TRACE_DIR);
        }
        String cal = env.get(CALIBRATION);
        if (cal != null && !cal.isBlank()) {
            b.calibration(cal.trim());
            fromVariables.put("calibration", CALIBRATION);
        }
        String ds = env.get(DEBUG_SINK);
        if (ds != null && !ds.isBlank()) {
            b.debugSink(parseDebugSink(ds));
            fromVariables.put("debugSink", DEBUG_SINK);
        }
        String v;
        if ((v = shared(env, SOCKET_IFNAME, b, "socketIfname")) != null) b.socketIfname(v);
        if ((v = shared(env, DEBUG, b, "debug")) != null) b.debugLevel(parseDebugLevel(v));
        if ((v = shared(env, DEBUG_SUBSYS, b, "debugSubsys")) != null) b.debugSubsys(v);
        if ((v = shared(env, ALGO, b, "algo")) != null) b.algo(v);
        if ((v = shared(env, PROTO, b, "proto")) != null) b.proto(v);
        if ((v = shared(env, BUFFSIZE, b, "buffSize")) != null) b.buffSize(parseInt(prefixed(env, BUFFSIZE), v));
        if ((v = shared(env, SOCKET_NTHREADS, b, "socketThreads")) != null) {
            b.socketThreads(parseInt(prefixed(env, SOCKET_NTHREADS), v));
        }
        if ((v = shared(env, NSOCKS_PERTHREAD, b, "socketsPerThread")) != null) {
            b.socketsPerThread(parseInt(prefixed(env, NSOCKS_PERTHREAD), v));
        }
        if ((v = shared(env, SHM_DISABLE, b, "shmDisable")) != null) {
            b.shmDisable(!v.trim().equals("0"));
        }
        if ((v = shared(env, NET, b, "net")) != null) b.net(v);
        if ((v = shared(env, IB_HCA, b, "ibHca")) != null) b.ibHca(v);
        if ((v = shared(env, HOSTID, b, "hostId")) != null) b.hostId(v);
        b.sources.putAll(fromVariables);
        b.sources.putAll(b.variableSources);
        return b.build();
    }

    private static String prefixed(Map<String, String> env, String suffix) {
        return env.containsKey("JCCL_" + suffix) ? "JCCL_" + suffix : "NCCL_" + suffix;
    }

    private static String shared(Map<String, String> env, String suffix, Builder b, String knob) {
        String j = env.get("JCCL_" + suffix);
        if (j != null && !j.isBlank()) {
            b.variableSources.put(knob, "JCCL_" + suffix);
            return j.trim();
        }
        String n = env.get("NCCL_" + suffix);
        if (n != null && !n.isBlank()) {
            b.variableSources.put(knob, "NCCL_" + suffix);
            return n.trim();
        }
        return null;
    }

    /**
     * {@code JCCL_*} variables in {@code env} that Jccl does not read, each with the closest real name, e.g.
     * {@code "JCCL_TIMOUT (did you mean JCCL_TIMEOUT?)"}.
     */
    public static List<String> unknownVariables(Map<String, String> env) {
        List<String> known = new ArrayList<>(JCCL_ONLY);
        for (String s : SHARED_WITH_NCCL) known.add("JCCL_" + s);
        List<String> out = new ArrayList<>();
        for (String name : env.keySet()) {
            if (!name.startsWith("JCCL_") || known.contains(name)) continue;
            String best = null;
            int bestDistance = Integer.MAX_VALUE;
            for (String k : known) {
                int d = editDistance(name, k);
                if (d < bestDistance) {
                    bestDistance = d;
                    best = k;
                }
            }
            out.add(name + (bestDistance <= 4 ? " (did you mean " + best + "?)" : " (not a Jccl variable)"));
        }
        out.sort(null);
        return out;
    }

    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** Parses {@code 30}, {@code 30s}, {@code 500ms}, {@code 2m}; a bare number is seconds. */
    public static Duration parseDuration(String variable, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(
                        Double.parseDouble(v.substring(0, v.length() - 1).trim()) * 1000));
            }
            if (v.endsWith("m")) {
                return Duration.ofSeconds(
                        Long.parseLong(v.substring(0, v.length() - 1).trim()) * 60);
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    variable + "='" + value + "' is not a duration; write seconds (30), or 30s, 500ms, 2m");
        }
    }

    private static int parseInt(String variable, String value) {
        try {
            return Integer.decode(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(variable + "='" + value + "' is not an integer");
        }
    }

    private static boolean parseSwitch(String variable, String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "1", "yes", "true", "on" -> true;
            case "0", "no", "false", "off" -> false;
            default -> throw new IllegalArgumentException(variable + "='" + v + "' is not a setting; use 1 or 0");
        };
    }

    private static Oversubscription parseOversubscription(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> Oversubscription.AUTO;
            case "1", "yes", "true", "on" -> Oversubscription.YES;
            case "0", "no", "false", "off" -> Oversubscription.NO;
            default ->
                throw new IllegalArgumentException(
                        OVERSUBSCRIBED + "='" + v + "' is not a setting; use auto (the default: compare this host's"
                                + " ranks with its CPUs), 1 (ranks share CPUs: waiting ranks yield) or 0 "
                                + "(a CPU per rank: waiting ranks spin)");
        };
    }

    private static DebugSink parseDebugSink(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> DebugSink.AUTO;
            case "stdout" -> DebugSink.STDOUT;
            case "logger" -> DebugSink.LOGGER;
            default ->
                throw new IllegalArgumentException(
                        DEBUG_SINK + "='" + v + "' is not a sink; use auto (the default: System.Logger when the"
                                + " application installed a LoggerFinder, else stdout), stdout or logger");
        };
    }

    private static DebugLevel parseDebugLevel(String v) {
        try {
            return DebugLevel.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "JCCL_DEBUG/NCCL_DEBUG='" + v + "' is not a level; use NONE, VERSION, WARN, INFO or TRACE");
        }
    }

    /** Entries of each rank's flight recorder ({@code JCCL_TRACE_BUFFER}); 0 when it is off. */
    public int traceBuffer() {
        return traceBuffer;
    }

    /** Where a failed operation's flight recorder is written ({@code JCCL_TRACE_DIR}), or null for the temp dir. */
    public String traceDir() {
        return traceDir;
    }

    /**
     * The tuner's calibration file ({@code JCCL_CALIBRATION}): a path, {@code none}, or null for the default file (see
     * {@code plan.CalibrationFile}).
     */
    public String calibration() {
        return calibration;
    }

    /**
     * Where a setting's value came from: the variable that set it ({@code JCCL_TIMEOUT}, {@code NCCL_SOCKET_IFNAME}…),
     * {@code "builder"}, or {@code "default"}. Settings are named as in {@link #describe()}'s first column, e.g.
     * {@code timeout}, {@code socketIfname}; integrations use it to fill in only what the user left unset.
     */
    public String sourceOf(String setting) {
        return sources.getOrDefault(setting, "default");
    }

    /** Bound on every wait: bootstrap, connection set-up, each collective. */
    public Duration timeout() {
        return timeout;
    }

    /** NCCL-syntax interface filter ({@code eth0}, {@code ^docker}, {@code =eth0}), or null for automatic. */
    public String socketIfname() {
        return socketIfname;
    }

    /** How much is logged ({@code JCCL_DEBUG}). */
    public DebugLevel debugLevel() {
        return debugLevel;
    }

    /** Comma-separated subsystems to print ({@code INIT,NET,…}, {@code ^} to exclude), or null for the default. */
    public String debugSubsys() {
        return debugSubsys;
    }

    /** Where debug lines go ({@code JCCL_DEBUG_SINK}). */
    public DebugSink debugSink() {
        return debugSink;
    }

    /** Requested algorithm list ({@code ring}, {@code ^tree}…), or null to let the tuner choose. */
    public String algo() {
        return algo;
    }

    /** Requested protocol list, or null to let the tuner choose. */
    public String proto() {
        return proto;
    }

    /** Staging bytes per connection. */
    public int buffSize() {
        return buffSize;
    }

    /** Largest piece a collective moves per step and peer: a quarter of {@link #buffSize()}. */
    public int chunkBytes() {
        return Math.max(MIN_BUFFSIZE / 4, buffSize / 4);
    }

    /**
     * The piece a communicator's collectives are cut into, given how its ranks connect: {@link #chunkBytes()}, except
     * that where the ranks are all on one host and talk over sockets (shared memory disabled or unavailable, no
     * {@code JCCL_NET} plugin), none share CPUs and {@code JCCL_BUFFSIZE} was left unset, it is
     * {@link #SOCKET_CHUNK_BYTES}. Every rank must compute the same value (the plans depend on it), so both flags must
     * be facts all ranks know alike.
     */
    public int chunkBytes(boolean socketsOnOneHost, boolean cpusShared) {
        if (!socketsOnOneHost || cpusShared || !"default".equals(sourceOf("buffSize"))) return chunkBytes();
        return Math.min(chunkBytes(), SOCKET_CHUNK_BYTES);
    }

    /** {@code JCCL_SOCKET_NTHREADS}, as set; the TCP transport does not use it yet. */
    public int socketThreads() {
        return socketThreads;
    }

    /** {@code JCCL_NSOCKS_PERTHREAD}, as set; the TCP transport does not use it yet. */
    public int socketsPerThread() {
        return socketsPerThread;
    }

    /** True when ranks on one host use TCP instead of shared memory ({@code JCCL_SHM_DISABLE}). */
    public boolean shmDisable() {
        return shmDisable;
    }

    /** Network transport name ({@code Socket}, {@code UCX}), or null for the default. */
    public String net() {
        return net;
    }

    /** RDMA device filter for network plugins ({@code JCCL_IB_HCA}), or null for all devices. */
    public String ibHca() {
        return ibHca;
    }

    /** Overrides the host identity used to decide which ranks share a host, or null. */
    public String hostId() {
        return hostId;
    }

    /** Whether ranks of one host may read each other's buffers by single copy ({@code JCCL_SHM_SINGLE_COPY}). */
    public boolean shmSingleCopy() {
        return shmSingleCopy;
    }

    /** Whether this host's ranks share CPUs, or {@code AUTO} to find out. */
    public Oversubscription oversubscription() {
        return oversubscription;
    }

    /**
     * Every knob with its effective value and where it came from ({@code default}, {@code builder} or the variable's
     * name), in a stable order: what {@code jccl info} prints.
     */
    public List<String[]> describe() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("timeout", timeout.toMillis() / 1000.0 + " s");
        values.put("socketIfname", socketIfname == null ? "(auto)" : socketIfname);
        values.put("debug", debugLevel);
        values.put("debugSubsys", debugSubsys == null ? "(default)" : debugSubsys);
        values.put(
                "debugSink",
                debugSink == DebugSink.AUTO ? "(auto)" : debugSink.name().toLowerCase(Locale.ROOT));
        values.put("algo", algo == null ? "(auto)" : algo);
        values.put("proto", proto == null ? "(auto)" : proto);
        values.put("buffSize", buffSize);
        values.put("socketThreads", socketThreads);
        values.put("socketsPerThread", socketsPerThread);
        values.put("shmDisable", shmDisable);
        values.put("net", net == null ? "(auto)" : net);
        values.put("ibHca", ibHca == null ? "(all)" : ibHca);
        values.put("hostId", hostId == null ? "(hostname + boot_id)" : hostId);
        values.put(
                "oversubscribed",
                oversubscription == Oversubscription.AUTO
                        ? "(auto)"
                        : oversubscription == Oversubscription.YES ? "1" : "0");
        values.put("shmSingleCopy", shmSingleCopy ? "1 (where the kernel allows it)" : "0");
        values.put("traceBuffer", traceBuffer == 0 ? "0 (off)" : traceBuffer + " operations");
        values.put("traceDir", traceDir == null ? "(" + System.getProperty("java.io.tmpdir") + ")" : traceDir);
        values.put(
                "calibration",
                calibration == null ? "(~/.config/jccl/calibration.properties if present)" : calibration);
        List<String[]> rows = new ArrayList<>();
        for (var e : values.entrySet()) {
            rows.add(new String[] {e.getKey(), String.valueOf(e.getValue()), sources.getOrDefault(e.getKey(), "default")
            });
        }
        return rows;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Config{");
        for (String[] r : describe()) sb.append(r[0]).append('=').append(r[1]).append(", ");
        sb.setLength(sb.length() - 2);
        return sb.append('}').toString();
    }

    /** Builder; every setter validates its argument at once. */
    public static final class Builder {
        private Duration timeout = DEFAULT_TIMEOUT;
        private String socketIfname;
        private DebugLevel debugLevel = DebugLevel.WARN;
        private String debugSubsys;
        private DebugSink debugSink = DebugSink.AUTO;
        private String algo;
        private String proto;
        private int buffSize = DEFAULT_BUFFSIZE;
        private int socketThreads = 1;
        private int socketsPerThread = 1;
        private boolean shmDisable;
        private String net;
        private String ibHca;
        private String hostId;
        private Oversubscription oversubscription = Oversubscription.AUTO;
        private boolean shmSingleCopy = true;
        private int traceBuffer = DEFAULT_TRACE_BUFFER;
        private String traceDir;
        private String calibration;
        private final Map<String, String> sources = new LinkedHashMap<>();
        /** Which variable set each knob, while {@link #fromEnvironment} runs; wins over "builder". */
        private final Map<String, String> variableSources = new LinkedHashMap<>();

        private Builder() {}

        /** Deadline of every wait; must be positive. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, got " + timeout);
            }
            this.timeout = timeout;
            sources.put("timeout", "builder");
            return this;
        }

        /** Interface filter, in {@code JCCL_SOCKET_IFNAME}'s syntax; null for automatic. */
        public Builder socketIfname(String filter) {
            this.socketIfname = filter == null || filter.isBlank() ? null : filter.trim();
            sources.putIfAbsent("socketIfname", "builder");
            return this;
        }

        /** How much is logged. */
        public Builder debugLevel(DebugLevel level) {
            this.debugLevel = Objects.requireNonNull(level, "level");
            sources.putIfAbsent("debug", "builder");
            return this;
        }

        /** Subsystems to log, in {@code JCCL_DEBUG_SUBSYS}'s syntax; null for the default. */
        public Builder debugSubsys(String subsys) {
            this.debugSubsys = subsys;
            sources.putIfAbsent("debugSubsys", "builder");
            return this;
        }

        /** Where debug lines go. */
        public Builder debugSink(DebugSink sink) {
            this.debugSink = Objects.requireNonNull(sink, "sink");
            sources.putIfAbsent("debugSink", "builder");
            return this;
        }

        /** Algorithms the tuner may choose from; null for all. */
        public Builder algo(String algo) {
            this.algo = algo;
            sources.putIfAbsent("algo", "builder");
            return this;
        }

        /** Protocols the tuner may choose from; null for all. */
        public Builder proto(String proto) {
            this.proto = proto;
            sources.putIfAbsent("proto", "builder");
            return this;
        }

        /** Staging bytes per connection, at least {@link Config#MIN_BUFFSIZE}. */
        public Builder buffSize(int bytes) {
            if (bytes < MIN_BUFFSIZE) {
                throw new IllegalArgumentException(
                        "buffSize must be at least " + MIN_BUFFSIZE + " bytes, got " + bytes);
            }
            this.buffSize = bytes;
            sources.putIfAbsent("buffSize", "builder");
            return this;
        }

        /** {@code JCCL_SOCKET_NTHREADS}, 1..16 (not used by the TCP transport yet). */
        public Builder socketThreads(int n) {
            if (n < 1 || n > 16) throw new IllegalArgumentException("socket threads must be 1..16, got " + n);
            this.socketThreads = n;
            sources.putIfAbsent("socketThreads", "builder");
            return this;
        }

        /** {@code JCCL_NSOCKS_PERTHREAD}, 1..16 (not used by the TCP transport yet). */
        public Builder socketsPerThread(int n) {
            if (n < 1 || n > 16) throw new IllegalArgumentException("sockets per thread must be 1..16, got " + n);
            this.socketsPerThread = n;
            sources.putIfAbsent("socketsPerThread", "builder");
            return this;
        }

        /** True to use TCP between ranks of one host. */
        public Builder shmDisable(boolean disable) {
            this.shmDisable = disable;
            sources.putIfAbsent("shmDisable", "builder");
            return this;
        }

        /** Network transport between hosts ({@code Socket}, {@code UCX}); null for the default. */
        public Builder net(String net) {
            this.net = net;
            sources.putIfAbsent("net", "builder");
            return this;
        }

        /** RDMA device filter, in {@code JCCL_IB_HCA}'s syntax; null for all devices. */
        public Builder ibHca(String ibHca) {
            this.ibHca = ibHca;
            sources.putIfAbsent("ibHca", "builder");
            return this;
        }

        /** Which host this rank counts as on; null for host name + boot id. */
        public Builder hostId(String hostId) {
            this.hostId = hostId;
            sources.putIfAbsent("hostId", "builder");
            return this;
        }

        /** Whether ranks of one host may read each other's buffers by single copy (where the kernel allows it). */
        public Builder shmSingleCopy(boolean allowed) {
            this.shmSingleCopy = allowed;
            sources.putIfAbsent("shmSingleCopy", "builder");
            return this;
        }

        /** Whether this host's ranks share CPUs. */
        public Builder oversubscription(Oversubscription setting) {
            this.oversubscription = Objects.requireNonNull(setting, "setting");
            sources.putIfAbsent("oversubscribed", "builder");
            return this;
        }

        /** Entries the flight recorder keeps; 0 turns it off. */
        public Builder traceBuffer(int entries) {
            if (entries < 0 || entries > 1 << 24) {
                throw new IllegalArgumentException(
                        TRACE_BUFFER + " must be between 0 (off) and 16777216 operations, got " + entries);
            }
            this.traceBuffer = entries;
            sources.putIfAbsent("traceBuffer", "builder");
            return this;
        }

        /** The directory a failed operation's flight recorder is written to; null for the temporary directory. */
        public Builder traceDir(String dir) {
            this.traceDir = dir == null || dir.isBlank() ? null : dir;
            sources.putIfAbsent("traceDir", "builder");
            return this;
        }

        /** The tuner's calibration file, {@code none}, or null for the default one. */
        public Builder calibration(String file) {
            this.calibration = file == null || file.isBlank() ? null : file;
            sources.putIfAbsent("calibration", "builder");
            return this;
        }

        /** The configuration, immutable from here on. */
        public Config build() {
            return new Config(this);
        }
    }
}
