package dev.jccl.tools.trace;

/**
 * One entry of a rank's flight recorder, as {@code runtime.FlightRecorder} writes it.
 *
 * @param index the entry's place among every operation the rank recorded (0 for its first)
 * @param op the operation's name: {@code AllReduce}, {@code Broadcast}, {@code Send}, …
 * @param seq the communicator's sequence number for a collective (the same on every rank for one call); for a
 *     point-to-point operation, its number among the messages of its pair of ranks
 * @param collective false for Send, Recv and SendRecv, whose {@code seq} is numbered apart
 * @param reduceOp {@code SUM}, … or null for operations that do not reduce
 * @param peer the root of a rooted collective, the peer of a point-to-point operation, else -1
 * @param startMicros wall-clock start, µs since the epoch
 * @param durationMicros null while the operation had not ended when the rank dumped
 * @param state {@value #COMPLETED}, {@value #FAILED} or {@value #STARTED} (not ended at dump time)
 */
record TraceOperation(
        long index,
        String op,
        long seq,
        boolean collective,
        long count,
        String type,
        long bytes,
        String reduceOp,
        int peer,
        String algorithm,
        long startMicros,
        Long durationMicros,
        String state) {

    static final String STARTED = "started";
    static final String COMPLETED = "completed";
    static final String FAILED = "failed";

    boolean completed() {
        return state.equals(COMPLETED);
    }

    boolean failed() {
        return state.equals(FAILED);
    }

    /** Started and not ended when the rank dumped: the operation the rank was in. */
    boolean running() {
        return state.equals(STARTED);
    }

    /**
     * How long it took, or for a running operation how long it had been running when the rank dumped at
     * {@code dumpedAtMicros}.
     */
    long micros(long dumpedAtMicros) {
        if (durationMicros != null) return durationMicros;
        return running() ? Math.max(0, dumpedAtMicros - startMicros) : 0;
    }

    /**
     * As Jccl's error messages write it: {@code AllReduce (1024 × FLOAT32, SUM)}, {@code Send (10 × INT32, peer 2)}.
     */
    String describe() {
        StringBuilder s =
                new StringBuilder(op).append(" (").append(count).append(" × ").append(type);
        if (reduceOp != null) s.append(", ").append(reduceOp);
        if (peer >= 0) s.append(collective ? ", root " : ", peer ").append(peer);
        return s.append(')').toString();
    }

    /** {@code #150 AllReduce}, the short form the analysis names operations by. */
    String label() {
        return (collective ? "#" : "point-to-point #") + seq + " " + op;
    }

    /**
     * What must be the same on every rank for one collective call: the operation, its count, type, reduction and root.
     * Each rank's sequence number says which call it is; these say whether it is the same call.
     */
    record Signature(String op, long count, String type, String reduceOp, int root) {}

    Signature signature() {
        return new Signature(op, count, type, reduceOp, peer);
    }
}
