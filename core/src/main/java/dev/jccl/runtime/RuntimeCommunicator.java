package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.plan.Collective;
import dev.jccl.transport.Transport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The communicator. Every call takes one path: {@link OperationChecks} builds and checks an {@link Operation}, the
 * {@link Dispatcher} takes its turn from the {@link Sequencer} and hands it to the executor for its memory:
 * {@link HostExecutor} for host memory, the attached {@link DeviceExecutor} for device memory. {@link CommunicatorInit}
 * makes communicators and splits them; {@link Lifecycle} says whether operations may still run.
 */
public final class RuntimeCommunicator implements Communicator {
    private final CommunicatorInit.Setup setup;
    private final int rank;
    private final Log log;
    private final Transport transport;
    private final Lifecycle lifecycle;
    private final Sequencer sequencer;
    private final OperationChecks checks;
    private final HostExecutor host;
    private final Dispatcher operations;
    private final FailureAgreement agreement;
    private final Shrink shrink;
    private int splitCount;

    /**
     * The byte a barrier reduces. Native, like the buffers of the operations around it: a heap array here would show
     * the JIT a second kind of segment in every method a barrier shares with them, and make it recompile those
     * (measured: a burst of deoptimisations at the first timed loop of a benchmark). Operations never run at the same
     * time, so one token serves them all.
     */
    private final MemorySegment barrierToken = Arena.ofAuto().allocate(1);

    RuntimeCommunicator(CommunicatorInit.Setup s) {
        this.setup = s;
        this.rank = s.rank();
        this.log = s.log();
        this.transport = s.wiring().transport();
        this.lifecycle = new Lifecycle(rank);
        this.sequencer = new Sequencer(rank, s.size(), s.config().timeout());
        this.checks = new OperationChecks(rank, s.size());
        this.agreement =
                new FailureAgreement(rank, s.peers(), s.control(), s.config().timeout());
        this.host = new HostExecutor(s, new Failures(rank, s.peers()), sequencer, lifecycle, agreement);
        this.shrink = new Shrink(s, lifecycle, agreement);
        this.operations = new Dispatcher(rank, s.size(), lifecycle, sequencer, checks, host);
        if (s.config().traceBuffer() > 0) TraceSignal.register(host);
    }

    public static Communicator create(int rank, int size, UniqueId id, Config config) {
        return CommunicatorInit.create(rank, size, id, config);
    }

    /**
     * From now on this communicator also runs operations on the memory {@code executor} claims, in the same order as
     * its host operations. Once per communicator; the executor is closed with it.
     */
    public void attach(DeviceExecutor executor) {
        operations.attach(executor);
    }

