package dev.jccl.cuda;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.concurrent.IdleStrategy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;

/**
 * Collectives on GPU memory: the same operations, rules and errors as {@link Communicator}, on
 * {@link DeviceBuffer}s. Made over an existing host communicator, collectively (every rank calls
 * {@link #create} together), it takes one of two paths, the same on every rank:
 * <ul>
 *   <li>{@link DevicePath#NCCL}: NCCL itself, found at run time (libnccl.so.2, or the file
 *       {@code JCCL_NCCL_LIB} names), when every rank can load it and each rank has its own GPU.
 *       The NCCL communicator is set up through Jccl's bootstrap; Jccl's deadlines and error
 *       messages apply.</li>
 *   <li>{@link DevicePath#STAGED}: otherwise, or when {@code JCCL_CUDA_PATH=staged}. Chunks are
 *       copied to pinned host memory, combined by the host communicator, and copied back, pipelined
 *       so copies in both directions overlap the network ({@link StagedCollectives}).</li>
 * </ul>
 * {@link #path()} and {@link #describePath()} say which, and why.
 *
 * <h2>Threads, streams and memory</h2>
 * Operations run in call order on the communicator's worker thread, on streams of its own:
 * device buffers must hold their data when the call is made (synchronize the stream that wrote
 * them first), and hold the result once the call returns or its future completes. The caller must
 * not touch an async call's buffers until its future completes. Device buffers are the caller's:
 * nothing here frees them.
 *
 * <p>The staged path runs host collectives on the host communicator; while a device operation is
 * pending, do not call host collectives on that communicator from other threads (their order
 * would differ between ranks). A failure (a CUDA error, a lost peer, a deadline) fails this
 * communicator for good and aborts the host communicator (staged) or the NCCL communicator, so
 * that peers fail at once instead of at their deadline; later calls are refused. Close it and make
 * a new one.
 */
public final class DeviceCommunicator implements AutoCloseable {
    /** Operations queued on NCCL's stream at once before the worker waits for the oldest. */
    private static final int MAX_IN_FLIGHT = 256;

    /**
     * Settings.
     *
     * @param path        what to use ({@code JCCL_CUDA_PATH}: auto, staged or nccl)
     * @param chunkBytes  staging slot size (default {@code JCCL_BUFFSIZE}); every rank must use the same
     * @param slots       staging slots in flight, at least 2 (default 4)
     * @param listener    told of every staged chunk's phases (tests, tracing)
     * @param environment where {@code JCCL_NCCL_LIB} is read
     */
    public record Options(DevicePath.Request path, long chunkBytes, int slots, StagingListener listener, Map<String, String> environment) {
        public static final int DEFAULT_SLOTS = 4;

        public Options {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(listener, "listener");
            environment = Map.copyOf(environment);
            if (chunkBytes < 16) throw new IllegalArgumentException("staging chunk must be at least 16 bytes, got " + chunkBytes);
            if (slots < 2) throw new IllegalArgumentException("staging needs at least 2 slots, got " + slots);
        }

        /** From {@code JCCL_CUDA_PATH} in {@code env}, and {@code JCCL_BUFFSIZE} through {@code config}. */
        public static Options fromEnvironment(Map<String, String> env, Config config) {
            return new Options(DevicePath.Request.parse(env.get(DevicePath.VARIABLE)), config.buffSize(), DEFAULT_SLOTS, StagingListener.NONE, env);
        }

        public Options withPath(DevicePath.Request p) {
            return new Options(p, chunkBytes, slots, listener, environment);
        }

        public Options withChunkBytes(long bytes) {
            return new Options(path, bytes, slots, listener, environment);
        }

        public Options withSlots(int n) {
            return new Options(path, chunkBytes, n, listener, environment);
        }

        public Options withListener(StagingListener l) {
            return new Options(path, chunkBytes, slots, l, environment);
        }
    }

    private final Communicator host;
    private final DeviceMemory memory;
    private final boolean ownsMemory;
    private final int rank;
    private final int size;
    private final Duration timeout;
    private final DevicePath path;
    private final String pathReason;
    private final StagedCollectives staged;
    private final NcclApi ncclApi;
    private volatile NcclCommunicator nccl;
    private final LinkedBlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private final Object issueLock = new Object();
    private long sequence;
    private volatile JcclException failure;
    private volatile boolean abortRequested;
    private volatile boolean closed;
    /** When the worker entered the operation it is issuing (0: not issuing), and which, for the watchdog. */
    private volatile long issuingSince;
    private volatile String issuingLabel;
    private volatile JcclException watchdogFailure;

