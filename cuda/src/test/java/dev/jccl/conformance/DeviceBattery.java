package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.fail;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.conformance.TestData.Dist;
import dev.jccl.cuda.CudaSupport;
import dev.jccl.cuda.DeviceBuffer;
import dev.jccl.cuda.DeviceMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One rank's device conformance cases, run through a {@link Communicator} with a GPU attached ({@link CudaSupport}) on
 * any {@link DeviceMemory} (the stand-in in CI, a GPU where there is one); every rank runs the same list in the same
 * order and returns what went wrong.
 */
public final class DeviceBattery {
    static final long[] COUNTS = {0, 1, 2, 13, 97, 1031};
    static final int GUARD = 64;
    static final byte SENTINEL = (byte) 0xA5;
    static final DataType[] WIDTHS = {DataType.INT8, DataType.BFLOAT16, DataType.FLOAT32, DataType.UINT64};

    /** Fails with every rank's problems (or exception) listed. */
    public static void assertClean(List<Object> results) {
        List<String> problems = new ArrayList<>();
        for (int r = 0; r < results.size(); r++) {
            Object o = results.get(r);
            if (o instanceof Throwable t) {
                java.io.StringWriter w = new java.io.StringWriter();
                t.printStackTrace(new java.io.PrintWriter(w));
                problems.add("rank " + r + " threw " + w);
            } else {
                @SuppressWarnings("unchecked")
                List<String> wrong = (List<String>) o;
                for (String s : wrong) problems.add("rank " + r + ": " + s);
            }
        }
        if (!problems.isEmpty()) {
            fail(problems.size() + " problems, first ones:\n"
                    + String.join("\n", problems.subList(0, Math.min(20, problems.size()))));
        }
    }

    private final int rank;
    private final int n;
    private final Communicator comm;
    private final DeviceMemory memory;
    private final List<String> problems = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private long seed = 1000;

    public DeviceBattery(int rank, int n, Communicator comm, DeviceMemory memory) {
        this.rank = rank;
        this.n = n;
        this.comm = comm;
        this.memory = memory;
    }

    public List<String> run() {
        try {
            for (DataType t : DataType.values()) {
                for (ReduceOp op : ReduceOp.values()) {
                    for (long count : COUNTS) allReduce(t, op, count, count % 2 == 1);
                }
            }
            for (DataType t : WIDTHS) {
                for (long count : COUNTS) {
                    for (int root = 0; root < n; root++) broadcast(t, count, root, (count + root) % 2 == 0);
                    reduce(
                            t,
                            t.isFloatingPoint() ? ReduceOp.SUM : ReduceOp.MAX,
                            count,
                            (int) (count % n),
                            count % 2 == 0);
                    allGather(t, count, count % 2 == 1);
                    reduceScatter(t, ReduceOp.SUM, count, count % 2 == 0);
                    reduceScatter(t, ReduceOp.AVG, count, count % 2 == 1);
                    allToAll(t, count, count % 2 == 0);
                    if (n > 1) sendRecvRing(t, count);
                    sendRecvExchange(t, count, count % 2 == 1);
                }
            }
            asyncBackToBack();
        } finally {
            arena.close();
        }
        return problems;
    }

    // ------------------------------------------------------------ cases

    private void allReduce(DataType t, ReduceOp op, long count, boolean inPlace) {
        long s = seed++;
        Dist d = TestData.exactFor(t, op);
        long bytes = count * t.byteSize();
        DeviceBuffer recv = guarded(bytes);
        DeviceBuffer send = sendFor(recv, inPlace, bytes, s, count, t, d);
        comm.allReduce(send.slice(0, bytes).segment(), recv.slice(0, bytes).segment(), count, t, op);
        Reference.Reduction ref = new Reference.Reduction(s, n, t, op, d);
        check("AllReduce " + t + " " + op + " " + count + (inPlace ? " in place" : ""), recv, count, t, ref::expected);
        if (!inPlace) check("AllReduce send kept", send, count, t, i -> TestData.bits(s, rank, i, t, d));
        free(send, recv);
    }

    private void broadcast(DataType t, long count, int root, boolean inPlace) {
        long s = seed++;
        long bytes = count * t.byteSize();
        DeviceBuffer recv = guarded(bytes);
        DeviceBuffer send = sendFor(recv, inPlace, bytes, s, count, t, Dist.BITS);
        comm.broadcast(
                rank == root || !inPlace ? send.slice(0, bytes).segment() : null,
                recv.slice(0, bytes).segment(),
                count,
                t,
                root);
        check(
                "Broadcast " + t + " " + count + " root " + root,
                recv,
                count,
                t,
                i -> TestData.bits(s, root, i, t, Dist.BITS));
        free(send, recv);
    }

