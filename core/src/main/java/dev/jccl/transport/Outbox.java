package dev.jccl.transport;

import java.lang.foreign.MemorySegment;

/**
 * The low-latency (LL) protocol's medium, offered by a transport whose ranks can read each other's memory (shared
 * memory on one host): each rank publishes numbered, flagged chunks in its own outbox, and every other rank reads the
 * chunks it needs in place. The runtime's one-shot collectives run on this interface and know nothing of the memory
 * behind it.
 *
 * <p>Chunk numbers count over the communicator's life per writer. A writer reuses a slot only once every reader has
 * said it is done with the chunk the slot held ({@link #consumed}). Single-threaded per rank, like transports.
 */
public interface Outbox {

    /** The most data one chunk carries. */
    int slotBytes();

    /**
     * How many chunks a writer may have published that not every reader has finished with (at least: short chunks may
     * go further ahead, see {@link #canWrite}).
     */
    int slots();

    /**
     * Whether the operation starting now may put its small chunks several to a cache line: where its writers run ahead
     * of its readers (Broadcast, Reduce), a line then carries several calls; where every rank waits for every other
     * (AllReduce and the rest), the writer of the next chunk would take the line back from readers of this one. Every
     * rank must say the same for an operation; an outbox may ignore it.
     */
    void packSmallChunks(boolean pack);

    // ---------------------------------------------------------------- writer

    /**
     * True once every peer has finished with the chunk whose place chunk {@code chunk}, of {@code bytes}, takes: the
     * one {@link #slots} before it, or further back where the outbox keeps short chunks in a deeper ring of their own.
     */
    boolean canWrite(long chunk, long bytes);

    /**
     * Copies {@code bytes} from {@code src} at {@code srcOffset} into this rank's chunk {@code chunk}
     * ({@link #canWrite} first).
     */
    void write(long chunk, MemorySegment src, long srcOffset, long bytes);

    /**
     * Publishes chunk {@code chunk} of {@code bytes}, whose data is written, as part of collective {@code sequence}
     * with this signature and count.
     */
    void publish(long chunk, long bytes, long sequence, long descriptor, long count);

    // ---------------------------------------------------------------- reader

    /**
     * True once {@code writer} has published its chunk {@code chunk}, which holds {@code bytes}: every reader knows a
     * chunk's length from the operation, and an outbox may keep short chunks apart from long ones.
     */
    boolean published(int writer, long chunk, long bytes);

    /**
     * The memory holding {@code writer}'s outbox; a chunk's data lies in it at {@link #dataOffset(int, long, long)}.
     */
    MemorySegment page(int writer);

    /** Where the {@code bytes} of {@code writer}'s published chunk {@code chunk} lie in {@link #page(int) its page}. */
    long dataOffset(int writer, long chunk, long bytes);

    /**
     * True if {@code writer} published its chunk {@code chunk} of {@code bytes} under this operation: collective
     * sequence number, signature (collective, type, op, root) and element count. False means the ranks called different
     * operations.
     */
    boolean sameOperation(int writer, long chunk, long bytes, long sequence, long descriptor, long count);

    /**
     * For the error when {@link #sameOperation} said no: the operation {@code writer} published chunk {@code chunk}
     * under, or, where the chunk keeps only a digest of it, the one the writer last announced; null if neither says.
     */
    OperationId operationOf(int writer, long chunk, long bytes);

    /**
     * Which operation a rank is in, as chunks and announcements name it: its collective sequence number, signature
     * (collective, type, op, root) and element count.
     */
    record OperationId(long sequence, long descriptor, long count) {}

    /** This rank has finished with {@code writer}'s chunks below {@code chunks}; the writer may reuse their slots. */
    void consumed(int writer, long chunks);

    // ---------------------------------------------------------------- single copy

    /**
     * True if every reader can copy this rank's chunks straight out of its own buffers (see {@link #publishReference});
     * false while some reader has not said, or where none can.
     */
    default boolean singleCopy() {
        return false;
    }

    /** Whether an operation whose writers publish {@code bytes} each is worth publishing by reference. */
    default boolean singleCopyPays(long bytes) {
        return false;
    }

    /**
     * Publishes chunk {@code chunk} of {@code bytes} by reference: readers copy it from {@code src} at
     * {@code srcOffset}, which must stay unchanged until every reader has {@linkplain #allConsumed consumed} it. Only
     * where {@link #singleCopy()}, and only for native memory. A chunk too short to carry an address beside it is
     * copied into the outbox, as {@link #write} and {@link #publish} would.
     */
    default void publishReference(
            long chunk, MemorySegment src, long srcOffset, long bytes, long sequence, long descriptor, long count) {
        throw new UnsupportedOperationException("this outbox has no single copy");
    }

    /** Where {@code writer}'s published chunk {@code chunk} lies in the writer's memory, or 0 if in its outbox. */
    default long reference(int writer, long chunk, long bytes) {
        return 0;
    }

    /**
     * Copies {@code bytes} that {@code writer} published by reference, from {@code address} in its memory, into
     * {@code dst} at {@code dstOffset}.
     */
    default void readReference(int writer, long address, MemorySegment dst, long dstOffset, long bytes)
            throws PeerLostException {
        throw new UnsupportedOperationException("this outbox has no single copy");
    }

    /** True once every reader has finished with this rank's chunks below {@code chunks}. */
    default boolean allConsumed(long chunks) {
        return false;
    }

    // ---------------------------------------------------------------- waiting

    /**
     * Wakes the ranks marked in {@code which} (those with new chunks to read or room to write), and clears the marks.
     */
    void wake(boolean[] which);

    /** The doorbell before the last look for work; see {@link #sleep}. */
    int doorbell();

    /** Raises or lowers this rank's "may be asleep" flag; raised before the last look for work. */
    void sleeping(boolean asleep);

    /**
     * Sleeps until the doorbell no longer reads {@code doorbell}, or {@code maxNanos}, or the transport's cap on
     * sleeps.
     */
    void sleep(int doorbell, long maxNanos);

    // ---------------------------------------------------------------- the peers

    /** A {@link PeerLostException} if {@code r} failed, aborted, closed or died. */
    void checkPeer(int r) throws PeerLostException;

    /**
     * A {@link PeerLostException} if {@code r} failed or aborted (not if it merely closed or has not come): for ranks
     * in the same collective that this rank is not waiting on now, whose failure dooms the collective all the same.
     */
    void checkPeerStopped(int r) throws PeerLostException;

    /**
     * An {@link OperationMismatchException} if rank {@code r} says it is in collective {@code sequence} with another
     * signature.
     */
    void checkSameOperation(int r, long sequence, long descriptor, long count) throws OperationMismatchException;

    /** True once the transport was closed (abort): the caller must stop touching the outboxes. */
    boolean closed();
}