    @FunctionalInterface
    private interface Work {
        /** Runs (staged: to completion, returning null) or queues (NCCL: returning what to poll). */
        NcclCommunicator.Pending run(String label);
    }

    private record Op(String label, Work work, CompletableFuture<Void> future) {}

    private record InFlight(NcclCommunicator.Pending pending, CompletableFuture<Void> future, String label) {}

    private static final Op STOP = new Op("stop", l -> null, new CompletableFuture<>());

    private DeviceCommunicator(Communicator host, DeviceMemory memory, boolean ownsMemory, Options options, PathSelection.Choice choice) {
        this.host = host;
        this.memory = memory;
        this.ownsMemory = ownsMemory;
        this.rank = host.rank();
        this.size = host.size();
        this.timeout = host.config().timeout();
        this.path = choice.path();
        this.pathReason = choice.reason();
        this.ncclApi = choice.nccl();
        this.staged = path == DevicePath.STAGED
                ? new StagedCollectives(host, memory, options.chunkBytes(), options.slots(), timeout, options.listener()) : null;
        this.worker = Thread.ofPlatform().daemon().name("jccl-device-rank" + rank).start(this::work);
    }

    /** {@link #create(Communicator, DeviceMemory, Options)} with settings from the process environment. */
    public static DeviceCommunicator create(Communicator host, DeviceMemory memory) {
        return create(host, memory, Options.fromEnvironment(System.getenv(), host.config()));
    }

    /**
     * Collective: every rank of {@code host} calls it, each with the memory of its own device (or a
     * device it shares). Chooses the path (see the class comment), sets NCCL up where it is chosen,
     * and fails on every rank alike when {@code JCCL_CUDA_PATH=nccl} cannot be honoured. Neither
     * {@code host} nor {@code memory} is owned: close them after this.
     */
    public static DeviceCommunicator create(Communicator host, DeviceMemory memory, Options options) {
        return create(host, memory, false, options, realNccl(memory, options));
    }