    // ---------------------------------------------------------------- the API

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return setup.size();
    }

    @Override
    public Config config() {
        return setup.config();
    }

    /** What the bootstrap said of rank {@code r}; for tests that aim at a peer's data port. */
    PeerInfo peer(int r) {
        return setup.peers().get(r);
    }

    /** The communicator id that data hellos carry. */
    long commId() {
        return setup.commId();
    }

    @Override
    public void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        operations.run(checks.allReduce(send, recv, count, type, op));
    }

    @Override
    public CompletableFuture<Void> allReduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        return operations.runAsync(checks.allReduce(send, recv, count, type, op), send, recv);
    }

    @Override
    public void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        operations.run(checks.broadcast(send, recv, count, type, root));
    }

    @Override
    public CompletableFuture<Void> broadcastAsync(
            MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        return operations.runAsync(checks.broadcast(send, recv, count, type, root), send, recv);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        operations.run(checks.reduce(send, recv, count, type, op, root));
    }

    @Override
    public CompletableFuture<Void> reduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        return operations.runAsync(checks.reduce(send, recv, count, type, op, root), send, recv);
    }

    @Override
    public void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        operations.run(checks.allGather(send, recv, sendCount, type));
    }

    @Override
    public CompletableFuture<Void> allGatherAsync(
            MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        return operations.runAsync(checks.allGather(send, recv, sendCount, type), send, recv);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        operations.run(checks.reduceScatter(send, recv, recvCount, type, op));
    }

    @Override
    public CompletableFuture<Void> reduceScatterAsync(
            MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        return operations.runAsync(checks.reduceScatter(send, recv, recvCount, type, op), send, recv);
    }

    @Override
    public void allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        operations.run(checks.allToAll(send, recv, countPerPeer, type));
    }

    @Override
    public CompletableFuture<Void> allToAllAsync(
            MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        return operations.runAsync(checks.allToAll(send, recv, countPerPeer, type), send, recv);
    }

    @Override
    public void send(MemorySegment buf, long count, DataType type, int peer) {
        operations.run(checks.send(buf, count, type, peer));
    }

    @Override
    public CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer) {
        return operations.runAsync(checks.send(buf, count, type, peer), buf, null);
    }

    @Override
    public void recv(MemorySegment buf, long count, DataType type, int peer) {
        operations.run(checks.recv(buf, count, type, peer));
    }

    @Override
    public CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer) {
        return operations.runAsync(checks.recv(buf, count, type, peer), null, buf);
    }

    @Override
    public void sendRecv(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        operations.run(checks.sendRecv(send, sendPeer, recv, recvPeer, count, type));
    }

    @Override
    public CompletableFuture<Void> sendRecvAsync(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        return operations.runAsync(checks.sendRecv(send, sendPeer, recv, recvPeer, count, type), send, recv);
    }

    @Override
    public void barrier() {
        // A one-byte AllReduce: every rank must contribute before any returns.
        allReduce(barrierToken, barrierToken, 1, DataType.UINT8, ReduceOp.MAX);
    }

    @Override
    public CompletableFuture<Void> barrierAsync() {
        return allReduceAsync(barrierToken, barrierToken, 1, DataType.UINT8, ReduceOp.MAX);
    }

    @Override
    public Communicator split(int color, int key) {
        lifecycle.checkUsable("split");
        int splitIndex;
        synchronized (sequencer) {
            splitIndex = splitCount++;
        }
        return Regroup.split(setup, splitIndex, color, key);
    }

    @Override
    public Communicator shrink() {
        return shrink.shrink();
    }

    /** Shrinks without the ranks in {@code excluded} instead of the verdict's culprits (tests). */
    Communicator shrinkExcluding(Set<Integer> excluded) {
        return shrink.excluding(excluded);
    }

    /**
     * How this communicator would run {@code collective} on {@code count} elements of {@code type}:
     * {@code Ring/Simple}, {@code OneShot/LL}…
     */
    public String algorithmFor(Collective collective, long count, DataType type) {
        return host.algorithmFor(collective, count, type);
    }

    /**
     * The transports between this communicator's ranks, for tools and reports: {@code shm}, {@code tcp},
     * {@code shm+tcp}, or {@code local}.
     */
    public String transportSummary() {
        return setup.wiring().summary();
    }

    @Override
    public java.nio.file.Path dumpTrace(java.nio.file.Path file) throws java.io.IOException {
        return host.dumpTrace(file);
    }

    @Override
    public void abort() {
        if (!lifecycle.abort()) return;
        log.warn(Log.Subsys.INIT, "communicator aborted");
        DeviceExecutor d = operations.device();
        if (d != null) d.abort();
        // No abandon frames here: abort may come from another thread while the operation's thread is
        // half way through writing a frame. Shared memory says ABORTED; sockets just close.
        setup.wiring().markAborted();
        transport.close();
        if (sequencer.last().isDone()) host.freeScratch();
    }

    /** Waits, within the deadline, until every operation called so far has started (and host ones have finished). */
    public void awaitStarted() {
        if (lifecycle.failed() || lifecycle.aborted()) return;
        try {
            sequencer.last().get(setup.config().timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the operation's own caller has its error; closing goes on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (lifecycle.closed()) return;
        awaitStarted();
        DeviceExecutor d = operations.device();
        if (d != null) d.close();
        if (!lifecycle.close()) return;
        if (!lifecycle.failed() && !lifecycle.aborted()) {
            try {
                transport.finishDelivery(
                        System.nanoTime() + setup.config().timeout().toNanos());
            } catch (RuntimeException e) {
                // An abort from another thread closes the transport under the delivery it cuts short: shared memory
                // unmapped mid-read is the JDK's IllegalStateException "Already closed" (AbortTest's race saw it once
                // in a full run). That is what the abort is for, not a failure of close.
                if (!lifecycle.aborted()) throw e;
            }
        }
        transport.close();
        sequencer.close();
        if (lifecycle.failed()) agreement.lingerForAskers();
        if (setup.control() != null) setup.control().close();
        host.freeScratch();
        TraceSignal.unregister(host);
        log.info(
                Log.Subsys.INIT,
                String.format("comm 0x%016x rank %d nRanks %d - Destroy COMPLETE", setup.commId(), rank, setup.size()));
    }
}
