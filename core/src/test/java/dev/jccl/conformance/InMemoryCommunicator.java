package dev.jccl.conformance;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A deliberately plain, slow, in-JVM implementation of {@link Communicator} that exists only to test the conformance
 * suite itself: the suite must pass against it, and must fail against each of its {@link Fault}s. It shares no code
 * with the suite's {@link Reference} (reductions run rank by rank in the element type, 16-bit floats through the JDK's
 * own conversions), nor with the real runtime.
 *
 * <p>Every collective is a rendezvous: each rank deposits a copy of its input, all wait, each computes its own output
 * from the deposits, all wait again. Send copies into the peer's mailbox; SendRecv sends (never waits) and then
 * receives.
 */
final class InMemoryCommunicator implements Communicator {

    /** Defects to inject, each of which the suite must notice. */
    enum Fault {
        NONE,
        /** AllReduce leaves the last element of recv unwritten. */
        ALLREDUCE_SKIPS_LAST_ELEMENT,
        /** AllGather writes one element past the end of recv. */
        ALLGATHER_OVERRUNS,
        /** Float AVG multiplies by 1/n instead of dividing by n (what NCCL's PreMulSum does). */
        AVG_MULTIPLIES_BY_RECIPROCAL,
        /** Integer AVG divides UINT* sums as signed. */
        AVG_UNSIGNED_AS_SIGNED,
        /** MIN/MAX compare the unsigned types as signed. */
        UNSIGNED_COMPARED_AS_SIGNED,
        /** FLOAT16 results are rounded toward zero instead of to nearest even. */
        HALF_TRUNCATES,
        /** Reduce writes the result into non-roots' recv too. */
        REDUCE_WRITES_NON_ROOT,
        /** Broadcast always sends rank 0's data. */
        BROADCAST_IGNORES_ROOT,
        /** AllToAll delivers block j of the receiver's own send to block j. */
        ALLTOALL_TRANSPOSED,
        /** ReduceScatter gives every rank block 0. */
        REDUCESCATTER_ALWAYS_BLOCK_ZERO,
        /** Recv takes the newest pending message from the peer instead of the oldest. */
        RECV_LIFO,
        /** SendRecv sends what recv holds instead of send (the same out of place only by accident). */
        SENDRECV_SENDS_RECV_BUFFER,
        /** Async calls take confined segments (and fail later, on the progress thread). */
        ASYNC_ACCEPTS_CONFINED,
        /** Every second async future completes 50 ms after the op ran, i.e. after later ones. */
        ASYNC_COMPLETES_OUT_OF_ORDER,
        /** Barrier returns at once. */
        BARRIER_DOES_NOT_WAIT,
        /** split orders members by parent rank and ignores the key. */
        SPLIT_IGNORES_KEY,
        /** Bad arguments are not rejected (every collective silently does nothing). */
        NO_ARGUMENT_CHECKS
    }

    private static final Config CONFIG =
            Config.builder().timeout(Duration.ofSeconds(60)).build();

    /** What the ranks of one communicator share. */
    private static final class World {
        final int size;
        final Fault fault;
        final CyclicBarrier barrier;
        final Object[] slots;
        final Map<Long, BlockingDeque<byte[]>> mailboxes = new ConcurrentHashMap<>();
        final Map<String, World> children = new ConcurrentHashMap<>();
        /**
         * Set by any rank's abort, so that peers fail at once instead of waiting (as the real runtime's abort does).
         */
        volatile boolean aborted;

        World(int size, Fault fault) {
            this.size = size;
            this.fault = fault;
            this.barrier = new CyclicBarrier(size);
            this.slots = new Object[size];
        }

        BlockingDeque<byte[]> mailbox(int src, int dst) {
            return mailboxes.computeIfAbsent((long) src * size + dst, k -> new LinkedBlockingDeque<>());
        }
    }

    private final World world;
    private final int rank;
    private final ExecutorService progress;
    private final Thread progressThread;
    private final ScheduledExecutorService delayer;
    private volatile boolean aborted;
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private int splits;
    private int asyncIssued;