    /** Opens CUDA device {@code device} ({@link CudaDeviceMemory}, closed with this communicator) and creates over it. */
    public static DeviceCommunicator cuda(Communicator host, int device) {
        CudaDeviceMemory memory = CudaDeviceMemory.open(device);
        try {
            Options options = Options.fromEnvironment(System.getenv(), host.config());
            return create(host, memory, true, options, realNccl(memory, options));
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /** As {@link #create(Communicator, DeviceMemory, Options)}, with the NCCL library given (tests put a stand-in here). */
    static DeviceCommunicator create(Communicator host, DeviceMemory memory, boolean ownsMemory, Options options, Supplier<NcclApi> loadNccl) {
        PathSelection.Choice choice = PathSelection.choose(host, memory, options.path(), loadNccl);
        DeviceCommunicator dc = new DeviceCommunicator(host, memory, ownsMemory, options, choice);
        if (choice.path() == DevicePath.NCCL) {
            Thread.ofPlatform().daemon().name("jccl-nccl-watchdog-rank" + dc.rank).start(dc::watch);
            CompletableFuture<Void> setUp = new CompletableFuture<>();
            dc.queue.add(new Op("NCCL set-up", label -> {
                dc.nccl = NcclCommunicator.create(choice.nccl(), host, memory, dc.timeout);
                return null;
            }, setUp));
            try {
                setUp.join();
            } catch (CompletionException e) {
                dc.close();
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        return dc;
    }

    /** The real NCCL, for real GPU memory only: NCCL cannot reach a stand-in's host memory. */
    private static Supplier<NcclApi> realNccl(DeviceMemory memory, Options options) {
        return () -> {
            if (!memory.isCuda()) throw new NcclUnavailableException(memory.describe() + " is not CUDA memory, and NCCL needs a GPU");
            return NcclLibrary.load(options.environment());
        };
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /** The device ordinal this rank works on. */
    public int device() {
        return memory.device();
    }

    /** The host communicator underneath. */
    public Communicator host() {
        return host;
    }

    public DeviceMemory memory() {
        return memory;
    }

    public DevicePath path() {
        return path;
    }

    /**
     * The path and why, in one line: {@code nccl: NCCL 2.21.5 (libnccl.so.2), a GPU per rank} or
     * {@code staged through pinned host memory (4 slots of 4 MiB); NCCL not used: <reason>}.
     */
    public String describePath() {
        if (path == DevicePath.NCCL) {
            NcclCommunicator n = nccl;
            return "nccl: " + (n != null ? n.describe() : "NCCL " + NcclTypes.version(ncclApi.version()) + " (" + ncclApi.library() + ")")
                    + ", a GPU per rank";
        }
        return "staged through pinned host memory (" + staged.slotCount() + " slots of " + bytes(staged.slotBytes()) + "); NCCL not used: " + pathReason;
    }

    private static String bytes(long b) {
        if (b >= (1 << 20) && b % (1 << 20) == 0) return (b >> 20) + " MiB";
        if (b >= 1024 && b % 1024 == 0) return (b >> 10) + " KiB";
        return b + " B";
    }

    // ---------------------------------------------------------------- AllReduce

    /** Element-wise reduction of every rank's {@code send} into every rank's {@code recv}. */
    public void allReduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op) {
        await(allReduceAsync(send, recv, count, type, op));
    }

    public CompletableFuture<Void> allReduceAsync(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op) {
        DeviceArgumentChecks c = checks("AllReduce");
        c.count(count, "count");
        c.type(type);
        c.op(op);
        long bytes = c.bytes(count, 1, type);
        c.buffer(send, bytes, "send", count + " × " + type);
        c.buffer(recv, bytes, "recv", count + " × " + type);
        c.inPlaceOrDisjoint(send, bytes, recv, bytes, send.address() == recv.address());
        ncclTypes(c, type, op);
        return submit("AllReduce", label -> path == DevicePath.NCCL ? nccl.allReduce(send, recv, count, type, op, label)
                : staged(new StagedOp.AllReduce(send, recv, count, type, op, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- Broadcast

    /** Copies {@code root}'s {@code send} into every rank's {@code recv} ({@code send} is read only at the root; null elsewhere is fine). */
    public void broadcast(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root) {
        await(broadcastAsync(send, recv, count, type, root));
    }

    public CompletableFuture<Void> broadcastAsync(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root) {
        DeviceArgumentChecks c = checks("Broadcast");
        c.count(count, "count");
        c.type(type);
        c.rankInRange(root, size, "root");
        long bytes = c.bytes(count, 1, type);
        if (send != null || rank == root) c.buffer(send, bytes, "send", count + " × " + type);
        c.buffer(recv, bytes, "recv", count + " × " + type);
        c.inPlaceOrDisjoint(send, bytes, recv, bytes, send != null && send.address() == recv.address());
        ncclTypes(c, type, null);
        return submit("Broadcast", label -> path == DevicePath.NCCL ? nccl.broadcast(send, recv, count, type, root, label)
                : staged(new StagedOp.Broadcast(send, recv, count, type, root, rank, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- Reduce

    /** Reduction of every rank's {@code send} into {@code root}'s {@code recv} (other ranks' {@code recv} is not touched and may be null). */
    public void reduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, int root) {
        await(reduceAsync(send, recv, count, type, op, root));
    }

    public CompletableFuture<Void> reduceAsync(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, int root) {
        DeviceArgumentChecks c = checks("Reduce");
        c.count(count, "count");
        c.type(type);
        c.op(op);
        c.rankInRange(root, size, "root");
        long bytes = c.bytes(count, 1, type);
        c.buffer(send, bytes, "send", count + " × " + type);
        if (recv != null || rank == root) c.buffer(recv, bytes, "recv", count + " × " + type);
        c.inPlaceOrDisjoint(send, bytes, recv, bytes, recv != null && send.address() == recv.address());
        ncclTypes(c, type, op);
        return submit("Reduce", label -> path == DevicePath.NCCL ? nccl.reduce(send, recv, count, type, op, root, label)
                : staged(new StagedOp.Reduce(send, recv, count, type, op, root, rank, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- AllGather

    /** Rank {@code i}'s {@code sendCount} elements land in block {@code i} of every rank's {@code recv}. */
    public void allGather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type) {
        await(allGatherAsync(send, recv, sendCount, type));
    }

    public CompletableFuture<Void> allGatherAsync(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type) {
        DeviceArgumentChecks c = checks("AllGather");
        c.count(sendCount, "sendCount");
        c.type(type);
        long block = c.bytes(sendCount, 1, type);
        long total = c.bytes(sendCount, size, type);
        c.buffer(send, block, "send", sendCount + " × " + type);
        c.buffer(recv, total, "recv", size + " ranks × " + sendCount + " × " + type);
        c.inPlaceOrDisjoint(send, block, recv, total, send.address() == recv.address() + rank * block);
        ncclTypes(c, type, null);
        return submit("AllGather", label -> path == DevicePath.NCCL ? nccl.allGather(send, recv, sendCount, type, label)
                : staged(new StagedOp.AllGather(send, recv, sendCount, type, rank, size, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- ReduceScatter

    /** Reduces every rank's {@code send} and leaves block {@code rank()} of the result in {@code recv}. */
    public void reduceScatter(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, ReduceOp op) {
        await(reduceScatterAsync(send, recv, recvCount, type, op));
    }

    public CompletableFuture<Void> reduceScatterAsync(DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, ReduceOp op) {
        DeviceArgumentChecks c = checks("ReduceScatter");
        c.count(recvCount, "recvCount");
        c.type(type);
        c.op(op);
        long block = c.bytes(recvCount, 1, type);
        long total = c.bytes(recvCount, size, type);
        c.buffer(send, total, "send", size + " ranks × " + recvCount + " × " + type);
        c.buffer(recv, block, "recv", recvCount + " × " + type);
        c.inPlaceOrDisjoint(send, total, recv, block, recv.address() == send.address() + rank * block);
        ncclTypes(c, type, op);
        return submit("ReduceScatter", label -> path == DevicePath.NCCL ? nccl.reduceScatter(send, recv, recvCount, type, op, label)
                : staged(new StagedOp.ReduceScatter(send, recv, recvCount, type, op, rank, size, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- AllToAll

    /** Block {@code j} of this rank's {@code send} lands in block {@code rank()} of rank {@code j}'s {@code recv}. */
    public void allToAll(DeviceBuffer send, DeviceBuffer recv, long countPerPeer, DataType type) {
        await(allToAllAsync(send, recv, countPerPeer, type));
    }

    public CompletableFuture<Void> allToAllAsync(DeviceBuffer send, DeviceBuffer recv, long countPerPeer, DataType type) {
        DeviceArgumentChecks c = checks("AllToAll");
        c.count(countPerPeer, "countPerPeer");
        c.type(type);
        long total = c.bytes(countPerPeer, size, type);
        c.buffer(send, total, "send", size + " ranks × " + countPerPeer + " × " + type);
        c.buffer(recv, total, "recv", size + " ranks × " + countPerPeer + " × " + type);
        c.inPlaceOrDisjoint(send, total, recv, total, send.address() == recv.address());
        ncclTypes(c, type, null);
        return submit("AllToAll", label -> path == DevicePath.NCCL ? nccl.allToAll(send, recv, countPerPeer, type, label)
                : staged(new StagedOp.AllToAll(send, recv, countPerPeer, type, size, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- point to point

    /** Sends {@code count} elements to {@code peer}, which must post a matching {@link #recv}. */
    public void send(DeviceBuffer buf, long count, DataType type, int peer) {
        await(sendAsync(buf, count, type, peer));
    }

    public CompletableFuture<Void> sendAsync(DeviceBuffer buf, long count, DataType type, int peer) {
        DeviceArgumentChecks c = checks("Send");
        c.count(count, "count");
        c.type(type);
        c.rankInRange(peer, size, "peer");
        c.notSelf(peer);
        c.buffer(buf, c.bytes(count, 1, type), "send", count + " × " + type);
        ncclTypes(c, type, null);
        return submit("Send", label -> path == DevicePath.NCCL ? nccl.send(buf, count, type, peer, label)
                : staged(new StagedOp.Send(buf, count, type, peer, staged.slotBytes()), label));
    }

    /** Receives {@code count} elements from {@code peer}. */
    public void recv(DeviceBuffer buf, long count, DataType type, int peer) {
        await(recvAsync(buf, count, type, peer));
    }

    public CompletableFuture<Void> recvAsync(DeviceBuffer buf, long count, DataType type, int peer) {
        DeviceArgumentChecks c = checks("Recv");
        c.count(count, "count");
        c.type(type);
        c.rankInRange(peer, size, "peer");
        c.notSelf(peer);
        c.buffer(buf, c.bytes(count, 1, type), "recv", count + " × " + type);
        ncclTypes(c, type, null);
        return submit("Recv", label -> path == DevicePath.NCCL ? nccl.recv(buf, count, type, peer, label)
                : staged(new StagedOp.Recv(buf, count, type, peer, staged.slotBytes()), label));
    }

    /**
     * Sends {@code count} elements of {@code send} to {@code sendPeer} while receiving as many from
     * {@code recvPeer} into {@code recv}; both halves progress together (see
     * {@link Communicator#sendRecv}).
     */
    public void sendRecv(DeviceBuffer send, int sendPeer, DeviceBuffer recv, int recvPeer, long count, DataType type) {
        await(sendRecvAsync(send, sendPeer, recv, recvPeer, count, type));
    }

    public CompletableFuture<Void> sendRecvAsync(DeviceBuffer send, int sendPeer, DeviceBuffer recv, int recvPeer, long count, DataType type) {
        DeviceArgumentChecks c = checks("SendRecv");
        c.count(count, "count");
        c.type(type);
        c.rankInRange(sendPeer, size, "sendPeer");
        c.rankInRange(recvPeer, size, "recvPeer");
        c.selfBothWaysOrNeither(sendPeer, recvPeer);
        long bytes = c.bytes(count, 1, type);
        c.buffer(send, bytes, "send", count + " × " + type);
        c.buffer(recv, bytes, "recv", count + " × " + type);
        c.inPlaceOrDisjoint(send, bytes, recv, bytes, send.address() == recv.address());
        ncclTypes(c, type, null);
        return submit("SendRecv", label -> path == DevicePath.NCCL ? nccl.sendRecv(send, sendPeer, recv, recvPeer, count, type, label)
                : staged(new StagedOp.SendRecv(send, sendPeer, recv, recvPeer, count, type, staged.slotBytes()), label));
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Fails this rank's pending and future device operations at once and aborts the NCCL
     * communicator (if any) and the host communicator, so that peers fail too. Any thread, any
     * number of times.
     */
    public void abort() {
        if (failure == null) failure = new JcclException("rank " + rank + ": the device communicator was aborted");
        abortRequested = true;
        NcclCommunicator n = nccl;
        if (n != null) n.abort();
        host.abort();
        worker.interrupt();
    }

    /**
     * Waits for queued operations (each within its deadline), then releases streams, staging
     * memory and the NCCL communicator; closes the device memory if {@link #cuda} opened it. The
     * host communicator stays open.
     */
    @Override
    public void close() {
        synchronized (issueLock) {
            if (closed) return;
            closed = true;
            queue.add(STOP);
        }
        try {
            worker.join(timeout.toMillis() * 2 + 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownsMemory && !worker.isAlive()) memory.close();
    }

    // ---------------------------------------------------------------- machinery

    private DeviceArgumentChecks checks(String collective) {
        checkUsable(collective);
        return new DeviceArgumentChecks(collective, rank, memory.device());
    }

    private void checkUsable(String what) {
        if (closed) throw new JcclException("rank " + rank + ": " + what + " on a closed device communicator");
        JcclException f = failure;
        if (f != null) throw refusal(what, f);
    }

    private JcclException refusal(String what, JcclException f) {
        return new JcclException("rank " + rank + ": " + what + " refused: this device communicator failed earlier (" + f.getMessage()
                + "). Close it and create a new one.", f);
    }

    /** NCCL's enums for a call, checked before queuing: an NCCL too old for the type or op is a bad argument, not a failure. */
    private void ncclTypes(DeviceArgumentChecks c, DataType type, ReduceOp op) {
        if (path != DevicePath.NCCL) return;
        int version = ncclApi.version();
        try {
            NcclTypes.dataType(type, version);
            if (op != null) NcclTypes.redOp(op, version);
        } catch (IllegalArgumentException e) {
            throw c.bad(e.getMessage());
        }
    }

    private NcclCommunicator.Pending staged(StagedOp op, String label) {
        staged.run(op, label);
        return null;
    }

    private CompletableFuture<Void> submit(String collective, Work work) {
        synchronized (issueLock) {
            checkUsable(collective);
            CompletableFuture<Void> f = new CompletableFuture<>();
            queue.add(new Op(collective + " #" + (++sequence), work, f));
            return f;
        }
    }

    private static void await(CompletableFuture<Void> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw e;
        }
    }

    /** The worker: issues operations in order; NCCL ones are polled while later ones are issued. */
    private void work() {
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
        IdleStrategy idle = Idle.strategy();
        boolean stopping = false;
        try {
            memory.bindThread();
        } catch (RuntimeException e) {
            fail(e instanceof JcclException j ? j : new JcclException("rank " + rank + ": cannot use " + memory.describe() + ": " + e.getMessage(), e));
        }
        while (true) {
            boolean moved = false;
            if (abortRequested) failAll(inFlight);
            if (!stopping && inFlight.size() < MAX_IN_FLIGHT) {
                Op op;
                try {
                    op = inFlight.isEmpty() ? queue.take() : queue.poll();
                } catch (InterruptedException e) {
                    op = null; // abort() wakes the worker; the loop sees abortRequested
                }
                if (op == STOP) {
                    stopping = true;
                    moved = true;
                } else if (op != null) {
                    issue(op, inFlight);
                    moved = true;
                }
            }
            while (!inFlight.isEmpty()) {
                InFlight head = inFlight.peekFirst();
                try {
                    if (!nccl.poll(head.pending())) break;
                    inFlight.removeFirst();
                    head.future().complete(null);
                } catch (RuntimeException e) {
                    inFlight.removeFirst();
                    fail(asJccl(e));
                    head.future().completeExceptionally(e);
                    failAll(inFlight);
                }
                moved = true;
            }
            if (stopping && inFlight.isEmpty()) {
                shutDown();
                return;
            }
            if (moved) idle.reset();
            else if (!inFlight.isEmpty()) idle.idleOrPark(Idle.MAX_PARK_NANOS);
        }
    }

    private void issue(Op op, ArrayDeque<InFlight> inFlight) {
        JcclException f = failure;
        if (f != null) {
            op.future().completeExceptionally(refusal(op.label(), f));
            return;
        }
        try {
            issuingLabel = op.label();
            issuingSince = System.nanoTime();
            NcclCommunicator.Pending p = op.work().run(op.label());
            issuingSince = 0;
            if (p == null) op.future().complete(null);
            else inFlight.addLast(new InFlight(p, op.future(), op.label()));
        } catch (RuntimeException e) {
            issuingSince = 0;
            // Where the watchdog aborted a call that did not return, its timeout is what happened.
            JcclException w = watchdogFailure;
            fail(w != null ? w : asJccl(e));
            op.future().completeExceptionally(w != null ? w : e);
        } catch (Error e) {
            issuingSince = 0;
            fail(new JcclException("rank " + rank + ": " + op.label() + " failed: " + e, e));
            op.future().completeExceptionally(e);
        }
    }

    /**
     * NCCL calls can block inside NCCL (connecting to a peer that never comes, in ncclGroupEnd or a
     * first collective) where no poll can keep the deadline: past it, this thread aborts the NCCL
     * communicator from outside, which makes the stuck call return, as NCCL documents for
     * ncclCommAbort.
     */
    private void watch() {
        long timeoutNanos = timeout.toNanos();
        while (!closed && !abortRequested) {
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(timeoutNanos / 4 + 1, 100_000_000L));
            long since = issuingSince;
            NcclCommunicator n = nccl;
            if (since != 0 && n != null && System.nanoTime() - since > timeoutNanos && watchdogFailure == null) {
                JcclException e = new dev.jccl.JcclTimeoutException("rank " + rank + ": " + issuingLabel + " on device buffers (NCCL): the NCCL call did not return "
                        + "within " + timeoutNanos / 1_000_000 / 1000.0 + " s (JCCL_TIMEOUT): a peer did not take part or cannot be reached; the NCCL "
                        + "communicator was aborted (ncclCommAbort)");
                watchdogFailure = e;
                fail(e);
                n.abort();
                return;
            }
        }
    }

    private void failAll(ArrayDeque<InFlight> inFlight) {
        JcclException f = failure;
        for (InFlight x : inFlight) x.future().completeExceptionally(refusal(x.label(), f));
        inFlight.clear();
        for (Op op; (op = queue.peek()) != null && op != STOP; ) {
            queue.poll();
            op.future().completeExceptionally(refusal(op.label(), f));
        }
    }

    private void fail(JcclException e) {
        if (failure == null) failure = e;
    }

    private JcclException asJccl(RuntimeException e) {
        return e instanceof JcclException j ? j : new JcclException("rank " + rank + ": " + e.getMessage(), e);
    }

    private void shutDown() {
        for (Op op; (op = queue.poll()) != null; ) {
            if (op != STOP) op.future().completeExceptionally(new JcclException("rank " + rank + ": " + op.label() + " not run: the device communicator was closed"));
        }
        try {
            NcclCommunicator n = nccl;
            if (n != null) n.close();
        } catch (RuntimeException e) {
            // closing goes on: the memory below is still ours to free
        }
        if (staged != null) {
            try {
                staged.close();
            } catch (RuntimeException e) {
                // as above
            }
        }
    }
}