    private void reduce(DataType t, ReduceOp op, long count, int root, boolean inPlace) {
        long s = seed++;
        Dist d = TestData.exactFor(t, op);
        long bytes = count * t.byteSize();
        DeviceBuffer recv = guarded(bytes);
        DeviceBuffer send = sendFor(recv, inPlace, bytes, s, count, t, d);
        if (!inPlace) memory.fill(recv, SENTINEL);
        comm.reduce(
                send.slice(0, bytes).segment(),
                rank == root || inPlace ? recv.slice(0, bytes).segment() : null,
                count,
                t,
                op,
                root);
        Reference.Reduction ref = new Reference.Reduction(s, n, t, op, d);
        if (rank == root) {
            check("Reduce " + t + " " + op + " " + count + " root " + root, recv, count, t, ref::expected);
        } else if (!inPlace) {
            checkSentinel("Reduce non-root recv untouched", recv, recv.byteSize());
        }
        free(send, recv);
    }

    private void allGather(DataType t, long count, boolean inPlace) {
        long s = seed++;
        long block = count * t.byteSize();
        DeviceBuffer recv = guarded(block * n);
        DeviceBuffer send = inPlace ? recv.slice(rank * block, block) : guarded(block);
        upload(send, s, rank, 0, count, t, Dist.BITS);
        comm.allGather(send.slice(0, block).segment(), recv.slice(0, block * n).segment(), count, t);
        check(
                "AllGather " + t + " " + count,
                recv,
                count * n,
                t,
                i -> TestData.bits(s, (int) (i / count), i % count, t, Dist.BITS));
        if (!inPlace) free(send);
        free(recv);
    }

    private void reduceScatter(DataType t, ReduceOp op, long count, boolean inPlace) {
        long s = seed++;
        Dist d = TestData.exactFor(t, op);
        long block = count * t.byteSize();
        DeviceBuffer send = guarded(block * n);
        DeviceBuffer recv = inPlace ? send.slice(rank * block, block) : guarded(block);
        upload(send, s, rank, 0, count * n, t, d);
        comm.reduceScatter(
                send.slice(0, block * n).segment(), recv.slice(0, block).segment(), count, t, op);
        Reference.Reduction ref = new Reference.Reduction(s, n, t, op, d);
        check("ReduceScatter " + t + " " + op + " " + count, recv, count, t, i -> ref.expected(rank * count + i));
        if (!inPlace) free(recv);
        free(send);
    }

    private void allToAll(DataType t, long count, boolean inPlace) {
        long s = seed++;
        long total = count * n * t.byteSize();
        DeviceBuffer recv = guarded(total);
        DeviceBuffer send = inPlace ? recv : guarded(total);
        upload(send, s, rank, 0, count * n, t, Dist.BITS);
        comm.allToAll(send.slice(0, total).segment(), recv.slice(0, total).segment(), count, t);
        check(
                "AllToAll " + t + " " + count + (inPlace ? " in place" : ""),
                recv,
                count * n,
                t,
                i -> TestData.bits(s, (int) (i / count), rank * count + i % count, t, Dist.BITS));
        free(send, recv);
    }

    /**
     * Send to the next rank and receive from the previous, first as separate send/recv (even ranks send first), then as
     * one sendRecv.
     */
    private void sendRecvRing(DataType t, long count) {
        long s = seed++;
        long bytes = count * t.byteSize();
        int next = (rank + 1) % n;
        int prev = (rank - 1 + n) % n;
        DeviceBuffer send = guarded(bytes);
        DeviceBuffer recv = guarded(bytes);
        upload(send, s, rank, 0, count, t, Dist.BITS);
        if (rank % 2 == 0) {
            comm.send(send.slice(0, bytes).segment(), count, t, next);
            comm.recv(recv.slice(0, bytes).segment(), count, t, prev);
        } else {
            CompletableFuture<Void> r = comm.recvAsync(recv.slice(0, bytes).segment(), count, t, prev);
            CompletableFuture<Void> w = comm.sendAsync(send.slice(0, bytes).segment(), count, t, next);
            r.join();
            w.join();
        }
        check("Send/Recv ring " + t + " " + count, recv, count, t, i -> TestData.bits(s, prev, i, t, Dist.BITS));
        free(send, recv);
    }

