package dev.jccl.plan;

import dev.jccl.DataType;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The machine's figures that the tuner's α–β–γ model runs on: a step's latency and the bandwidth between ranks of a
 * host (shared memory) and over sockets, the low-latency outbox's, the reduce kernels' rate, and what a hand-off costs
 * where ranks share CPUs. {@link #DEFAULTS} are measured on the project's reference machine; {@code jccl perf
 * --calibrate} measures the machine it runs on and writes a {@link CalibrationFile} that every communicator reads.
 *
 * <p>Every rank plans with rank 0's figures (they travel in its start-up record), so hosts calibrated apart still
 * choose alike: a different choice on one rank would leave the others waiting.
 *
 * @param shmStepMicros one ring step between ranks that share memory: a pass of the runtime's step loop plus a
 *     cache-line hand-off (α, µs)
 * @param shmGbPerSecond bytes per second of such a step (β, GB/s): every byte is copied into the pair's ring and out
 * @param shmCachedGbPerSecond the same while an operation's buffers fit in the last-level cache ({@code cacheMib})
 * @param netStepMicros one step over sockets (µs)
 * @param netGbPerSecond bytes per second over sockets (GB/s)
 * @param llMicros the low-latency outbox exchange's latency (µs): one flag per chunk
 * @param llGbPerSecond its bandwidth per byte of traffic (GB/s): data copied once, read in place by every reader
 * @param reduceGbPerSecond what the reduce kernels combine per second (γ, GB/s)
 * @param stepHandoffMicros where two ranks share each CPU, what each step of a lockstep schedule (a ring's, a tree's)
 *     waits for its partner in a loop of calls (µs); {@link #lockstepHandoffMicros} scales it to other shares
 * @param cacheMib the last-level cache a host's ranks share (MiB): below it the shared-memory steps run at
 *     {@code shmCachedGbPerSecond}; 0 if none is known
 * @param float16Slowdown how many times longer the FLOAT16 SUM kernel takes than FLOAT32's on the same bytes
 * @param bfloat16Slowdown the same for BFLOAT16
 * @param source where the figures come from, for the tables and the log ({@code built-in} or a file and its date)
 */
public record Calibration(
        double shmStepMicros,
        double shmGbPerSecond,
        double shmCachedGbPerSecond,
        double netStepMicros,
        double netGbPerSecond,
        double llMicros,
        double llGbPerSecond,
        double reduceGbPerSecond,
        double stepHandoffMicros,
        double cacheMib,
        double float16Slowdown,
        double bfloat16Slowdown,
        String source) {

    /** The reference machine's step hand-off at two ranks per CPU (µs): see {@link #lockstepHandoffMicros}. */
    static final double STEP_HANDOFF_DEFAULT = 2.3;

    /**
     * The reference machine's figures (a Firecracker VM with 2 Zen 5 vCPUs, no PCID, 32 MiB of L3), rounded. Shared
     * memory: the out-of-cache ring 3.8 GB/s at 64 MiB, the cache-resident one 8-10 GB/s at 1 MiB; 6 is between them
     * (the picks above the cache were fitted with it), 10 below. In cache the two-rank Rabenseifner beats the one-shot
     * LL, and 10 puts the model's crossover where it was measured (AllReduce, 2 ranks, 2026-11-28: 128 KiB 6.2-6.5 µs
     * against 7.0-7.8, 1 MiB 47-50 against 56-66, 4 MiB 580-596 against 725-729 in the VM's slow phase; from 8 MiB on,
     * out of cache, the one-shot wins, 8 MiB 594-624 against 637-894, 16 MiB 1320-1490 against 1720-1980). Outbox: 2
     * ranks, 1 MiB, 118 µs for 3 MiB of traffic; 64 MiB, 10.3 ms for 192 MiB. Reduce: the Vector API kernels reach
     * 16-20 GB/s at 1 MiB (FLOAT32, BFLOAT16 SUM). Hand-off: {@link #lockstepHandoffMicros}; a yield that switches
     * between two rank processes costs about 6 µs (PTI without PCID flushes the TLB on every switch). The 16-bit
     * floats' kernels against FLOAT32's (bench/kernels.sh, JMH, 1 MiB native operands, Vector API, 2026-11-28): FLOAT32
     * SUM 35.7 GB/s, BFLOAT16 19.0, FLOAT16 13.6 then. FLOAT16's kernel has since doubled its speed (2026-11-29, its
     * own loop over native operands, {@code reduce.NativeFloat16Kernel}: 14.5 GB/s against the old kernel's 7.3 and
     * FLOAT32's 24.9 in the same sitting, a slowdown of 1.7), but its figure stays 2.6: at 1.7 the model sends 2-rank
     * AllReduces of 16-64 MiB to the one-shot, which measured slower than the ring there (64 MiB, ms, interleaved: ring
     * 14.7-19.0 against 16.2-20.6 in the VM's fast phase, 32-36 against 37-56 in its slow one).
     */
    public static final Calibration DEFAULTS = new Calibration(
            1.5, 6.0, 10.0, 12.0, 2.5, 0.6, 20.0, 16.0, STEP_HANDOFF_DEFAULT, 32.0, 2.6, 35.7 / 19.0, "built-in");

    /** The range a kernel's slowdown against FLOAT32's may take before it is taken for a mistake. */
    static final double MIN_SLOWDOWN = 0.01;

    static final double MAX_SLOWDOWN = 1e4;

    /** The most a latency may be (µs) and the least a bandwidth (GB/s) before a figure is taken for a mistake. */
    static final double MAX_MICROS = 1e6;

    static final double MIN_GB_PER_SECOND = 1e-4;
    static final double MAX_GB_PER_SECOND = 1e5;

    /** The largest last-level cache taken seriously (MiB): a bigger figure is a typo. */
    static final double MAX_CACHE_MIB = 1 << 20;

    /**
     * What each rank keeps in cache during an operation, in message sizes: its input, its output, the copy in flight.
     */
    private static final int BUFFERS_PER_RANK = 3;

    public Calibration {
        check("shm step", shmStepMicros, 0, MAX_MICROS);
        check("shm bandwidth", shmGbPerSecond, MIN_GB_PER_SECOND, MAX_GB_PER_SECOND);
        check("shm bandwidth in cache", shmCachedGbPerSecond, MIN_GB_PER_SECOND, MAX_GB_PER_SECOND);
        check("net step", netStepMicros, 0, MAX_MICROS);
        check("net bandwidth", netGbPerSecond, MIN_GB_PER_SECOND, MAX_GB_PER_SECOND);
        check("LL latency", llMicros, 0, MAX_MICROS);
        check("LL bandwidth", llGbPerSecond, MIN_GB_PER_SECOND, MAX_GB_PER_SECOND);
        check("reduce rate", reduceGbPerSecond, MIN_GB_PER_SECOND, MAX_GB_PER_SECOND);
        check("step hand-off", stepHandoffMicros, 0, MAX_MICROS);
        check("cache size", cacheMib, 0, MAX_CACHE_MIB);
        check("FLOAT16 kernel slowdown", float16Slowdown, MIN_SLOWDOWN, MAX_SLOWDOWN);
        check("BFLOAT16 kernel slowdown", bfloat16Slowdown, MIN_SLOWDOWN, MAX_SLOWDOWN);
        if (source == null || source.isBlank()) source = "unnamed";
    }

    private static void check(String what, double value, double min, double max) {
        if (!(value >= min && value <= max)) { // NaN fails too
            throw new IllegalArgumentException(
                    what + " must be between " + fmt(min) + " and " + fmt(max) + ", got " + fmt(value));
        }
    }

    /**
     * Whether an operation whose larger buffer is {@code bytes} stays in the last-level cache while
     * {@code ranksPerHost} ranks of a host run it (each with its input, its output and the copy in flight: a ring's
     * slots, the outbox), so that its shared-memory steps run at {@link #shmCachedGbPerSecond}. False where no cache is
     * known.
     */
    public boolean fitsInCache(double bytes, int ranksPerHost) {
        return fitsInCache(cacheMib, bytes, ranksPerHost);
    }

    /** As above, for a cache of {@code cacheMib} (0: none known); the simulator's machine asks it too. */
    static boolean fitsInCache(double cacheMib, double bytes, int ranksPerHost) {
        return cacheMib > 0 && BUFFERS_PER_RANK * bytes * ranksPerHost <= cacheMib * (1 << 20);
    }

    /**
     * How many times longer {@code type}'s SUM kernel takes than FLOAT32's on the same bytes: 1 for every type but the
     * 16-bit floats, whose kernels widen to float and round back.
     */
    public double kernelSlowdown(DataType type) {
        return switch (type) {
            case FLOAT16 -> float16Slowdown;
            case BFLOAT16 -> bfloat16Slowdown;
            default -> 1;
        };
    }

    /**
     * What each step of a lockstep schedule waits for its partner where {@code ranksPerCpu} ranks share each CPU, in a
     * loop of calls: nothing where every rank has a CPU, else {@link #stepHandoffMicros} (the wait at two ranks per
     * CPU) times {@code (ranksPerCpu - 1)^}{@link #CROWDING_EXPONENT}. A rank that waits yields, and its partner runs
     * once the CPU has gone round the other ranks on it. Measured per step of recursive doubling (each a pairwise
     * exchange both partners must run for), AllReduce of 4-256 B, warmed up, less the shared-memory step (0.8 µs), on
     * this project's 2-vCPU VM (2026-11-28): 3 ranks 1.1 µs, 4 ranks 2.1-2.3, 5 ranks 2.9, 8 ranks 7.6-7.8; with 16
     * ranks a Rabenseifner step of 32 KiB about 25. A ring's steps wait less (4 ranks 1.3, 8 ranks 4.8 at 256 B): a
     * rank forwards to one neighbour while another is still to run. A lone call waits far longer (33 µs there, two
     * ranks pinned to one CPU: both asleep when it starts). The calibration measured that one until 2026-11-28
     * ({@code handoff.us}, ignored now where an old file has it); the simulator charged it on every message, which put
     * the small operations of 3-8 ranks on 2 CPUs at 4-380 times their measured time, and the tuner charged its
     * built-in 10 µs on every step. The power law overshoots at 5 ranks on 2 CPUs (3.8 µs against 2.9 measured).
     */
    public double lockstepHandoffMicros(double ranksPerCpu) {
        if (!(ranksPerCpu > 1)) return 0;
        return stepHandoffMicros * Math.pow(ranksPerCpu - 1, CROWDING_EXPONENT);
    }

    /** How fast a lockstep step's wait grows with the ranks per CPU; fitted to the steps measured above. */
    static final double CROWDING_EXPONENT = 1.2;

    /** The figures as {@code key=value} pairs, the file's keys, in a fixed order. */
    public Map<String, Double> values() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("shm.step.us", shmStepMicros);
        m.put("shm.bandwidth.gbps", shmGbPerSecond);
        m.put("shm.cached.bandwidth.gbps", shmCachedGbPerSecond);
        m.put("net.step.us", netStepMicros);
        m.put("net.bandwidth.gbps", netGbPerSecond);
        m.put("ll.latency.us", llMicros);
        m.put("ll.bandwidth.gbps", llGbPerSecond);
        m.put("reduce.gbps", reduceGbPerSecond);
        m.put("handoff.step.us", stepHandoffMicros);
        m.put("cache.mib", cacheMib);
        m.put("reduce.float16.slowdown", float16Slowdown);
        m.put("reduce.bfloat16.slowdown", bfloat16Slowdown);
        return m;
    }

    /**
     * These figures with some replaced: {@code values} maps keys of {@link #values()} to new figures; a key not there
     * is an {@link IllegalArgumentException} naming the known ones.
     */
    public Calibration with(Map<String, Double> values, String newSource) {
        Map<String, Double> m = values();
        for (Map.Entry<String, Double> e : values.entrySet()) {
            if (!m.containsKey(e.getKey())) {
                throw new IllegalArgumentException(
                        "unknown figure " + e.getKey() + " (known: " + String.join(", ", m.keySet()) + ")");
            }
            m.put(e.getKey(), e.getValue());
        }
        return new Calibration(
                m.get("shm.step.us"),
                m.get("shm.bandwidth.gbps"),
                m.get("shm.cached.bandwidth.gbps"),
                m.get("net.step.us"),
                m.get("net.bandwidth.gbps"),
                m.get("ll.latency.us"),
                m.get("ll.bandwidth.gbps"),
                m.get("reduce.gbps"),
                m.get("handoff.step.us"),
                m.get("cache.mib"),
                m.get("reduce.float16.slowdown"),
                m.get("reduce.bfloat16.slowdown"),
                newSource);
    }

    /** One line that {@link #decode} reads back exactly: how rank 0's figures travel to the other ranks. */
    public String encode() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Double> e : values().entrySet()) {
            sb.append(e.getKey())
                    .append('=')
                    .append(Double.toString(e.getValue()))
                    .append(';');
        }
        return sb.append("source=").append(source.replace(';', ',')).toString();
    }

    /** Reads {@link #encode}'s line; an empty one (a rank that sent none) gives {@link #DEFAULTS}. */
    public static Calibration decode(String line) {
        if (line == null || line.isEmpty()) return DEFAULTS;
        Map<String, Double> values = new LinkedHashMap<>();
        String source = "unnamed";
        for (String part : line.split(";")) {
            int eq = part.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("calibration record without '=': " + part);
            String key = part.substring(0, eq);
            String value = part.substring(eq + 1);
            if (key.equals("source")) {
                source = value;
            } else {
                try {
                    values.put(key, Double.parseDouble(value));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("calibration figure " + key + " is not a number: " + value);
                }
            }
        }
        return DEFAULTS.with(values, source);
    }

    /** The figures in a line for tables and logs. */
    public String describe() {
        return String.format(
                Locale.ROOT,
                "shm %s µs + %s GB/s (%s in %s MiB of cache), net %s µs + %s GB/s, LL %s µs + %s GB/s,"
                        + " reduce %s GB/s (FLOAT16 %s× slower, BFLOAT16 %s×), hand-off %s µs a step (%s)",
                fmt(shmStepMicros),
                fmt(shmGbPerSecond),
                fmt(shmCachedGbPerSecond),
                fmt(cacheMib),
                fmt(netStepMicros),
                fmt(netGbPerSecond),
                fmt(llMicros),
                fmt(llGbPerSecond),
                fmt(reduceGbPerSecond),
                fmt(float16Slowdown),
                fmt(bfloat16Slowdown),
                fmt(stepHandoffMicros),
                source);
    }

    /** A figure with three significant digits, no exponent below a million. */
    static String fmt(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return Double.toString(v);
        if (v != 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return String.format(Locale.ROOT, "%.3g", v);
        return new java.math.BigDecimal(v)
                .round(new java.math.MathContext(3))
                .stripTrailingZeros()
                .toPlainString();
    }
}
