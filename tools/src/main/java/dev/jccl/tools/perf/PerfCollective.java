package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * The benchmarks of {@code jccl perf}, named as nccl-tests names its binaries, with nccl-tests' buffer geometry and
 * bus-bandwidth factors, so that a row of our table means what the same row of theirs means.
 *
 * <p>Geometry: a row of {@code size} bytes has {@code size / elementSize} elements in the larger buffer. AllGather,
 * ReduceScatter and AllToAll split that into one block per rank (rounded down), and the {@code count} column is the
 * count argument of the call (one block).
 *
 * <p>Bus bandwidth (nccl-tests' PERFORMANCE.md): algbw = size / time, and busbw = algbw × a factor that makes the
 * figure comparable with the hardware's link speed whatever the rank count: 2(n−1)/n for AllReduce, (n−1)/n for
 * AllGather, ReduceScatter and AllToAll, 1 for Broadcast, Reduce and SendRecv.
 */
public enum PerfCollective {
    ALL_REDUCE("all_reduce", Collective.ALL_REDUCE, true, false),
    ALL_GATHER("all_gather", Collective.ALL_GATHER, false, false),
    BROADCAST("broadcast", Collective.BROADCAST, false, true),
    REDUCE("reduce", Collective.REDUCE, true, true),
    REDUCE_SCATTER("reduce_scatter", Collective.REDUCE_SCATTER, true, false),
    ALL_TO_ALL("alltoall", Collective.ALL_TO_ALL, false, false),
    SENDRECV("sendrecv", Collective.SEND_RECV, false, false);

    private final String cliName;
    private final Collective collective;
    private final boolean reduces;
    private final boolean rooted;

    PerfCollective(String cliName, Collective collective, boolean reduces, boolean rooted) {
        this.cliName = cliName;
        this.collective = collective;
        this.reduces = reduces;
        this.rooted = rooted;
    }

    /** nccl-tests' name: {@code all_reduce}, {@code alltoall}, … */
    public String cliName() {
        return cliName;
    }

    /** The planner's name for it, to ask which algorithm a size gets. */
    public Collective collective() {
        return collective;
    }

    /** Whether the op ({@code -o}) matters; the table shows {@code none} otherwise. */
    public boolean reduces() {
        return reduces;
    }

    /** Whether the root ({@code -r}) matters; the table shows -1 otherwise. */
    public boolean rooted() {
        return rooted;
    }

    public static PerfCollective parse(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT).replace('-', '_');
        for (PerfCollective c : values()) {
            if (c.cliName.equals(n) || c.cliName.equals(n.replace("_perf", ""))) return c;
        }
        throw new IllegalArgumentException("unknown benchmark '" + name + "'; expected one of "
                + Arrays.stream(values()).map(PerfCollective::cliName).collect(Collectors.joining(", ")));
    }

    /** busbw / algbw for {@code n} ranks. */
    public double busFactor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> (double) (n - 1) / n;
            case BROADCAST, REDUCE, SENDRECV -> 1.0;
        };
    }

    /**
     * Element counts of one row.
     *
     * @param sendCount elements this rank's send buffer holds
     * @param recvCount elements this rank's receive buffer holds
     * @param paramCount the count argument of the call (the table's {@code count})
     * @param sendInPlaceStep in-place runs put rank r's send buffer at {@code r × sendInPlaceStep} elements into the
     *     receive buffer
     * @param recvInPlaceStep … and its receive buffer at {@code r × recvInPlaceStep}
     */
    public record Geometry(
            long sendCount, long recvCount, long paramCount, long sendInPlaceStep, long recvInPlaceStep) {
        /** The table's {@code size} column, in bytes. */
        public long sizeBytes(DataType type) {
            return Math.max(sendCount, recvCount) * type.byteSize();
        }
    }

    /** The geometry of a row whose larger buffer has {@code count} elements, for {@code n} ranks. */
    public Geometry geometry(long count, int n) {
        long block = count / n;
        return switch (this) {
            case ALL_REDUCE, BROADCAST, REDUCE, SENDRECV -> new Geometry(count, count, count, 0, 0);
            case ALL_GATHER -> new Geometry(block, block * n, block, block, 0);
            case REDUCE_SCATTER -> new Geometry(block * n, block, block, 0, block);
            case ALL_TO_ALL -> new Geometry(block * n, block * n, block, 0, 0);
        };
    }

    /**
     * Runs one operation and waits for it. {@code op} is ignored where nothing is reduced, {@code root} where there is
     * none.
     */
    public void run(
            Communicator c, MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        int n = c.size();
        switch (this) {
            case ALL_REDUCE -> c.allReduce(send, recv, count, type, op);
            case ALL_GATHER -> c.allGather(send, recv, count, type);
            case BROADCAST -> c.broadcast(send, recv, count, type, root);
            case REDUCE -> c.reduce(send, recv, count, type, op, root);
            case REDUCE_SCATTER -> c.reduceScatter(send, recv, count, type, op);
            case ALL_TO_ALL -> c.allToAll(send, recv, count, type);
            case SENDRECV -> c.sendRecv(send, (c.rank() + 1) % n, recv, (c.rank() - 1 + n) % n, count, type);
        }
    }

    /** Starts one operation without waiting; operations complete in call order. */
    public CompletableFuture<Void> start(
            Communicator c, MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        int n = c.size();
        return switch (this) {
            case ALL_REDUCE -> c.allReduceAsync(send, recv, count, type, op);
            case ALL_GATHER -> c.allGatherAsync(send, recv, count, type);
            case BROADCAST -> c.broadcastAsync(send, recv, count, type, root);
            case REDUCE -> c.reduceAsync(send, recv, count, type, op, root);
            case REDUCE_SCATTER -> c.reduceScatterAsync(send, recv, count, type, op);
            case ALL_TO_ALL -> c.allToAllAsync(send, recv, count, type);
            case SENDRECV -> c.sendRecvAsync(send, (c.rank() + 1) % n, recv, (c.rank() - 1 + n) % n, count, type);
        };
    }
}