    /** SendRecv with the neighbours (or with itself, on one rank), in place or not. */
    private void sendRecvExchange(DataType t, long count, boolean inPlace) {
        long s = seed++;
        long bytes = count * t.byteSize();
        int next = (rank + 1) % n;
        int prev = (rank - 1 + n) % n;
        DeviceBuffer recv = guarded(bytes);
        DeviceBuffer send = sendFor(recv, inPlace, bytes, s, count, t, Dist.BITS);
        comm.sendRecv(send.slice(0, bytes).segment(), next, recv.slice(0, bytes).segment(), prev, count, t);
        check(
                "SendRecv " + t + " " + count + (inPlace ? " in place" : ""),
                recv,
                count,
                t,
                i -> TestData.bits(s, prev, i, t, Dist.BITS));
        free(send, recv);
    }

    /** Async calls issued back to back complete in order with the right data. */
    private void asyncBackToBack() {
        int calls = 8;
        long count = 211;
        DataType t = DataType.FLOAT32;
        List<DeviceBuffer> buffers = new ArrayList<>();
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        long first = seed;
        for (int c = 0; c < calls; c++) {
            DeviceBuffer b = guarded(count * 4);
            upload(b, seed++, rank, 0, count, t, Dist.SMALL_INTS);
            buffers.add(b);
            futures.add(comm.allReduceAsync(
                    b.slice(0, count * 4).segment(), b.slice(0, count * 4).segment(), count, t, ReduceOp.SUM));
        }
        for (int c = 0; c < calls; c++) {
            futures.get(c).join();
            for (int e = 0; e < c; e++) {
                if (!futures.get(e).isDone()) problems.add("async call " + e + " not done when " + c + " was");
            }
        }
        for (int c = 0; c < calls; c++) {
            Reference.Reduction ref = new Reference.Reduction(first + c, n, t, ReduceOp.SUM, Dist.SMALL_INTS);
            check("async AllReduce #" + c, buffers.get(c), count, t, ref::expected);
            free(buffers.get(c));
        }
    }

    // ------------------------------------------------------------ buffers

    /** A device buffer of {@code bytes} plus guard bytes, all set to the sentinel. */
    /**
     * The send buffer of a call with {@code recv}: recv itself in place, else a guarded buffer of {@code bytes}; either
     * way holding this rank's {@code count} elements of seed {@code s}.
     */
    private DeviceBuffer sendFor(
            DeviceBuffer recv, boolean inPlace, long bytes, long s, long count, DataType t, Dist d) {
        DeviceBuffer send = inPlace ? recv : guarded(bytes);
        upload(send, s, rank, 0, count, t, d);
        return send;
    }

    private DeviceBuffer guarded(long bytes) {
        DeviceBuffer b = memory.allocate(bytes + GUARD);
        memory.fill(b, SENTINEL);
        return b;
    }

    /** Frees each distinct buffer once (in-place cases pass the same one twice), checking its guard bytes first. */
    private void free(DeviceBuffer... buffers) {
        for (DeviceBuffer b : new java.util.LinkedHashSet<>(List.of(buffers))) {
            if (b.byteSize() == 0) continue;
            checkSentinelFrom("guard bytes", b, b.byteSize() - GUARD);
            memory.free(b);
        }
    }

    private void upload(DeviceBuffer dst, long s, int r, long first, long count, DataType t, Dist d) {
        if (count == 0) return;
        MemorySegment host = arena.allocate(count * t.byteSize(), 8);
        TestData.fill(host, s, r, first, count, t, d);
        memory.upload(host, dst.slice(0, host.byteSize()));
    }

    private void check(
            String what, DeviceBuffer b, long count, DataType t, java.util.function.LongUnaryOperator expected) {
        MemorySegment host = arena.allocate(Math.max(1, b.byteSize()), 8);
        memory.download(b, host);
        int reported = 0;
        for (long i = 0; i < count && reported < 3; i++) {
            long got = Elements.get(host, t, i);
            long want = expected.applyAsLong(i) & Elements.mask(t);
            if (got != want) {
                problems.add(what + ": element " + i + " is " + Elements.describe(t, got) + ", expected "
                        + Elements.describe(t, want));
                reported++;
            }
        }
        checkSentinelIn(what + " (bytes after the count)", host, count * t.byteSize(), b.byteSize());
    }

    private void checkSentinel(String what, DeviceBuffer b, long bytes) {
        MemorySegment host = arena.allocate(Math.max(1, b.byteSize()), 8);
        memory.download(b, host);
        checkSentinelIn(what, host, 0, bytes);
    }

    private void checkSentinelFrom(String what, DeviceBuffer b, long from) {
        MemorySegment host = arena.allocate(Math.max(1, b.byteSize()), 8);
        memory.download(b, host);
        checkSentinelIn(what, host, from, b.byteSize());
    }

    private void checkSentinelIn(String what, MemorySegment host, long from, long to) {
        for (long i = from; i < to; i++) {
            if (host.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) {
                problems.add(what + ": byte " + i + " was overwritten");
                return;
            }
        }
    }
}
