package dev.jccl.tools.trace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a flight-recorder dump the way {@code runtime.FlightRecorder.toJson} does, for tests that need dumps of
 * situations a real run reaches only by failing: a rank behind, a mismatch, wrapped rings. Times are µs after
 * {@link #T0}; each collective #s starts at {@code T0 + s·1000} unless told otherwise.
 */
public final class DumpFile {
    /** 2025-06-01T10:00:00Z, in µs. */
    public static final long T0 = 1_748_772_000_000_000L;

    public static final String COMM = "00000000000abcde";

    private final int rank;
    private final int size;
    private String commId = COMM;
    private long dumpedAt = T0 + 5_000_000;
    private Long recorded;
    private String verdict;
    private final List<String> operations = new ArrayList<>();

    private DumpFile(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    public static DumpFile rank(int rank, int size) {
        return new DumpFile(rank, size);
    }

    public DumpFile comm(String id) {
        this.commId = id;
        return this;
    }

    public DumpFile dumpedAt(long micros) {
        this.dumpedAt = micros;
        return this;
    }

    /** More operations recorded than the ring holds: it has wrapped. */
    public DumpFile recorded(long n) {
        this.recorded = n;
        return this;
    }

    public DumpFile verdict(String text) {
        this.verdict = text;
        return this;
    }

    /** Completed AllReduces #from..#to (1024 × FLOAT32, SUM), 12 µs each. */
    public DumpFile allReduces(long from, long to) {
        for (long s = from; s <= to; s++) completed(s, "AllReduce");
        return this;
    }

    public DumpFile completed(long seq, String op) {
        return op(seq, op, 1024, "FLOAT32", reduceOp(op), root(op), T0 + seq * 1000, 12L, "completed");
    }

    /** Started #seq and not ended when the rank dumped. */
    public DumpFile running(long seq, String op) {
        return op(seq, op, 1024, "FLOAT32", reduceOp(op), root(op), T0 + seq * 1000, null, "started");
    }

    public DumpFile failed(long seq, String op, long durationMicros) {
        return op(seq, op, 1024, "FLOAT32", reduceOp(op), root(op), T0 + seq * 1000, durationMicros, "failed");
    }

    /** A collective with every field given. */
    public DumpFile op(
            long seq,
            String op,
            long count,
            String type,
            String reduceOp,
            int peer,
            long startMicros,
            Long durationMicros,
            String state) {
        return entry(seq, op, true, count, type, reduceOp, peer, startMicros, durationMicros, state);
    }

    /** A point-to-point operation (Send, Recv), numbered apart from the collectives. */
    public DumpFile pointToPoint(long seq, String op, int peer, long startMicros, Long durationMicros, String state) {
        return entry(seq, op, false, 10, "INT32", null, peer, startMicros, durationMicros, state);
    }

    private DumpFile entry(
            long seq,
            String op,
            boolean collective,
            long count,
            String type,
            String reduceOp,
            int peer,
            long startMicros,
            Long durationMicros,
            String state) {
        long index = operations.size();
        operations.add("    {\"index\": " + index + ", \"op\": \"" + op + "\", \"seq\": " + seq + ", \"collective\": "
                + collective + ", \"count\": " + count + ", \"type\": \"" + type + "\", \"bytes\": " + count * 4
                + ", \"reduceOp\": " + (reduceOp == null ? "null" : "\"" + reduceOp + "\"") + ", \"peer\": " + peer
                + ", \"algorithm\": \"Ring/Simple\", \"startMicros\": " + startMicros + ", \"durationMicros\": "
                + durationMicros + ", \"state\": \"" + state + "\"}");
        return this;
    }

    public String json() {
        long n = recorded == null ? operations.size() : recorded;
        return "{\n  \"rank\": " + rank + ",\n  \"size\": " + size + ",\n  \"where\": \"host" + rank + ":pid "
                + (1000 + rank) + "\",\n  \"commId\": \"" + commId + "\",\n  \"dumpedAtMicros\": " + dumpedAt
                + ",\n  \"recorded\": " + n + ",\n  \"verdict\": "
                + (verdict == null ? "null" : "\"" + verdict.replace("\"", "\\\"") + "\"") + ",\n  \"operations\": ["
                + (operations.isEmpty() ? "" : "\n" + String.join(",\n", operations)) + "\n  ]\n}\n";
    }

    /** Writes {@code jccl-trace-<comm>-rank<r>.json} into {@code dir}, as a failing rank names it. */
    public Path writeTo(Path dir) {
        try {
            return Files.writeString(dir.resolve("jccl-trace-" + commId + "-rank" + rank + ".json"), json());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String reduceOp(String op) {
        return op.contains("Reduce") ? "SUM" : null;
    }

    private static int root(String op) {
        return op.equals("Broadcast") || op.equals("Reduce") ? 0 : -1;
    }
}
