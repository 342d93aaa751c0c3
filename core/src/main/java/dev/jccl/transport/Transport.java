package dev.jccl.transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Collection;

/**
 * Moves chunks between this rank and its peers; knows nothing of collectives. The runtime posts sends and receives,
 * then calls {@link #progress()} until their handles are done, falling back to {@link #awaitIo} when nothing moved.
 * Single-threaded: one thread drives it at a time (the runtime serialises operations); only {@link #wakeup()} and
 * {@link #close()} may come from another.
 *
 * <p>Per peer, sends are delivered in posting order and receives are matched in posting order.
 */
public interface Transport extends AutoCloseable {

    /** Short name for debug lines ({@code Socket}, {@code UCX}, …). */
    String name();

    /**
     * Makes progress on connecting to {@code peers}; true once all are connected. Never blocks for long: the caller
     * loops with its deadline. A peer that refuses is a {@link PeerLostException}.
     */
    boolean tryConnect(Collection<Integer> peers) throws IOException;

    /** Queues {@code data} for {@code peer} behind {@code header}; {@code data} must stay valid until done. */
    default TransferHandle postSend(int peer, FrameHeader header, MemorySegment data) {
        return postSend(peer, header, data, data.byteSize());
    }

    /**
     * Queues a send of which only the first {@code readyBytes} bytes exist yet; the caller raises the mark with
     * {@link TransferHandle#ready(long)} as it produces the rest, in whole elements. The header goes out at once, so
     * the peer learns early what is coming; the payload follows as far as the mark allows. Sends to one peer still
     * leave in posting order.
     */
    TransferHandle postSend(int peer, FrameHeader header, MemorySegment data, long readyBytes);

    /**
     * Expects a frame with header {@code expected} from {@code peer}; its payload goes to {@code sink} in pieces that
     * are multiples of {@code elementBytes}. A different header is a {@link FrameMismatchException}.
     */
    TransferHandle postRecv(int peer, FrameHeader expected, int elementBytes, RecvSink sink);

    /** Moves whatever can move now without blocking; returns a measure of work done (0 = idle). */
    int progress() throws IOException;

    /** Blocks until I/O may be possible, at most {@code maxNanos}. */
    void awaitIo(long maxNanos) throws IOException;

    /** True while a transfer or a connection is pending: whether {@link #awaitIo} has anything to wait for. */
    boolean busy();

    /** Human-readable description of what {@code peer}'s connection is waiting for, for timeouts. */
    String describePending(int peer);

    /** Interrupts an {@link #awaitIo} in progress; safe from any thread. */
    void wakeup();

    /**
     * Tells the peers why this rank is stopping, as far as it can without blocking: the socket transport sends each
     * connection an abandon frame, shared memory marks this rank failed with the reason. Call before {@link #close()};
     * peers that wait on this rank then report the reason instead of a lost connection.
     */
    default void abandon(String reason) {}

    /**
     * Before a clean {@link #close()}: waits, at most until {@code deadlineNanos}, until every peer can still read what
     * this rank sent it, for transports where closing would take that away. Returns early for a peer that stopped; a
     * transport whose sent data outlives its close does nothing.
     */
    default void finishDelivery(long deadlineNanos) {}

    /** Closes every connection; safe from any thread, idempotent. */
    @Override
    void close();
}
