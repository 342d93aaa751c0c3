package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.FailureVerdict;
import dev.jccl.ReduceOp;
import dev.jccl.debug.JsonText;
import dev.jccl.plan.Collective;
import dev.jccl.plan.Tuner;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A rank's last operations (PyTorch's flight recorder, {@code TORCH_NCCL_TRACE_BUFFER_SIZE}, is the model): what each
 * was, when it started and ended, and whether it completed or failed, in a ring of {@code JCCL_TRACE_BUFFER} entries
 * held as primitive arrays, so recording allocates nothing. Written when an operation fails and on
 * {@code Communicator.dumpTrace}, as JSON that {@code jccl trace} merges across ranks.
 *
 * <p>Written only by the thread that holds the communicator's turn (operations never overlap); a dump from another
 * thread while operations run may show the newest entry half written, which the dump marks by its state.
 */
public final class FlightRecorder {
    static final byte STARTED = 1;
    static final byte COMPLETED = 2;
    static final byte FAILED = 3;

    private final int capacity;
    /**
     * The ring, {@link #STRIDE} longs an entry: sequence, count, start, end, the small fields packed in one word
     * ({@link #pack}) and the peer. One array, not one per field: recording an operation writes one or two cache lines
     * where an array per field wrote eleven, each store with its own bounds check. The recorder's share of the reading
     * rank's CPU time in a 2-rank 8-byte Broadcast loop went from 6.2% to 3.4% (async-profiler, 2026-11-29).
     */
    private final long[] ring;

    private static final int STRIDE = 6;
    private static final int SEQUENCE = 0;
    private static final int COUNT = 1;
    private static final int START = 2;
    private static final int END = 3;
    private static final int PACKED = 4;
    private static final int PEER = 5;

    /**
     * Operations recorded so far; the newest is at {@code (recorded - 1) % capacity}. Written with release semantics (a
     * plain store on x86, not a volatile's fence) by the one thread that records, read with acquire by a dump.
     */
    private long recorded;

    private static final VarHandle RECORDED;
    /**
     * Where in {@link #ring} the next operation's entry starts: {@code (recorded % capacity) * STRIDE}, kept apart to
     * spare a division.
     */
    private int nextSlot;
    /** Where the newest operation's entry starts, which {@link #ended} completes. */
    private int newestSlot;

