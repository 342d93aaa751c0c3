package dev.jccl.cuda;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.ReduceOp;
import dev.jccl.concurrent.IdleStrategy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An NCCL communicator under Jccl's rules. Set-up goes through Jccl's bootstrap: rank 0 makes the {@code ncclUniqueId}
 * and the host communicator broadcasts its 128 bytes. Operations are queued on this communicator's CUDA stream and then
 * polled, never waited on with a blocking call: while one is pending, NCCL's asynchronous error
 * ({@code ncclCommGetAsyncError}) is checked, and past the deadline ({@code JCCL_TIMEOUT}) the NCCL communicator is
 * aborted ({@code ncclCommAbort}) and a {@link JcclTimeoutException} names the operation, where NCCL itself would wait
 * forever.
 *
 * <p>NCCL has no AllToAll: it is a group of sends and receives, as NCCL's own documentation writes it. In-place
 * AllToAll and SendRecv first copy the outgoing data to device scratch memory, since a send and a receive on one buffer
 * would race. Driven by one thread (the device communicator's worker); not thread-safe.
 */
final class NcclCommunicator implements AutoCloseable {
    /** How often a pending operation asks NCCL for an asynchronous error. */
    private static final long ASYNC_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final NcclApi api;
    private final long comm;
    private final DeviceMemory memory;
    private final DeviceStream stream;
    private final int rank;
    private final int size;
    private final long timeoutNanos;
    private final int version;
    private DeviceBuffer scratch;
    private volatile boolean aborted;
    private long lastAsyncCheck;

    /** An operation queued on the stream, to be polled until its event completes. */
    record Pending(DeviceEvent done, String label, long deadlineNanos) {}

    private NcclCommunicator(
            NcclApi api, long comm, DeviceMemory memory, DeviceStream stream, int rank, int size, Duration timeout) {
        this.api = api;
        this.comm = comm;
        this.memory = memory;
        this.stream = stream;
        this.rank = rank;
        this.size = size;
        this.timeoutNanos = timeout.toNanos();
        this.version = api.version();
    }

    /**
     * Collective over {@code host}: makes the NCCL communicator of the same ranks, on {@code memory}'s device.
     * Operations are then queued by whichever thread holds the communicator's turn (one at a time), each binding the
     * device first.
     */
    static NcclCommunicator create(NcclApi api, Communicator host, DeviceMemory memory, Duration timeout) {
        int rank = host.rank();
        int size = host.size();
        byte[] id = new byte[NcclTypes.UNIQUE_ID_BYTES];
        String made = null;
        if (rank == 0) {
            int rc = api.getUniqueId(id);
            if (rc != NcclTypes.SUCCESS) made = "ncclGetUniqueId failed on rank 0: " + describe(api, rc, 0);
        }
        // [status][id]: a rank 0 that could not make an id still takes part, so no rank waits for it.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment msg = arena.allocate(1 + NcclTypes.UNIQUE_ID_BYTES);
            msg.set(ValueLayout.JAVA_BYTE, 0, (byte) (made == null ? 0 : 1));
            MemorySegment.copy(id, 0, msg, ValueLayout.JAVA_BYTE, 1, id.length);
            host.broadcast(msg, msg, msg.byteSize(), DataType.UINT8, 0);
            if (msg.get(ValueLayout.JAVA_BYTE, 0) != 0) {
                throw new NcclException(
                        1,
                        made != null
                                ? made
                                : "rank " + rank + ": rank 0 could not make an NCCL unique id (its log says why)");
            }
            MemorySegment.copy(msg, ValueLayout.JAVA_BYTE, 1, id, 0, id.length);
        }
        memory.bindThread();
        // ncclCommInitRank blocks until every rank has joined, and cannot be interrupted: run it
        // aside so that this rank keeps its deadline if a peer never comes.
        CompletableFuture<long[]> init = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("jccl-nccl-init-rank" + rank).start(() -> {
            try {
                memory.bindThread();
                long[] out = new long[1];
                int rc = api.commInitRank(out, size, id, rank);
                if (rc != NcclTypes.SUCCESS) {
                    init.completeExceptionally(new NcclException(
                            rc,
                            "rank " + rank + ": NCCL set-up (ncclCommInitRank, " + size + " ranks) failed: "
                                    + describe(api, rc, 0)));
                } else {
                    init.complete(out);
                }
            } catch (Throwable t) {
                init.completeExceptionally(t);
            }
        });
        long[] handle;
        try {
            handle = init.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new JcclTimeoutException(
                    "rank " + rank + ": NCCL set-up (ncclCommInitRank, " + size + " ranks on " + memory.describe()
                            + ") did not finish within " + timeout.toMillis() / 1000.0
                            + " s (JCCL_TIMEOUT): a rank did not get there, or NCCL could "
                            + "not connect the ranks (NCCL_DEBUG=INFO says why)");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new JcclException("rank " + rank + ": NCCL set-up failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("rank " + rank + ": interrupted during NCCL set-up", e);
        }
        return new NcclCommunicator(api, handle[0], memory, memory.createStream(), rank, size, timeout);
    }

    /** {@code NCCL 2.21.5 (libnccl.so.2)}. */
    String describe() {
        return "NCCL " + NcclTypes.version(version) + " (" + api.library() + ")";
    }

    int version() {
        return version;
    }

    // ---------------------------------------------------------------- operations (queue, then poll)

    Pending allReduce(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, String label) {
        return queued(
                api.allReduce(send.address(), recv.address(), count, ncclType(type), ncclOp(op), comm, stream.handle()),
                "ncclAllReduce",
                label);
    }

    Pending broadcast(DeviceBuffer send, DeviceBuffer recv, long count, DataType type, int root, String label) {
        long sendAddress = send == null ? recv.address() : send.address();
        return queued(
                api.broadcast(sendAddress, recv.address(), count, ncclType(type), root, comm, stream.handle()),
                "ncclBroadcast",
                label);
    }

    Pending reduce(
            DeviceBuffer send, DeviceBuffer recv, long count, DataType type, ReduceOp op, int root, String label) {
        // Only the root's recv is written; other ranks pass their send buffer, a valid pointer NCCL will not touch.
        long recvAddress = recv == null ? send.address() : recv.address();
        return queued(
                api.reduce(send.address(), recvAddress, count, ncclType(type), ncclOp(op), root, comm, stream.handle()),
                "ncclReduce",
                label);
    }

    Pending allGather(DeviceBuffer send, DeviceBuffer recv, long sendCount, DataType type, String label) {
        return queued(
                api.allGather(send.address(), recv.address(), sendCount, ncclType(type), comm, stream.handle()),
                "ncclAllGather",
                label);
    }

    Pending reduceScatter(
            DeviceBuffer send, DeviceBuffer recv, long recvCount, DataType type, ReduceOp op, String label) {
        return queued(
                api.reduceScatter(
                        send.address(), recv.address(), recvCount, ncclType(type), ncclOp(op), comm, stream.handle()),
                "ncclReduceScatter",
                label);
    }

    /** A group of one send and one receive per peer, block {@code j} of {@code send} to rank {@code j}. */
    Pending allToAll(DeviceBuffer send, DeviceBuffer recv, long countPerPeer, DataType type, String label) {
        int t = ncclType(type);
        long block = countPerPeer * type.byteSize();
        DeviceBuffer from = send.address() == recv.address() ? outgoingCopy(send.slice(0, block * size)) : send;
        check(api.groupStart(), "ncclGroupStart", label);
        int rc = NcclTypes.SUCCESS;
        for (int j = 0; j < size && rc == NcclTypes.SUCCESS; j++) {
            rc = api.send(from.address() + j * block, countPerPeer, t, j, comm, stream.handle());
            if (rc == NcclTypes.SUCCESS) {
                rc = api.recv(recv.address() + j * block, countPerPeer, t, j, comm, stream.handle());
            }
        }
        return groupEnded(rc, label);
    }

    Pending send(DeviceBuffer buf, long count, DataType type, int peer, String label) {
        return queued(api.send(buf.address(), count, ncclType(type), peer, comm, stream.handle()), "ncclSend", label);
    }

    Pending recv(DeviceBuffer buf, long count, DataType type, int peer, String label) {
        return queued(api.recv(buf.address(), count, ncclType(type), peer, comm, stream.handle()), "ncclRecv", label);
    }

    Pending sendRecv(
            DeviceBuffer send, int sendPeer, DeviceBuffer recv, int recvPeer, long count, DataType type, String label) {
        int t = ncclType(type);
        long bytes = count * type.byteSize();
        if (sendPeer == rank && recvPeer == rank) {
            if (send.address() != recv.address()) stream.copyOnDevice(send.slice(0, bytes), recv.slice(0, bytes));
            return pending(label);
        }
        DeviceBuffer from = send.address() == recv.address() ? outgoingCopy(send.slice(0, bytes)) : send;
        check(api.groupStart(), "ncclGroupStart", label);
        int rc = api.send(from.address(), count, t, sendPeer, comm, stream.handle());
        if (rc == NcclTypes.SUCCESS) rc = api.recv(recv.address(), count, t, recvPeer, comm, stream.handle());
        return groupEnded(rc, label);
    }

    /**
     * Copies {@code data} into scratch device memory on the stream (ordered before what follows), for sends out of a
     * buffer that also receives.
     */
    private DeviceBuffer outgoingCopy(DeviceBuffer data) {
        if (scratch == null || scratch.byteSize() < data.byteSize()) {
            if (scratch != null) {
                waitIdle();
                memory.free(scratch);
            }
            scratch = memory.allocate(data.byteSize());
        }
        DeviceBuffer copy = scratch.slice(0, data.byteSize());
        stream.copyOnDevice(data, copy);
        return copy;
    }

    /** Checks the return code of an operation just queued on the stream, then tracks the operation. */
    private Pending queued(int rc, String call, String label) {
        check(rc, call, label);
        return pending(label);
    }

    /**
     * Ends the group of sends and receives queued since {@code ncclGroupStart} and tracks it; {@code rc} is the first
     * failed return code among them, or success.
     */
    private Pending groupEnded(int rc, String label) {
        int end = api.groupEnd();
        check(rc, "ncclSend/ncclRecv", label);
        check(end, "ncclGroupEnd", label);
        return pending(label);
    }

    private int ncclType(DataType type) {
        return NcclTypes.dataType(type, version);
    }

    private int ncclOp(ReduceOp op) {
        return NcclTypes.redOp(op, version);
    }

    private Pending pending(String label) {
        return new Pending(stream.record(), label, System.nanoTime() + timeoutNanos);
    }

    /**
     * True once {@code p} has completed. While it has not: an asynchronous NCCL error, or the deadline passing, aborts
     * the NCCL communicator and throws ({@link NcclException}, {@link JcclTimeoutException}).
     */
    boolean poll(Pending p) {
        if (p.done().isComplete()) {
            p.done().close();
            return true;
        }
        long now = System.nanoTime();
        if (now - lastAsyncCheck >= ASYNC_CHECK_NANOS) {
            lastAsyncCheck = now;
            int[] error = new int[1];
            int rc = api.commGetAsyncError(comm, error);
            int result = rc != NcclTypes.SUCCESS ? rc : error[0];
            if (result != NcclTypes.SUCCESS && result != NcclTypes.IN_PROGRESS) {
                String detail = describe(api, result, comm);
                abort();
                throw new NcclException(
                        result,
                        "rank " + rank + ": " + p.label() + " on device buffers (NCCL) failed: NCCL reports " + detail
                                + "; the NCCL communicator was aborted");
            }
        }
        if (now - p.deadlineNanos() > 0) {
            abort();
            throw new JcclTimeoutException(
                    "rank " + rank + ": " + p.label() + " on device buffers (NCCL) did not complete within "
                            + timeoutNanos / 1_000_000 / 1000.0
                            + " s (JCCL_TIMEOUT): a peer did not take part or cannot be reached; "
                            + "the NCCL communicator was aborted (ncclCommAbort)");
        }
        return false;
    }

    private void check(int rc, String call, String label) {
        if (rc == NcclTypes.SUCCESS) return;
        String detail = describe(api, rc, comm);
        abort();
        throw new NcclException(
                rc,
                "rank " + rank + ": " + label + " on device buffers (NCCL) failed: " + call + " returned " + detail
                        + "; the NCCL communicator was aborted");
    }

    /** {@code ncclRemoteError (remote process exited or there was a network error): <ncclGetLastError>}. */
    static String describe(NcclApi api, int result, long comm) {
        StringBuilder s = new StringBuilder(NcclTypes.resultName(result));
        String sentence = api.errorString(result);
        if (sentence != null && !sentence.isBlank()) {
            s.append(" (").append(sentence).append(')');
        }
        String last = api.lastError(comm);
        if (last != null && !last.isBlank()) s.append(": ").append(last.trim());
        return s.toString();
    }

    /** Aborts the NCCL communicator (what is running is stopped); safe to call twice. */
    synchronized void abort() {
        if (aborted) return;
        aborted = true;
        api.commAbort(comm);
    }

    boolean aborted() {
        return aborted;
    }

    private void waitIdle() {
        long deadline = System.nanoTime() + timeoutNanos;
        IdleStrategy idle = Idle.strategy();
        while (!stream.isIdle()) {
            if (System.nanoTime() - deadline > 0) {
                throw new JcclTimeoutException("rank " + rank + ": the NCCL stream did not drain within the deadline");
            }
            idle.idleOrPark(Idle.MAX_PARK_NANOS);
        }
    }

    /**
     * Destroys the NCCL communicator once its work is done (or aborts it, if that does not happen within the deadline).
     */
    @Override
    public void close() {
        try {
            if (!aborted) {
                try {
                    waitIdle();
                    api.commDestroy(comm);
                } catch (RuntimeException e) {
                    abort();
                }
            }
            if (scratch != null) memory.free(scratch);
        } finally {
            stream.close();
        }
    }
}
