package dev.jccl.cuda;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.concurrent.IdleStrategy;
import dev.jccl.runtime.ArgumentChecks;
import dev.jccl.runtime.HostPath;
import dev.jccl.runtime.Operation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs device operations with NCCL: {@link #start} queues the operation on NCCL's stream and returns, so that the
 * communicator's next operation may start while the GPU works; a poller thread completes each operation's future when
 * its event fires, in order, and keeps the deadlines. NCCL calls can also block inside NCCL (connecting to a peer that
 * never comes) where no poll can keep the deadline: past it, the poller aborts the NCCL communicator from outside,
 * which makes the stuck call return, as NCCL documents for {@code ncclCommAbort}.
 */
final class NcclExecutor extends CudaExecutor {
    /** Operations queued on NCCL's stream at once before {@link #start} waits for the oldest. */
    static final int MAX_IN_FLIGHT = 256;

    private record InFlight(NcclCommunicator.Pending pending, CompletableFuture<Void> done, String label) {}

    private final NcclCommunicator nccl;
    private final long timeoutNanos;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final Thread poller;
    /** When a thread entered the NCCL call it is making (0: none), and which, for the deadline. */
    private volatile long issuingSince;

    private volatile String issuingLabel;
    private volatile JcclException failure;
    private volatile boolean stopping;

    NcclExecutor(DeviceMemory memory, boolean ownsMemory, int rank, NcclCommunicator nccl, Duration timeout) {
        super(memory, ownsMemory, rank);
        this.nccl = nccl;
        this.timeoutNanos = timeout.toNanos();
        this.poller = Thread.ofPlatform().daemon().name("jccl-nccl-rank" + rank).start(this::poll);
    }

    /**
     * NCCL's enums for a call, checked before it is sequenced: an NCCL too old for the type or op is a bad argument,
     * not a failure.
     */
    @Override
    public void check(Operation op, ArgumentChecks check) {
        super.check(op, check);
        try {
            NcclTypes.dataType(op.type(), nccl.version());
            if (op.op() != null) NcclTypes.redOp(op.op(), nccl.version());
        } catch (IllegalArgumentException e) {
            throw check.bad(e.getMessage());
        }
    }

    @Override
    public CompletableFuture<Void> start(Operation op, String label, HostPath host) {
        JcclException f = failure;
        if (f != null) throw f;
        memory.bindThread();
        waitForRoom(label);
        NcclCommunicator.Pending pending;
        issuingLabel = label;
        issuingSince = System.nanoTime();
        try {
            pending = queue(op, label);
        } catch (RuntimeException e) {
            // Where the poller aborted a call that did not return, its timeout is what happened.
            JcclException stuck = failure;
            throw stuck != null ? stuck : e;
        } finally {
            issuingSince = 0;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (inFlight) {
            inFlight.addLast(new InFlight(pending, done, label));
        }
        LockSupport.unpark(poller);
        return done;
    }

    private NcclCommunicator.Pending queue(Operation op, String label) {
        DeviceBuffer send = buffer(op.send());
        DeviceBuffer recv = buffer(op.recv());
        long n = op.count();
        return switch (op.collective()) {
            case ALL_REDUCE -> nccl.allReduce(send, recv, n, op.type(), op.op(), label);
            case BROADCAST -> nccl.broadcast(send, recv, n, op.type(), op.root(), label);
            case REDUCE -> nccl.reduce(send, recv, n, op.type(), op.op(), op.root(), label);
            case ALL_GATHER -> nccl.allGather(send, recv, n, op.type(), label);
            case REDUCE_SCATTER -> nccl.reduceScatter(send, recv, n, op.type(), op.op(), label);
            case ALL_TO_ALL -> nccl.allToAll(send, recv, n, op.type(), label);
            case SEND -> nccl.send(send, n, op.type(), op.root(), label);
            case RECV -> nccl.recv(recv, n, op.type(), op.root(), label);
            case SEND_RECV -> nccl.sendRecv(send, op.root(), recv, op.recvPeer(), n, op.type(), label);
        };
    }

    /** Back-pressure: at most {@link #MAX_IN_FLIGHT} operations on the stream. */
    private void waitForRoom(String label) {
        long deadline = System.nanoTime() + timeoutNanos;
        IdleStrategy idle = Idle.strategy();
        while (true) {
            synchronized (inFlight) {
                if (inFlight.size() < MAX_IN_FLIGHT) return;
            }
            JcclException f = failure;
            if (f != null) throw f;
            if (System.nanoTime() - deadline > 0) {
                throw new JcclTimeoutException("rank " + rank + ": " + label + " waited "
                        + timeoutNanos / 1_000_000 / 1000.0 + " s for one of the " + MAX_IN_FLIGHT
                        + " NCCL operations before it to complete (JCCL_TIMEOUT)");
            }
            idle.idleOrPark(Idle.MAX_PARK_NANOS);
        }
    }

    /**
     * The poller: completes queued operations in order, fails them all on the first error, and keeps the deadline of a
     * stuck call.
     */
    private void poll() {
        IdleStrategy idle = Idle.strategy();
        boolean bound = false;
        while (true) {
            InFlight head;
            synchronized (inFlight) {
                head = inFlight.peekFirst();
            }
            if (head == null) {
                if (stopping) return;
                checkStuckCall();
                idle.idleOrPark(Idle.MAX_PARK_NANOS);
                continue;
            }
            try {
                if (!bound) {
                    memory.bindThread();
                    bound = true;
                }
                if (nccl.poll(head.pending())) {
                    synchronized (inFlight) {
                        inFlight.removeFirst();
                    }
                    head.done().complete(null);
                    idle.reset();
                    continue;
                }
            } catch (RuntimeException e) {
                fail(
                        e instanceof JcclException j
                                ? j
                                : new JcclException(
                                        "rank " + rank + ": " + head.label() + " failed: " + e.getMessage(), e));
            }
            idle.idleOrPark(Idle.MAX_PARK_NANOS);
        }
    }

    private void checkStuckCall() {
        long since = issuingSince;
        if (since == 0 || System.nanoTime() - since <= timeoutNanos || failure != null) return;
        fail(new JcclTimeoutException(
                "rank " + rank + ": " + issuingLabel + " on device buffers (NCCL): the NCCL call did not return within "
                        + timeoutNanos / 1_000_000 / 1000.0
                        + " s (JCCL_TIMEOUT): a peer did not take part or cannot be reached; the NCCL "
                        + "communicator was aborted (ncclCommAbort)"));
    }

    /** The first failure aborts NCCL and fails every queued operation with it. */
    private void fail(JcclException e) {
        synchronized (inFlight) {
            if (failure == null) failure = e;
            for (InFlight x : inFlight) {
                x.done().completeExceptionally(x == inFlight.peekFirst() ? failure : refusal(x.label()));
            }
            inFlight.clear();
        }
        nccl.abort();
    }

    private JcclException refusal(String label) {
        return new JcclException(
                "rank " + rank + ": " + label + " refused: this communicator failed earlier (" + failure.getMessage()
                        + "). Close it and create a new one.",
                failure);
    }

    @Override
    public String describe() {
        return "nccl: " + nccl.describe() + ", a GPU per rank";
    }

    @Override
    public void abort() {
        fail(new JcclException("rank " + rank + ": the communicator was aborted"));
    }

    /** Waits for queued operations (within the deadline; then aborts them), then destroys the NCCL communicator. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        long deadline = System.nanoTime() + timeoutNanos;
        IdleStrategy idle = Idle.strategy();
        while (true) {
            synchronized (inFlight) {
                if (inFlight.isEmpty()) break;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(new JcclTimeoutException(
                        "rank " + rank + ": NCCL operations still queued when the communicator closed did not complete "
                                + "within " + timeoutNanos / 1_000_000 / 1000.0 + " s (JCCL_TIMEOUT)"));
                break;
            }
            idle.idleOrPark(Idle.MAX_PARK_NANOS);
        }
        stopping = true;
        LockSupport.unpark(poller);
        try {
            poller.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            nccl.close();
        } finally {
            releaseMemory();
        }
    }
}
