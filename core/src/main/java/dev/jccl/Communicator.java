package dev.jccl;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A group of {@link #size()} ranks that run collectives together; see {@link Jccl} to make one.
 *
 * <h2>Rules (NCCL's)</h2>
 *
 * <ul>
 *   <li>Every rank calls the same collectives, with the same count, type, op and root, in the same order.
 *       Point-to-point {@link #send}/{@link #recv} pair up in call order per peer; each half of a {@link #sendRecv}
 *       pairs up like a send or a recv of its own.
 *   <li>{@code count} is in elements, not bytes. AllGather's {@code recv} and ReduceScatter's {@code send} hold
 *       {@code size() * count} elements; AllToAll's both hold {@code size() * countPerPeer}.
 *   <li>In place when {@code send} and {@code recv} are the same memory (for AllGather: when {@code send} is block
 *       {@code rank()} of {@code recv}; for ReduceScatter: when {@code recv} is block {@code rank()} of {@code send}).
 *       Every collective, AllToAll included, may run in place; buffers that overlap in any other way are refused.
 *   <li>Broadcast reads {@code send} only at the root and Reduce writes {@code recv} only at the root; other ranks may
 *       pass {@code null} there. A buffer that is passed is checked on every rank, so the same bad call fails the same
 *       way everywhere.
 *   <li>{@code count == 0} is a no-op that still keeps the ranks in step.
 *   <li>Bad arguments (negative count, root out of range, a buffer smaller than {@code count × type.byteSize()}) throw
 *       {@link IllegalArgumentException} before any data moves; the communicator stays usable.
 * </ul>
 *
 * <h2>Threads and memory</h2>
 *
 * Operations run in the order they are called, whichever thread calls them. A blocking call runs on the calling thread
 * and accepts any segment that thread may access: heap segments, and native segments of any arena, confined ones
 * included. An {@code …Async} call runs on the communicator's progress thread, so its segments must be accessible from
 * any thread (heap, {@link java.lang.foreign.Arena#global()}, {@link java.lang.foreign.Arena#ofAuto()} or
 * {@link java.lang.foreign.Arena#ofShared()}); a confined segment is refused with an {@link IllegalArgumentException}.
 * The caller must not touch an async call's buffers, nor close their arena, until its future completes. Failures
 * surface as {@link JcclException}s (directly, or as the cause of the future's
 * {@link java.util.concurrent.ExecutionException}).
 */
public interface Communicator extends AutoCloseable {

    /** Color that {@link #split} treats as "not in any new communicator" (NCCL_SPLIT_NOCOLOR). */
    int SPLIT_NOCOLOR = -1;

    /** This rank, {@code 0 <= rank() < size()}. */
    int rank();

    /** Number of ranks. */
    int size();

    /** Settings in force. */
    Config config();

    // ---- MemorySegment forms: host memory, or device memory of a GPU attached to this communicator ----

    /** Element-wise reduction of every rank's {@code send} into every rank's {@code recv}. */
    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op);

    /** {@link #allReduce}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> allReduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op);

    /**
     * Copies {@code root}'s {@code send} into every rank's {@code recv} ({@code send} is read only at the root; null
     * elsewhere is fine).
     */
    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /** {@link #broadcast}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> broadcastAsync(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /**
     * Reduction of every rank's {@code send} into {@code root}'s {@code recv} (other ranks' {@code recv} is not touched
     * and may be null).
     */
    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root);

    /** {@link #reduce}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> reduceAsync(
            MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root);

    /** Rank {@code i}'s {@code sendCount} elements land in block {@code i} of every rank's {@code recv}. */
    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /** {@link #allGather}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /** Reduces every rank's {@code send} and leaves block {@code rank()} of the result in {@code recv}. */
    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op);

    /** {@link #reduceScatter}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> reduceScatterAsync(
            MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op);

    /** Block {@code j} of this rank's {@code send} lands in block {@code rank()} of rank {@code j}'s {@code recv}. */
    void allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type);

    /** {@link #allToAll}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> allToAllAsync(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type);

    /** Sends {@code count} elements to {@code peer}, which must post a matching {@link #recv}. */
    void send(MemorySegment buf, long count, DataType type, int peer);

    /** {@link #send}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer);

    /** Receives {@code count} elements from {@code peer}. */
    void recv(MemorySegment buf, long count, DataType type, int peer);

    /** {@link #recv}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer);

    /**
     * Sends {@code count} elements of {@code send} to {@code sendPeer} while receiving {@code count} elements from
     * {@code recvPeer} into {@code recv}; both halves progress together, so a ring of sendRecv calls cannot deadlock.
     * Matches the peers' send/recv/sendRecv calls like separate Send and Recv would (each half in call order per peer),
     * and neither half waits for the other, so a peer may also answer with a {@link #recv} and a {@link #send}, in
     * either order. {@code sendPeer == recvPeer} exchanges both ways with one peer; both equal to {@link #rank()} is a
     * local copy; only one of them equal to {@link #rank()} is refused.
     *
     * <p>In place when {@code send} and {@code recv} are the same memory. Then a chunk that arrives must wait until the
     * same chunk has left, so a peer that sends all of its message before it receives anything is served only as far as
     * the sockets buffer (a few MiB); out of place, and against a peer that uses sendRecv or receives first, there is
     * no such limit.
     */
    void sendRecv(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type);

    /** {@link #sendRecv}, async: leave the buffers alone until the future completes. */
    CompletableFuture<Void> sendRecvAsync(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type);

    /** Returns once every rank has called it. */
    void barrier();

    /** {@link #barrier}, async: the future completes once every rank has called it. */
    CompletableFuture<Void> barrierAsync();

    /**
     * Collective: splits this communicator into one per distinct {@code color}; ranks are ordered by {@code key}, then
     * by rank here. Returns null for {@link #SPLIT_NOCOLOR} (any negative color).
     */
    Communicator split(int color, int key);

    /**
     * After a failure (or {@link #abort}): returns a new communicator of the surviving ranks, agreed by all of them:
     * the same members in the same order, ranks 0..n-1 in their old order, leaving out the ranks the failure's verdict
     * names ({@link JcclException#verdict()}). Every survivor must call it, within JCCL_TIMEOUT; one that does not is
     * left out. The JVMs go on; this communicator stays failed, so close it. Once per communicator.
     *
     * @throws JcclException on a healthy, closed or already shrunk communicator, on the rank the verdict names, or if
     *     the survivors hold different verdicts
     */
    default Communicator shrink() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot shrink");
    }

    /**
     * Fails this rank's pending and future operations at once and closes its connections, so that peers waiting on it
     * fail too. Safe from any thread, any number of times.
     */
    void abort();

    /** Waits for queued async operations (within the timeout), then releases every resource. */
    @Override
    void close();

    /**
     * Writes this rank's flight recorder (its last {@code JCCL_TRACE_BUFFER} operations, with their state and times) to
     * {@code file} as JSON, which {@code jccl trace} merges across ranks; returns the file. A failed operation writes
     * it by itself (to {@code JCCL_TRACE_DIR}).
     */
    default java.nio.file.Path dumpTrace(java.nio.file.Path file) throws java.io.IOException {
        throw new UnsupportedOperationException(getClass().getName() + " keeps no flight recorder");
    }

    // ---- array forms: one overload per operation, for any primitive array (byte[], short[], int[], long[], float[],
    // double[]) ----

    /**
     * In-place AllReduce of a whole array, its elements read as the array's own type (short[] needs
     * {@link #allReduce(Object, DataType, ReduceOp)}).
     */
    default void allReduce(Object array, ReduceOp op) {
        allReduce(array, ArrayBuffers.reduceType(array, "AllReduce"), op);
    }

    /** In-place AllReduce of a whole array read as {@code type}, a type of the array's element width. */
    default void allReduce(Object array, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(array, type, "AllReduce");
        allReduce(s, s, ArrayBuffers.count(array), type, op);
    }

    /** {@link #allReduce(Object, ReduceOp)}, async: leave the array alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(Object array, ReduceOp op) {
        return allReduceAsync(array, ArrayBuffers.reduceType(array, "AllReduce"), op);
    }

    /** {@link #allReduce(Object, DataType, ReduceOp)}, async: leave the array alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(Object array, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(array, type, "AllReduce");
        return allReduceAsync(s, s, ArrayBuffers.count(array), type, op);
    }

    /** In-place Broadcast of a whole array from {@code root}. */
    default void broadcast(Object array, int root) {
        MemorySegment s = ArrayBuffers.of(array, "Broadcast");
        broadcast(s, s, ArrayBuffers.count(array), ArrayBuffers.moveType(array, "Broadcast"), root);
    }

    /** In-place Reduce of a whole array, read as {@code type}, to {@code root}; only the root's array is written. */
    default void reduce(Object array, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(array, type, "Reduce");
        reduce(s, s, ArrayBuffers.count(array), type, op, root);
    }

    /** AllGather of whole arrays of one element type: {@code recv.length == size() * send.length}. */
    default void allGather(Object send, Object recv) {
        ArrayBuffers.sameType(send, recv, "AllGather");
        allGather(
                ArrayBuffers.of(send, "AllGather"),
                ArrayBuffers.of(recv, "AllGather"),
                ArrayBuffers.count(send),
                ArrayBuffers.moveType(send, "AllGather"));
    }

    /** ReduceScatter of whole arrays read as {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(Object send, Object recv, DataType type, ReduceOp op) {
        reduceScatter(
                ArrayBuffers.of(send, type, "ReduceScatter"),
                ArrayBuffers.of(recv, type, "ReduceScatter"),
                ArrayBuffers.count(recv),
                type,
                op);
    }

    /**
     * AllToAll of whole arrays of one element type: block {@code j} of {@code send} goes to rank {@code j}; both hold
     * {@code size()} equal blocks.
     */
    default void allToAll(Object send, Object recv) {
        ArrayBuffers.sameType(send, recv, "AllToAll");
        allToAll(
                ArrayBuffers.of(send, "AllToAll"),
                ArrayBuffers.of(recv, "AllToAll"),
                ArrayBuffers.blockCount(send, size()),
                ArrayBuffers.moveType(send, "AllToAll"));
    }

    /** Sends a whole array to {@code peer}, which receives it into an array of the same type and length. */
    default void send(Object array, int peer) {
        send(ArrayBuffers.of(array, "Send"), ArrayBuffers.count(array), ArrayBuffers.moveType(array, "Send"), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(Object array, int peer) {
        recv(ArrayBuffers.of(array, "Recv"), ArrayBuffers.count(array), ArrayBuffers.moveType(array, "Recv"), peer);
    }

    /**
     * Sends all of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer} into {@code recv}
     * (the same array, in place).
     */
    default void sendRecv(Object send, int sendPeer, Object recv, int recvPeer) {
        ArrayBuffers.sameType(send, recv, "SendRecv");
        sendRecv(
                ArrayBuffers.of(send, "SendRecv"),
                sendPeer,
                ArrayBuffers.of(recv, "SendRecv"),
                recvPeer,
                ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send, "SendRecv"));
    }
}
