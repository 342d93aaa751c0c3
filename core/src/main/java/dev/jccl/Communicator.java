package dev.jccl;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A group of {@link #size()} ranks that run collectives together; see {@link Jccl} to make one.
 *
 * <h2>Rules (NCCL's)</h2>
 * <ul>
 *   <li>Every rank calls the same collectives, with the same count, type, op and root, in the
 *       same order. Point-to-point {@link #send}/{@link #recv} pair up in call order per peer;
 *       each half of a {@link #sendRecv} pairs up like a send or a recv of its own.</li>
 *   <li>{@code count} is in elements, not bytes. AllGather's {@code recv} and ReduceScatter's
 *       {@code send} hold {@code size() * count} elements; AllToAll's both hold
 *       {@code size() * countPerPeer}.</li>
 *   <li>In place when {@code send} and {@code recv} are the same memory (for AllGather: when
 *       {@code send} is block {@code rank()} of {@code recv}; for ReduceScatter: when {@code recv}
 *       is block {@code rank()} of {@code send}). Every collective, AllToAll included, may run in
 *       place; buffers that overlap in any other way are refused.</li>
 *   <li>Broadcast reads {@code send} only at the root and Reduce writes {@code recv} only at the
 *       root; other ranks may pass {@code null} there. A buffer that is passed is checked on every
 *       rank, so the same bad call fails the same way everywhere.</li>
 *   <li>{@code count == 0} is a no-op that still keeps the ranks in step.</li>
 *   <li>Bad arguments (negative count, root out of range, a buffer smaller than
 *       {@code count × type.byteSize()}) throw {@link IllegalArgumentException} before any data
 *       moves; the communicator stays usable.</li>
 * </ul>
 *
 * <h2>Threads and memory</h2>
 * Operations run in the order they are called, whichever thread calls them. A blocking call runs
 * on the calling thread and accepts any segment that thread may access: heap segments, and
 * native segments of any arena, confined ones included. An {@code …Async} call runs on the
 * communicator's progress thread, so its segments must be accessible from any thread (heap,
 * {@link java.lang.foreign.Arena#global()}, {@link java.lang.foreign.Arena#ofAuto()} or
 * {@link java.lang.foreign.Arena#ofShared()}); a confined segment is refused with an
 * {@link IllegalArgumentException}. The caller must not touch an async call's buffers, nor close
 * their arena, until its future completes. Failures surface as {@link JcclException}s (directly,
 * or as the cause of the future's {@link java.util.concurrent.ExecutionException}).
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

    // ---- MemorySegment forms ----

    /** Element-wise reduction of every rank's {@code send} into every rank's {@code recv}. */
    void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op);

    CompletableFuture<Void> allReduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op);

    /** Copies {@code root}'s {@code send} into every rank's {@code recv} ({@code send} is read only at the root; null elsewhere is fine). */
    void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    CompletableFuture<Void> broadcastAsync(MemorySegment send, MemorySegment recv, long count, DataType type, int root);

    /** Reduction of every rank's {@code send} into {@code root}'s {@code recv} (other ranks' {@code recv} is not touched and may be null). */
    void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root);

    CompletableFuture<Void> reduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root);

    /** Rank {@code i}'s {@code sendCount} elements land in block {@code i} of every rank's {@code recv}. */
    void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type);

    /** Reduces every rank's {@code send} and leaves block {@code rank()} of the result in {@code recv}. */
    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op);

    CompletableFuture<Void> reduceScatterAsync(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op);

    /** Block {@code j} of this rank's {@code send} lands in block {@code rank()} of rank {@code j}'s {@code recv}. */
    void allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type);

    CompletableFuture<Void> allToAllAsync(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type);

    /** Sends {@code count} elements to {@code peer}, which must post a matching {@link #recv}. */
    void send(MemorySegment buf, long count, DataType type, int peer);

    CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer);

    /** Receives {@code count} elements from {@code peer}. */
    void recv(MemorySegment buf, long count, DataType type, int peer);

    CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer);

    /**
     * Sends {@code count} elements of {@code send} to {@code sendPeer} while receiving {@code count}
     * elements from {@code recvPeer} into {@code recv}; both halves progress together, so a ring of
     * sendRecv calls cannot deadlock. Matches the peers' send/recv/sendRecv calls like separate Send
     * and Recv would (each half in call order per peer), and neither half waits for the other, so a
     * peer may also answer with a {@link #recv} and a {@link #send}, in either order.
     * {@code sendPeer == recvPeer} exchanges both ways with one peer; both equal to {@link #rank()}
     * is a local copy; only one of them equal to {@link #rank()} is refused.
     *
     * <p>In place when {@code send} and {@code recv} are the same memory. Then a chunk that arrives
     * must wait until the same chunk has left, so a peer that sends all of its message before it
     * receives anything is served only as far as the sockets buffer (a few MiB); out of place, and
     * against a peer that uses sendRecv or receives first, there is no such limit.
     */
    void sendRecv(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type);

    CompletableFuture<Void> sendRecvAsync(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type);

    /** Returns once every rank has called it. */
    void barrier();

    CompletableFuture<Void> barrierAsync();

    /**
     * Collective: splits this communicator into one per distinct {@code color}; ranks are ordered
     * by {@code key}, then by rank here. Returns null for {@link #SPLIT_NOCOLOR} (any negative color).
     */
    Communicator split(int color, int key);

    /**
     * Fails this rank's pending and future operations at once and closes its connections, so that
     * peers waiting on it fail too. Safe from any thread, any number of times.
     */
    void abort();

    /** Waits for queued async operations (within the timeout), then releases every resource. */
    @Override
    void close();

    // ---- array forms: heap memory, same semantics; the element type is given or implied ----

    // ---- byte[] ----
    /** In-place AllReduce of byte[] as INT8. */
    default void allReduce(byte[] data, ReduceOp op) {
        allReduce(data, DataType.INT8, op);
    }

    /** In-place AllReduce of byte[] as INT8; the caller leaves {@code data} alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(byte[] data, ReduceOp op) {
        return allReduceAsync(data, DataType.INT8, op);
    }

    /** In-place AllReduce of byte[] read as {@code type} (same element size). */
    default void allReduce(byte[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of byte[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(byte[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(byte[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(byte[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(byte[] send, byte[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(byte[] send, byte[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(byte[] send, byte[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(byte[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(byte[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(byte[] send, int sendPeer, byte[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

    // ---- short[] ----
    /** In-place AllReduce of short[] read as {@code type} (same element size). */
    default void allReduce(short[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of short[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(short[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(short[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(short[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(short[] send, short[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(short[] send, short[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(short[] send, short[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(short[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(short[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(short[] send, int sendPeer, short[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

    // ---- int[] ----
    /** In-place AllReduce of int[] as INT32. */
    default void allReduce(int[] data, ReduceOp op) {
        allReduce(data, DataType.INT32, op);
    }

    /** In-place AllReduce of int[] as INT32; the caller leaves {@code data} alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(int[] data, ReduceOp op) {
        return allReduceAsync(data, DataType.INT32, op);
    }

    /** In-place AllReduce of int[] read as {@code type} (same element size). */
    default void allReduce(int[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of int[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(int[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(int[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(int[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(int[] send, int[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(int[] send, int[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(int[] send, int[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(int[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(int[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(int[] send, int sendPeer, int[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

    // ---- long[] ----
    /** In-place AllReduce of long[] as INT64. */
    default void allReduce(long[] data, ReduceOp op) {
        allReduce(data, DataType.INT64, op);
    }

    /** In-place AllReduce of long[] as INT64; the caller leaves {@code data} alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(long[] data, ReduceOp op) {
        return allReduceAsync(data, DataType.INT64, op);
    }

    /** In-place AllReduce of long[] read as {@code type} (same element size). */
    default void allReduce(long[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of long[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(long[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(long[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(long[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(long[] send, long[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(long[] send, long[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(long[] send, long[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(long[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(long[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(long[] send, int sendPeer, long[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

    // ---- float[] ----
    /** In-place AllReduce of float[] as FLOAT32. */
    default void allReduce(float[] data, ReduceOp op) {
        allReduce(data, DataType.FLOAT32, op);
    }

    /** In-place AllReduce of float[] as FLOAT32; the caller leaves {@code data} alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(float[] data, ReduceOp op) {
        return allReduceAsync(data, DataType.FLOAT32, op);
    }

    /** In-place AllReduce of float[] read as {@code type} (same element size). */
    default void allReduce(float[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of float[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(float[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(float[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(float[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(float[] send, float[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(float[] send, float[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(float[] send, float[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(float[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(float[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(float[] send, int sendPeer, float[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

    // ---- double[] ----
    /** In-place AllReduce of double[] as FLOAT64. */
    default void allReduce(double[] data, ReduceOp op) {
        allReduce(data, DataType.FLOAT64, op);
    }

    /** In-place AllReduce of double[] as FLOAT64; the caller leaves {@code data} alone until the future completes. */
    default CompletableFuture<Void> allReduceAsync(double[] data, ReduceOp op) {
        return allReduceAsync(data, DataType.FLOAT64, op);
    }

    /** In-place AllReduce of double[] read as {@code type} (same element size). */
    default void allReduce(double[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        allReduce(s, s, ArrayBuffers.count(data), type, op);
    }

    /** Async in-place AllReduce of double[] read as {@code type}. */
    default CompletableFuture<Void> allReduceAsync(double[] data, DataType type, ReduceOp op) {
        MemorySegment s = ArrayBuffers.of(data, type);
        return allReduceAsync(s, s, ArrayBuffers.count(data), type, op);
    }

    /** In-place Broadcast of the whole array from {@code root}. */
    default void broadcast(double[] data, int root) {
        MemorySegment s = MemorySegment.ofArray(data);
        broadcast(s, s, ArrayBuffers.count(data), ArrayBuffers.moveType(data), root);
    }

    /** In-place Reduce to {@code root}, element type {@code type}; only the root's array is written. */
    default void reduce(double[] data, DataType type, ReduceOp op, int root) {
        MemorySegment s = ArrayBuffers.of(data, type);
        reduce(s, s, ArrayBuffers.count(data), type, op, root);
    }

    /** AllGather: {@code recv.length == size() * send.length}. */
    default void allGather(double[] send, double[] recv) {
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.count(send), ArrayBuffers.moveType(send));
    }

    /** ReduceScatter, element type {@code type}: {@code send.length == size() * recv.length}. */
    default void reduceScatter(double[] send, double[] recv, DataType type, ReduceOp op) {
        reduceScatter(ArrayBuffers.of(send, type), ArrayBuffers.of(recv, type), ArrayBuffers.count(recv), type, op);
    }

    /** AllToAll: block {@code j} of {@code send} goes to rank {@code j}; both arrays hold {@code size()} equal blocks. */
    default void allToAll(double[] send, double[] recv) {
        allToAll(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), ArrayBuffers.blockCount(send, size()), ArrayBuffers.moveType(send));
    }

    /** Sends the whole array to {@code peer}, which calls {@code recv} with an array of the same length. */
    default void send(double[] data, int peer) {
        send(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /** Receives a whole array from {@code peer}. */
    default void recv(double[] data, int peer) {
        recv(MemorySegment.ofArray(data), ArrayBuffers.count(data), ArrayBuffers.moveType(data), peer);
    }

    /**
     * Sends the whole of {@code send} to {@code sendPeer} while receiving as much from {@code recvPeer}
     * into {@code recv}, an array of the same length (or {@code send} itself, in place).
     */
    default void sendRecv(double[] send, int sendPeer, double[] recv, int recvPeer) {
        sendRecv(MemorySegment.ofArray(send), sendPeer, MemorySegment.ofArray(recv), recvPeer, ArrayBuffers.sameCount(send, recv),
                ArrayBuffers.moveType(send));
    }

}
