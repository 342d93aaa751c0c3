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
    private final long[] sequence;
    private final long[] count;
    private final long[] startNanos;
    private final long[] endNanos;
    private final byte[] collective;
    private final byte[] type;
    private final byte[] op;
    private final byte[] state;
    private final int[] peer;
    /** The tuner's choice as its algorithm's and protocol's ordinals (-1: none), not a reference: no GC barrier. */
    private final byte[] algorithm;

    private final byte[] protocol;
    /**
     * Operations recorded so far; the newest is at {@code (recorded - 1) % capacity}. Written with release semantics (a
     * plain store on x86, not a volatile's fence) by the one thread that records, read with acquire by a dump.
     */
    private long recorded;

    private static final VarHandle RECORDED;
    /** The slot the next operation goes to: {@code recorded % capacity}, kept apart to spare a division. */
    private int nextSlot;
    /** The slot of the newest operation, which {@link #ended} completes. */
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
        sequence = new long[capacity];
        count = new long[capacity];
        startNanos = new long[capacity];
        endNanos = new long[capacity];
        collective = new byte[capacity];
        type = new byte[capacity];
        op = new byte[capacity];
        state = new byte[capacity];
        peer = new int[capacity];
        algorithm = new byte[capacity];
        protocol = new byte[capacity];
        epochMicrosAtNanoZero = System.currentTimeMillis() * 1000 - System.nanoTime() / 1000;
    }

    void started(OpContext ctx, Tuner.Choice how) {
        long n = recorded;
        int i = nextSlot;
        newestSlot = i;
        nextSlot = i + 1 == capacity ? 0 : i + 1;
        sequence[i] = ctx.sequence();
        count[i] = ctx.count();
        startNanos[i] = ctx.startNanos();
        endNanos[i] = 0;
        collective[i] = (byte) ctx.collective().ordinal();
        type[i] = (byte) ctx.type().ordinal();
        op[i] = (byte) (ctx.op() == null ? -1 : ctx.op().ordinal());
        peer[i] = ctx.root();
        algorithm[i] = (byte) (how == null ? -1 : how.algorithm().ordinal());
        protocol[i] = (byte) (how == null ? -1 : how.protocol().ordinal());
        state[i] = STARTED;
        RECORDED.setRelease(this, n + 1);
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
        endNanos[i] = startNanos[i];
        state[i] = COMPLETED;
    }

    /** The newest operation's start time was an earlier operation's; {@code nanos} is its own. */
    void restamped(long nanos) {
        if (recorded == 0) return;
        startNanos[newestSlot] = nanos;
    }

    void ended(boolean completed) {
        if (recorded == 0) return; // only the recording thread writes it
        int i = newestSlot;
        endNanos[i] = System.nanoTime();
        state[i] = completed ? COMPLETED : FAILED;
    }

    private String algorithmOf(int i) {
        if (algorithm[i] < 0) return "p2p or local";
        return new Tuner.Choice(Tuner.Algorithm.values()[algorithm[i]], Tuner.Protocol.values()[protocol[i]])
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
            int i = (int) (k % capacity);
            Collective c = collectives[collective[i]];
            sb.append(k == first ? "\n" : ",\n");
            sb.append("    {\"index\": ").append(k);
            sb.append(", \"op\": ").append(JsonText.quote(c.displayName()));
            sb.append(", \"seq\": ").append(sequence[i]);
            sb.append(", \"collective\": ").append(!c.isPointToPoint());
            sb.append(", \"count\": ").append(count[i]);
            sb.append(", \"type\": ").append(JsonText.quote(types[type[i]].name()));
            sb.append(", \"bytes\": ").append(count[i] * types[type[i]].byteSize());
            sb.append(", \"reduceOp\": ").append(op[i] < 0 ? "null" : JsonText.quote(ops[op[i]].name()));
            sb.append(", \"peer\": ").append(peer[i]);
            sb.append(", \"algorithm\": ").append(JsonText.quote(algorithmOf(i)));
            sb.append(", \"startMicros\": ").append(epochMicrosAtNanoZero + startNanos[i] / 1000);
            long end = endNanos[i];
            sb.append(", \"durationMicros\": ")
                    .append(end == 0 ? "null" : String.valueOf((end - startNanos[i]) / 1000));
            sb.append(", \"state\": ")
                    .append(JsonText.quote(
                            state[i] == COMPLETED ? "completed" : state[i] == FAILED ? "failed" : "started"));
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