    private InMemoryCommunicator(World world, int rank) {
        this.world = world;
        this.rank = rank;
        Thread[] t = new Thread[1];
        this.progress = Executors.newSingleThreadExecutor(r -> {
            t[0] = new Thread(r, "in-memory-progress-" + rank);
            t[0].setDaemon(true);
            return t[0];
        });
        try {
            progress.submit(() -> {}).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        this.progressThread = t[0];
        this.delayer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread d = new Thread(r, "in-memory-delayer-" + rank);
            d.setDaemon(true);
            return d;
        });
    }

    /** The {@code size} ranks of a new communicator; rank i is element i. */
    static List<Communicator> create(int size, Fault fault) {
        World w = new World(size, fault);
        List<Communicator> out = new ArrayList<>();
        for (int r = 0; r < size; r++) out.add(new InMemoryCommunicator(w, r));
        return out;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return world.size;
    }

    @Override
    public Config config() {
        return CONFIG;
    }

    // ------------------------------------------------------------------ machinery

    private boolean fault(Fault f) {
        return world.fault == f;
    }

    private Object[] exchange(Object mine) {
        try {
            world.slots[rank] = mine;
            world.barrier.await(60, TimeUnit.SECONDS);
            Object[] all = world.slots.clone();
            world.barrier.await(60, TimeUnit.SECONDS);
            return all;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("rank " + rank + " interrupted", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            world.barrier.reset();
            throw new JcclException("rank " + rank + ": a peer aborted or timed out", e);
        }
    }

    private void blocking(Runnable op) {
        if (aborted || world.aborted) throw new JcclException("rank " + rank + ": communicator aborted");
        tail.join();
        op.run();
    }

    private CompletableFuture<Void> async(Runnable op, MemorySegment... segments) {
        if (aborted || world.aborted) throw new JcclException("rank " + rank + ": communicator aborted");
        if (!fault(Fault.ASYNC_ACCEPTS_CONFINED)) {
            for (MemorySegment s : segments) {
                if (!s.isAccessibleBy(progressThread)) {
                    throw new IllegalArgumentException(
                            "async calls need segments every thread can access; this one is confined to its owner");
                }
            }
        }
        CompletableFuture<Void> ran = tail.thenRunAsync(op, progress);
        tail = ran.exceptionally(e -> null);
        if (!fault(Fault.ASYNC_COMPLETES_OUT_OF_ORDER) || asyncIssued++ % 2 == 1) return ran;
        CompletableFuture<Void> late = new CompletableFuture<>();
        ran.whenComplete((v, e) -> delayer.schedule(
                () -> {
                    if (e != null) late.completeExceptionally(e);
                    else late.complete(null);
                },
                50,
                TimeUnit.MILLISECONDS));
        return late;
    }

    private static byte[] copy(MemorySegment s, long bytes) {
        return s.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE);
    }

    private void check(boolean ok, String message) {
        if (!ok && !fault(Fault.NO_ARGUMENT_CHECKS)) throw new IllegalArgumentException(message);
    }

    private boolean checks(
            long count,
            DataType t,
            int root,
            int peer,
            String op,
            MemorySegment send,
            long sendBytes,
            MemorySegment recv,
            long recvBytes) {
        check(count >= 0, op + ": count must not be negative, got " + count);
        // callers computed the byte sizes with plain multiplication; anything past 2^62 elements is refused here
        check(count <= (Long.MAX_VALUE / 8) / world.size / t.byteSize(), op + ": count " + count + " is too large");
        if (count > (Long.MAX_VALUE / 8) / world.size / t.byteSize()) return false;
        check(root >= 0 && root < world.size, op + ": root " + root + " is outside 0.." + (world.size - 1));
        check(peer >= 0 && peer < world.size, op + ": peer " + peer + " is outside 0.." + (world.size - 1));
        if (count < 0 || root < 0 || root >= world.size || peer < 0 || peer >= world.size) return false;
        if (send != null) {
            check(send.byteSize() >= sendBytes, op + ": send holds " + send.byteSize() + " bytes, needs " + sendBytes);
        }
        if (recv != null) {
            check(recv.byteSize() >= recvBytes, op + ": recv holds " + recv.byteSize() + " bytes, needs " + recvBytes);
        }
        return (send == null || send.byteSize() >= sendBytes) && (recv == null || recv.byteSize() >= recvBytes);
    }

    // ------------------------------------------------------------------ reductions (rank order, element type)

    private long combine(DataType t, ReduceOp op, long a, long b) {
        boolean signedCompare = fault(Fault.UNSIGNED_COMPARED_AS_SIGNED);
        ReduceOp o = op == ReduceOp.AVG ? ReduceOp.SUM : op;
        return switch (t) {
            case INT8 -> ints(o, (byte) a, (byte) b) & 0xFF;
            case UINT8 ->
                (o == ReduceOp.MIN || o == ReduceOp.MAX) && !signedCompare
                        ? ints(o, a & 0xFF, b & 0xFF) & 0xFF
                        : ints(o, (byte) a, (byte) b) & 0xFF;
            case INT32 -> ints(o, (int) a, (int) b) & 0xFFFF_FFFFL;
            case UINT32 ->
                (o == ReduceOp.MIN || o == ReduceOp.MAX) && !signedCompare
                        ? ints(o, a & 0xFFFF_FFFFL, b & 0xFFFF_FFFFL) & 0xFFFF_FFFFL
                        : ints(o, (int) a, (int) b) & 0xFFFF_FFFFL;
            case INT64 -> ints(o, a, b);
            case UINT64 ->
                (o == ReduceOp.MIN || o == ReduceOp.MAX) && !signedCompare
                        ? (o == ReduceOp.MIN ^ Long.compareUnsigned(a, b) > 0 ? a : b)
                        : ints(o, a, b);
            case FLOAT16 -> toHalf(floats(o, Float.float16ToFloat((short) a), Float.float16ToFloat((short) b)));
            case BFLOAT16 ->
                toBf16(floats(o, Float.intBitsToFloat((int) a << 16), Float.intBitsToFloat((int) b << 16)));
            case FLOAT32 ->
                Float.floatToRawIntBits(floats(o, Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b)))
                        & 0xFFFF_FFFFL;
            case FLOAT64 -> {
                double x = Double.longBitsToDouble(a);
                double y = Double.longBitsToDouble(b);
                yield Double.doubleToRawLongBits(
                        switch (o) {
                            case SUM -> x + y;
                            case PROD -> x * y;
                            case MIN -> Math.min(x, y);
                            default -> Math.max(x, y);
                        });
            }
        };
    }

    private static long ints(ReduceOp op, long x, long y) {
        return switch (op) {
            case SUM -> x + y;
            case PROD -> x * y;
            case MIN -> Math.min(x, y);
            default -> Math.max(x, y);
        };
    }

    private static float floats(ReduceOp op, float x, float y) {
        return switch (op) {
            case SUM -> x + y;
            case PROD -> x * y;
            case MIN -> Math.min(x, y);
            default -> Math.max(x, y);
        };
    }

    private long toHalf(float f) {
        if (fault(Fault.HALF_TRUNCATES)) {
            short h = Float.floatToFloat16(f);
            if (Math.abs(Float.float16ToFloat(h)) > Math.abs(f)) h = (short) (h - 1);
            return h & 0xFFFF;
        }
        return Float.floatToFloat16(f) & 0xFFFF;
    }

    /** bfloat16 by picking the nearer of the two neighbours (ties to even), not by bit tricks. */
    private static long toBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        int down = bits & 0xFFFF_0000;
        if (Float.intBitsToFloat(down) == f) return (down >>> 16) & 0xFFFF;
        int up = down + 0x1_0000;
        double dd = Math.abs((double) f - Float.intBitsToFloat(down));
        double du = Math.abs((double) Float.intBitsToFloat(up) - f);
        int pick = dd < du ? down : du < dd ? up : ((down >>> 16) & 1) == 0 ? down : up;
        return (pick >>> 16) & 0xFFFF;
    }

    private long average(DataType t, long sum, int n) {
        boolean signed = fault(Fault.AVG_UNSIGNED_AS_SIGNED);
        boolean reciprocal = fault(Fault.AVG_MULTIPLIES_BY_RECIPROCAL);
        return switch (t) {
            case INT8 -> ((byte) sum / n) & 0xFF;
            case UINT8 -> (signed ? (byte) sum / n : (sum & 0xFF) / n) & 0xFF;
            case INT32 -> ((int) sum / n) & 0xFFFF_FFFFL;
            case UINT32 -> (signed ? (int) sum / n : Integer.divideUnsigned((int) sum, n)) & 0xFFFF_FFFFL;
            case INT64 -> sum / n;
            case UINT64 -> signed ? sum / n : Long.divideUnsigned(sum, n);
            case FLOAT16 ->
                toHalf(
                        reciprocal
                                ? Float.float16ToFloat((short) sum) * (1f / n)
                                : Float.float16ToFloat((short) sum) / n);
            case BFLOAT16 ->
                toBf16(
                        reciprocal
                                ? Float.intBitsToFloat((int) sum << 16) * (1f / n)
                                : Float.intBitsToFloat((int) sum << 16) / n);
            case FLOAT32 ->
                Float.floatToRawIntBits(
                                reciprocal
                                        ? Float.intBitsToFloat((int) sum) * (1f / n)
                                        : Float.intBitsToFloat((int) sum) / n)
                        & 0xFFFF_FFFFL;
            case FLOAT64 ->
                Double.doubleToRawLongBits(
                        reciprocal ? Double.longBitsToDouble(sum) * (1.0 / n) : Double.longBitsToDouble(sum) / n);
        };
    }

    /** Element-wise reduction of the deposits' elements {@code from..from+count-1} into {@code out} at 0... */
    private void reduceInto(Object[] deposits, MemorySegment out, long from, long count, DataType t, ReduceOp op) {
        MemorySegment[] in = new MemorySegment[deposits.length];
        for (int r = 0; r < in.length; r++) in[r] = MemorySegment.ofArray((byte[]) deposits[r]);
        for (long i = 0; i < count; i++) {
            long acc = Elements.get(in[0], t, from + i);
            for (int r = 1; r < in.length; r++) acc = combine(t, op, acc, Elements.get(in[r], t, from + i));
            if (op == ReduceOp.AVG) acc = average(t, acc, in.length);
            Elements.set(out, t, i, acc);
        }
    }

    // ------------------------------------------------------------------ collectives

    private void doAllReduce(MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op) {
        Object[] all = exchange(copy(send, count * t.byteSize()));
        long n = fault(Fault.ALLREDUCE_SKIPS_LAST_ELEMENT) && count >= 2 ? count - 1 : count;
        reduceInto(all, recv, 0, n, t, op);
    }

    private void doBroadcast(MemorySegment send, MemorySegment recv, long count, DataType t, int root) {
        Object[] all = exchange(rank == root ? copy(send, count * t.byteSize()) : null);
        byte[] data = (byte[]) all[fault(Fault.BROADCAST_IGNORES_ROOT) ? 0 : root];
        if (data == null) data = copy(send, count * t.byteSize()); // rank 0 under the fault: its own send
        MemorySegment.copy(MemorySegment.ofArray(data), 0, recv, 0, count * t.byteSize());
    }

    private void doReduce(MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op, int root) {
        Object[] all = exchange(copy(send, count * t.byteSize()));
        if (rank == root || fault(Fault.REDUCE_WRITES_NON_ROOT)) reduceInto(all, recv, 0, count, t, op);
    }

    private void doAllGather(MemorySegment send, MemorySegment recv, long count, DataType t) {
        long bytes = count * t.byteSize();
        Object[] all = exchange(copy(send, bytes));
        for (int r = 0; r < all.length; r++) {
            MemorySegment.copy(MemorySegment.ofArray((byte[]) all[r]), 0, recv, r * bytes, bytes);
        }
        if (fault(Fault.ALLGATHER_OVERRUNS) && recv.byteSize() > all.length * bytes) {
            recv.set(ValueLayout.JAVA_BYTE, all.length * bytes, (byte) 0);
        }
    }

    private void doReduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType t, ReduceOp op) {
        Object[] all = exchange(copy(send, world.size * recvCount * t.byteSize()));
        int block = fault(Fault.REDUCESCATTER_ALWAYS_BLOCK_ZERO) ? 0 : rank;
        reduceInto(all, recv, block * recvCount, recvCount, t, op);
    }

    private void doAllToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType t) {
        long bytes = countPerPeer * t.byteSize();
        Object[] all = exchange(copy(send, world.size * bytes));
        for (int r = 0; r < all.length; r++) {
            byte[] src = (byte[]) all[fault(Fault.ALLTOALL_TRANSPOSED) ? rank : r];
            long srcBlock = fault(Fault.ALLTOALL_TRANSPOSED) ? r : rank;
            MemorySegment.copy(MemorySegment.ofArray(src), srcBlock * bytes, recv, r * bytes, bytes);
        }
    }

    private void doSend(MemorySegment buf, long count, DataType t, int peer) {
        world.mailbox(rank, peer).addLast(copy(buf, count * t.byteSize()));
    }

    private void doRecv(MemorySegment buf, long count, DataType t, int peer) {
        BlockingDeque<byte[]> box = world.mailbox(peer, rank);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        byte[] msg = null;
        try {
            while (msg == null) {
                if (aborted || world.aborted) {
                    throw new JcclException("rank " + rank + ": aborted while receiving from " + peer);
                }
                if (System.nanoTime() > deadline) {
                    throw new JcclException("rank " + rank + ": nothing from " + peer + " in 60 s");
                }
                if (fault(Fault.RECV_LIFO) && box.size() > 1) msg = box.pollLast();
                else msg = box.pollFirst(10, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("interrupted", e);
        }
        if (msg.length != count * t.byteSize()) {
            throw new JcclException("rank " + rank + ": message from " + peer + " has " + msg.length
                    + " bytes, recv expects " + count * t.byteSize());
        }
        MemorySegment.copy(MemorySegment.ofArray(msg), 0, buf, 0, msg.length);
    }

    /** The send is a copy into the peer's mailbox, so it never waits: the receive cannot block it. */
    private void doSendRecv(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType t) {
        doSend(fault(Fault.SENDRECV_SENDS_RECV_BUFFER) ? recv : send, count, t, sendPeer);
        doRecv(recv, count, t, recvPeer);
    }

    private void doBarrier() {
        if (!fault(Fault.BARRIER_DOES_NOT_WAIT)) exchange(null);
    }

    // ------------------------------------------------------------------ public API

    @Override
    public void allReduce(MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op) {
        long b = count * t.byteSize();
        if (!checks(count, t, 0, 0, "AllReduce", send, b, recv, b)) return;
        blocking(() -> doAllReduce(send, recv, count, t, op));
    }

    @Override
    public CompletableFuture<Void> allReduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op) {
        long b = count * t.byteSize();
        if (!checks(count, t, 0, 0, "AllReduce", send, b, recv, b)) return CompletableFuture.completedFuture(null);
        return async(() -> doAllReduce(send, recv, count, t, op), send, recv);
    }

    @Override
    public void broadcast(MemorySegment send, MemorySegment recv, long count, DataType t, int root) {
        long b = count * t.byteSize();
        if (!checks(count, t, root, 0, "Broadcast", send, b, recv, b)) return;
        blocking(() -> doBroadcast(send, recv, count, t, root));
    }

    @Override
    public CompletableFuture<Void> broadcastAsync(
            MemorySegment send, MemorySegment recv, long count, DataType t, int root) {
        long b = count * t.byteSize();
        if (!checks(count, t, root, 0, "Broadcast", send, b, recv, b)) return CompletableFuture.completedFuture(null);
        return async(() -> doBroadcast(send, recv, count, t, root), send, recv);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op, int root) {
        long b = count * t.byteSize();
        if (!checks(count, t, root, 0, "Reduce", send, b, recv, b)) return;
        blocking(() -> doReduce(send, recv, count, t, op, root));
    }

    @Override
    public CompletableFuture<Void> reduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType t, ReduceOp op, int root) {
        long b = count * t.byteSize();
        if (!checks(count, t, root, 0, "Reduce", send, b, recv, b)) return CompletableFuture.completedFuture(null);
        return async(() -> doReduce(send, recv, count, t, op, root), send, recv);
    }

    @Override
    public void allGather(MemorySegment send, MemorySegment recv, long count, DataType t) {
        long b = count * t.byteSize();
        if (!checks(count, t, 0, 0, "AllGather", send, b, recv, world.size * b)) return;
        blocking(() -> doAllGather(send, recv, count, t));
    }

    @Override
    public CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long count, DataType t) {
        long b = count * t.byteSize();
        if (!checks(count, t, 0, 0, "AllGather", send, b, recv, world.size * b)) {
            return CompletableFuture.completedFuture(null);
        }
        return async(() -> doAllGather(send, recv, count, t), send, recv);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType t, ReduceOp op) {
        long b = recvCount * t.byteSize();
        if (!checks(recvCount, t, 0, 0, "ReduceScatter", send, world.size * b, recv, b)) return;
        blocking(() -> doReduceScatter(send, recv, recvCount, t, op));
    }

    @Override
    public CompletableFuture<Void> reduceScatterAsync(
            MemorySegment send, MemorySegment recv, long recvCount, DataType t, ReduceOp op) {
        long b = recvCount * t.byteSize();
        if (!checks(recvCount, t, 0, 0, "ReduceScatter", send, world.size * b, recv, b)) {
            return CompletableFuture.completedFuture(null);
        }
        return async(() -> doReduceScatter(send, recv, recvCount, t, op), send, recv);
    }

    /**
     * In place (the very same memory) is fine, since every send block is copied first; any other overlap is refused.
     */
    private void checkInPlaceOrDisjoint(MemorySegment send, MemorySegment recv) {
        boolean same = send.address() == recv.address()
                && send.byteSize() == recv.byteSize()
                && send.isNative() == recv.isNative()
                && send.heapBase().equals(recv.heapBase());
        boolean overlap = send.asOverlappingSlice(recv).isPresent();
        check(same || !overlap, "AllToAll: send and recv overlap without being the same memory");
    }

    @Override
    public void allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType t) {
        long b = world.size * countPerPeer * t.byteSize();
        if (!checks(countPerPeer, t, 0, 0, "AllToAll", send, b, recv, b)) return;
        checkInPlaceOrDisjoint(send, recv);
        if (fault(Fault.NO_ARGUMENT_CHECKS)
                && send.asOverlappingSlice(recv).isPresent()
                && send.address() != recv.address()) {
            return;
        }
        blocking(() -> doAllToAll(send, recv, countPerPeer, t));
    }

    @Override
    public CompletableFuture<Void> allToAllAsync(
            MemorySegment send, MemorySegment recv, long countPerPeer, DataType t) {
        long b = world.size * countPerPeer * t.byteSize();
        if (!checks(countPerPeer, t, 0, 0, "AllToAll", send, b, recv, b)) {
            return CompletableFuture.completedFuture(null);
        }
        checkInPlaceOrDisjoint(send, recv);
        return async(() -> doAllToAll(send, recv, countPerPeer, t), send, recv);
    }

    @Override
    public void send(MemorySegment buf, long count, DataType t, int peer) {
        if (!checks(count, t, 0, peer, "Send", buf, count * t.byteSize(), null, 0)) return;
        blocking(() -> doSend(buf, count, t, peer));
    }

    @Override
    public CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType t, int peer) {
        if (!checks(count, t, 0, peer, "Send", buf, count * t.byteSize(), null, 0)) {
            return CompletableFuture.completedFuture(null);
        }
        return async(() -> doSend(buf, count, t, peer), buf);
    }

    @Override
    public void recv(MemorySegment buf, long count, DataType t, int peer) {
        if (!checks(count, t, 0, peer, "Recv", null, 0, buf, count * t.byteSize())) return;
        blocking(() -> doRecv(buf, count, t, peer));
    }

    @Override
    public CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType t, int peer) {
        if (!checks(count, t, 0, peer, "Recv", null, 0, buf, count * t.byteSize())) {
            return CompletableFuture.completedFuture(null);
        }
        return async(() -> doRecv(buf, count, t, peer), buf);
    }

    private boolean sendRecvChecks(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType t) {
        check(send != null && recv != null, "SendRecv: a buffer is null");
        if (send == null || recv == null) return false;
        if (!checks(count, t, 0, sendPeer, "SendRecv", send, count * t.byteSize(), recv, count * t.byteSize())) {
            return false;
        }
        if (!checks(count, t, 0, recvPeer, "SendRecv", null, 0, null, 0)) return false;
        check(
                (sendPeer == rank) == (recvPeer == rank),
                "SendRecv: sendPeer " + sendPeer + " and recvPeer " + recvPeer + " must both be this rank or both not");
        boolean same = send.address() == recv.address()
                && send.isNative() == recv.isNative()
                && send.heapBase().equals(recv.heapBase());
        long bytes = count * t.byteSize();
        boolean overlap = bytes > 0
                && send.asSlice(0, bytes)
                        .asOverlappingSlice(recv.asSlice(0, bytes))
                        .isPresent();
        check(same || !overlap, "SendRecv: send and recv overlap without being the same memory");
        return (sendPeer == rank) == (recvPeer == rank) && (same || !overlap);
    }

    @Override
    public void sendRecv(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType t) {
        if (!sendRecvChecks(send, sendPeer, recv, recvPeer, count, t)) return;
        blocking(() -> doSendRecv(send, sendPeer, recv, recvPeer, count, t));
    }

    @Override
    public CompletableFuture<Void> sendRecvAsync(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType t) {
        if (!sendRecvChecks(send, sendPeer, recv, recvPeer, count, t)) return CompletableFuture.completedFuture(null);
        return async(() -> doSendRecv(send, sendPeer, recv, recvPeer, count, t), send, recv);
    }

    @Override
    public void barrier() {
        blocking(this::doBarrier);
    }

    @Override
    public CompletableFuture<Void> barrierAsync() {
        return async(this::doBarrier);
    }

    private record SplitRequest(int color, int key, int rank) {}

    @Override
    public Communicator split(int color, int key) {
        int generation = splits++;
        Object[][] holder = new Object[1][];
        blocking(() -> holder[0] = exchange(new SplitRequest(color, key, rank)));
        Object[] all = holder[0];
        if (color < 0) return null;
        List<SplitRequest> members = new ArrayList<>();
        for (Object o : all) {
            if (((SplitRequest) o).color() == color) members.add((SplitRequest) o);
        }
        Comparator<SplitRequest> order = fault(Fault.SPLIT_IGNORES_KEY)
                ? Comparator.comparingInt(SplitRequest::rank)
                : Comparator.comparingInt(SplitRequest::key).thenComparingInt(SplitRequest::rank);
        members.sort(order);
        int myRank = -1;
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).rank() == rank) myRank = i;
        }
        World child =
                world.children.computeIfAbsent(generation + ":" + color, k -> new World(members.size(), world.fault));
        return new InMemoryCommunicator(child, myRank);
    }

    @Override
    public void abort() {
        aborted = true;
        world.aborted = true;
        world.barrier.reset();
    }

    @Override
    public void close() {
        try {
            tail.get(60, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // closing regardless
        }
        progress.shutdownNow();
        delayer.shutdownNow();
    }

    @Override
    public String toString() {
        return "InMemoryCommunicator[rank " + rank + " of " + world.size + ", fault " + world.fault + "]";
    }
}