    static {
        try {
            RECORDED = MethodHandles.lookup().findVarHandle(FlightRecorder.class, "recorded", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** Wall-clock microseconds at nanoTime 0, so that dumps of several hosts can be laid on one time line. */
    private final long epochMicrosAtNanoZero;

    private final int rank;
    private final int size;
    private final String where;
    private final long commId;

    /**
     * @param where this rank's host and pid, as messages print it
     * @param commId the communicator's id, which names the dump files of one communicator
     */
    public FlightRecorder(int capacity, int rank, int size, String where, long commId) {
        this.rank = rank;
        this.size = size;
        this.where = where;
        this.commId = commId;
        if (capacity < 1) throw new IllegalArgumentException("a flight recorder needs at least one entry");
        this.capacity = capacity;
        ring = new long[Math.multiplyExact(capacity, STRIDE)];
        epochMicrosAtNanoZero = System.currentTimeMillis() * 1000 - System.nanoTime() / 1000;
    }

    void started(OpContext ctx, Tuner.Choice how) {
        long n = recorded;
        int i = nextSlot;
        newestSlot = i;
        nextSlot = i + STRIDE == ring.length ? 0 : i + STRIDE;
        long[] r = ring;
        r[i + SEQUENCE] = ctx.sequence();
        r[i + COUNT] = ctx.count();
        r[i + START] = ctx.startNanos();
        r[i + END] = 0;
        r[i + PACKED] = pack(ctx, how);
        r[i + PEER] = ctx.root();
        RECORDED.setRelease(this, n + 1);
    }

    /**
     * The small fields of an entry in one word, a byte each from the bottom: state, collective, type, reduce op,
     * algorithm and protocol (-1 for none, kept as 0xff).
     */
    private static long pack(OpContext ctx, Tuner.Choice how) {
        return STARTED
                | (long) ctx.collective().ordinal() << 8
                | (long) ctx.type().ordinal() << 16
                | (long) (ctx.op() == null ? 0xff : ctx.op().ordinal()) << 24
                | (long) (how == null ? 0xff : how.algorithm().ordinal()) << 32
                | (long) (how == null ? 0xff : how.protocol().ordinal()) << 40;
    }

    private static int field(long packed, int index) {
        return (int) (packed >>> (8 * index)) & 0xff;
    }

    /** A byte field of {@link #pack}, with 0xff read back as -1. */
    private static int optionalField(long packed, int index) {
        int v = field(packed, index);
        return v == 0xff ? -1 : v;
    }

    private void setState(int i, byte state) {
        ring[i + PACKED] = ring[i + PACKED] & ~0xffL | state;
    }

    /**
     * The newest operation completed after no more than a short spin for its peers and moved at most a kilobyte (see
     * {@code LowLatencyCollectives.endedAtOnce}): it took a few microseconds at most, and is recorded as lasting 0 µs
     * without reading the clock, so durations in the dump are exact beyond a few microseconds. A clock read costs 21 ns
     * on this machine's VM, a sixth of an 8-byte Broadcast, and such operations are most of a small-message loop. For
     * the same reason the operations after one such may share its start time ({@link Sequencer#CLOCK_REUSE_MAX}).
     */
    void endedAtOnce() {
        if (recorded == 0) return;
        int i = newestSlot;
        ring[i + END] = ring[i + START];
        setState(i, COMPLETED);
    }

    /** The newest operation's start time was an earlier operation's; {@code nanos} is its own. */
    void restamped(long nanos) {
        if (recorded == 0) return;
        ring[newestSlot + START] = nanos;
    }

    void ended(boolean completed) {
        if (recorded == 0) return; // only the recording thread writes it
        int i = newestSlot;
        ring[i + END] = System.nanoTime();
        setState(i, completed ? COMPLETED : FAILED);
    }

    private static String algorithmOf(long packed) {
        int algorithm = optionalField(packed, 4);
        if (algorithm < 0) return "p2p or local";
        return new Tuner.Choice(Tuner.Algorithm.values()[algorithm], Tuner.Protocol.values()[field(packed, 5)])
                .describe();
    }

    /** Operations the ring holds now: every one recorded, until it wraps. */
    long held() {
        return Math.min((long) RECORDED.getAcquire(this), capacity);
    }

    /**
     * The ring as JSON: who this rank is, then its operations oldest first, each with its sequence number, what it was,
     * its wall-clock start (µs since the epoch), its duration and its state.
     */
    String toJson(FailureVerdict verdict) {
        long n = (long) RECORDED.getAcquire(this);
        long first = Math.max(0, n - capacity);
        StringBuilder sb = new StringBuilder(256 + (int) Math.min(n, capacity) * 200);
        sb.append("{\n  \"rank\": ").append(rank);
        sb.append(",\n  \"size\": ").append(size);
        sb.append(",\n  \"where\": ").append(JsonText.quote(where));
        sb.append(",\n  \"commId\": \"").append(String.format("%016x", commId)).append('"');
        sb.append(",\n  \"dumpedAtMicros\": ").append(System.currentTimeMillis() * 1000);
        sb.append(",\n  \"recorded\": ").append(n);
        sb.append(",\n  \"verdict\": ").append(verdict == null ? "null" : JsonText.quote(verdict.describe()));
        sb.append(",\n  \"operations\": [");
        Collective[] collectives = Collective.values();
        DataType[] types = DataType.values();
        ReduceOp[] ops = ReduceOp.values();
        for (long k = first; k < n; k++) {
            int i = (int) (k % capacity) * STRIDE;
            long packed = ring[i + PACKED];
            Collective c = collectives[field(packed, 1)];
            DataType type = types[field(packed, 2)];
            int op = optionalField(packed, 3);
            int state = field(packed, 0);
            long count = ring[i + COUNT];
            long start = ring[i + START];
            long end = ring[i + END];
            sb.append(k == first ? "\n" : ",\n");
            sb.append("    {\"index\": ").append(k);
            sb.append(", \"op\": ").append(JsonText.quote(c.displayName()));
            sb.append(", \"seq\": ").append(ring[i + SEQUENCE]);
            sb.append(", \"collective\": ").append(!c.isPointToPoint());
            sb.append(", \"count\": ").append(count);
            sb.append(", \"type\": ").append(JsonText.quote(type.name()));
            sb.append(", \"bytes\": ").append(count * type.byteSize());
            sb.append(", \"reduceOp\": ").append(op < 0 ? "null" : JsonText.quote(ops[op].name()));
            sb.append(", \"peer\": ").append(ring[i + PEER]);
            sb.append(", \"algorithm\": ").append(JsonText.quote(algorithmOf(packed)));
            sb.append(", \"startMicros\": ").append(epochMicrosAtNanoZero + start / 1000);
            sb.append(", \"durationMicros\": ").append(end == 0 ? "null" : String.valueOf((end - start) / 1000));
            sb.append(", \"state\": ")
                    .append(JsonText.quote(state == COMPLETED ? "completed" : state == FAILED ? "failed" : "started"));
            sb.append('}');
        }
        return sb.append("\n  ]\n}\n").toString();
    }

    /** This rank's dump file in {@code dir}: {@code jccl-trace-<communicator id>-rank<rank>.json}. */
    Path fileIn(Path dir) {
        return dir.resolve(String.format("jccl-trace-%016x-rank%d.json", commId, rank));
    }

    /** Writes the JSON to {@code file} (through a temporary file, so a reader never sees half of it). */
    Path write(Path file, FailureVerdict verdict) throws IOException {
        String json = toJson(verdict);
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, json, StandardCharsets.UTF_8);
        return Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
