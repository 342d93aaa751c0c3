package dev.jccl.transport.shm;

import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.Outbox;
import dev.jccl.transport.PeerLostException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The outboxes of the rank pages (see {@link ShmLayout}): each rank publishes the data a collective needs from it as
 * numbered chunks in its own outbox, and every local rank reads the chunks it needs in place, straight out of the
 * writer's memory. A chunk's header line carries the flag, the operation's sequence number and signature (so a
 * mismatched call is caught on the first chunk); a small operation is a single chunk, which lies in the header line
 * itself if it is small enough ({@value ShmLayout#SLOT_INLINE_BYTES} bytes), and costs one line crossing between cores.
 * In an operation whose writers run ahead of its readers, a chunk of at most {@value ShmLayout#SMALL_RECORD_BYTES}
 * bytes goes to a small record instead, two to a line, which carries a digest of the operation in place of the header
 * (see {@link ShmLayout}).
 *
 * <p>Flow control: a writer reuses slot {@code g % slots} for chunk {@code g} only once every peer has finished with
 * chunk {@code g - slots}, as its {@code consumed} counter for the writer says; a small record, of which there are
 * more, once they have finished with chunk {@code g - SMALL_RECORDS}. The smallest counter seen is cached, so a writer
 * that keeps ahead of its slowest reader reads the counters once every few chunks, not for every chunk. Readers that do
 * not need a writer's chunks in some operation still advance their counter past them, so the writer never waits for
 * them.
 *
 * <p>Single-threaded per rank, like the transport.
 */
public final class ShmOutbox implements Outbox {
    /**
     * The shortest operation whose chunks a writer publishes by reference, where every reader can read its memory
     * ({@link CrossMemory}): below it a system call per read (1.5 µs here) costs more than the copy it saves.
     */
    public static final long SINGLE_COPY_MIN_BYTES = 16 * 1024;
    /**
     * The longest: beyond it the buffers outgrow the caches and reading a peer's by system call runs slower than the
     * outbox. 2-rank AllReduce, µs a call in the VM's fast phase, by reference against copying (2026-11-29): 256 KiB
     * 26.8 / 30.5, 1 MiB 73 / 71, 4 MiB 334 / 353, 16 MiB 4352 / 2261, 64 MiB 17378 / 9287.
     */
    public static final long SINGLE_COPY_MAX_BYTES = 4L << 20;

    private static final long BOUNCE_BYTES = 256 * 1024;

    private final ShmTransport transport;
    private final RankPages pages;
    private final int rank;
    private final int size;
    private final long[] slotOffset;
    /** Where small record 0 lies; record {@code g % SMALL_RECORDS} holds chunk g when it is small. */
    private final long smallRecords;
    /** {@code slots - 1}: slots are a power of two, so a chunk's slot is a mask away, not a division. */
    private final int slotMask;
    /** Every rank's page, by rank, looked up once: polling a flag is then one load and its bounds check. */
    private final MemorySegment[] page;

    private final MemorySegment mine;
    /** Every peer has finished with at least this many of this rank's chunks. */
    private long knownConsumed;
    /** Whether every peer has said whether it reads by single copy; then {@link #singleCopy} holds their answer. */
    private boolean singleCopyKnown;

    private boolean singleCopy;
    /**
     * Native memory for single-copy reads into a heap destination, which the kernel cannot write; made on first use.
     */
    private MemorySegment bounce;

    ShmOutbox(ShmTransport transport, RankPages pages, int rank, int size) {
        this.transport = transport;
        this.pages = pages;
        this.rank = rank;
        this.size = size;
        if (Integer.bitCount(pages.slots()) != 1) {
            throw new IllegalArgumentException("outbox slots must be a power of two, got " + pages.slots());
        }
        this.slotOffset = new long[pages.slots()];
        this.slotMask = pages.slots() - 1;
        for (int s = 0; s < slotOffset.length; s++) slotOffset[s] = ShmLayout.slotOffset(size, pages.slotBytes(), s);
        this.page = new MemorySegment[size];
        for (int r = 0; r < size; r++) page[r] = pages.page(r);
        this.mine = page[rank];
        this.smallRecords = ShmLayout.smallRecordsOffset(size, pages.slotBytes(), pages.slots());
    }

    /** The most data one chunk carries. */
    @Override
    public int slotBytes() {
        return pages.slotBytes();
    }

    /** How many chunks a writer may have published that not every reader has finished with. */
    @Override
    public int slots() {
        return slotOffset.length;
    }

    private long slot(long chunk) {
        return slotOffset[(int) chunk & slotMask];
    }

    private boolean small(long bytes) {
        return packSmallChunks && bytes <= ShmLayout.SMALL_RECORD_BYTES;
    }

    /** Whether the operation under way puts its small chunks in small records (see {@link #packSmallChunks}). */
    private boolean packSmallChunks;

    @Override
    public void packSmallChunks(boolean pack) {
        packSmallChunks = pack;
    }

    private long smallRecord(long chunk) {
        return smallRecords + (long) ((int) chunk & (ShmLayout.SMALL_RECORDS - 1)) * ShmLayout.SMALL_RECORD;
    }

    /**
     * 64 bits of the operation. Two operations that differ in one of sequence, descriptor and count never share them:
     * with the other two fixed, each step of the mix (a multiplication by an odd constant, an exclusive or, a shift and
     * exclusive or) maps that one field one to one. Operations that differ in more share them once in 2^64 pairs.
     */
    static long digest(long sequence, long descriptor, long count) {
        long h = sequence * 0x9E37_79B9_7F4A_7C15L;
        h = (h ^ descriptor) * 0xC2B2_AE3D_27D4_EB4FL;
        h = (h ^ count) * 0x1656_67B1_9E37_79F9L;
        return h ^ h >>> 29;
    }

    // ---------------------------------------------------------------- writer

    /**
     * True once every peer has finished with the chunk that last held the place of chunk {@code chunk} of
     * {@code bytes}: slot {@code chunk % slots}, or small record {@code chunk % SMALL_RECORDS}.
     */
    @Override
    public boolean canWrite(long chunk, long bytes) {
        return allConsumed(chunk - (small(bytes) ? ShmLayout.SMALL_RECORDS : slotOffset.length) + 1);
    }

    /** Where chunk {@code chunk}'s {@code bytes} lie: in a small record, else its slot's header line or data. */
    private long at(long chunk, long bytes) {
        if (small(bytes)) return smallRecord(chunk) + ShmLayout.SMALL_RECORD_DATA;
        return slot(chunk) + (bytes <= ShmLayout.SLOT_INLINE_BYTES ? ShmLayout.SLOT_INLINE : ShmLayout.SLOT_DATA);
    }

    /**
     * Copies {@code bytes} from {@code src} at {@code srcOffset} into this rank's chunk {@code chunk}
     * ({@link #canWrite} first).
     */
    @Override
    public void write(long chunk, MemorySegment src, long srcOffset, long bytes) {
        MemorySegment.copy(src, srcOffset, mine, at(chunk, bytes), bytes);
    }

    /**
     * Publishes chunk {@code chunk} of {@code bytes}, whose data is written, as part of collective {@code sequence}.
     */
    @Override
    public void publish(long chunk, long bytes, long sequence, long descriptor, long count) {
        MemorySegment p = mine;
        if (small(bytes)) {
            long at = smallRecord(chunk);
            SharedWords.setPlain(p, at + ShmLayout.SMALL_RECORD_DIGEST, digest(sequence, descriptor, count));
            SharedWords.release(p, at + ShmLayout.SMALL_RECORD_FLAG, chunk + 1);
            return;
        }
        publishSlot(chunk, carriesReference(bytes), 0, sequence, descriptor, count);
    }

    /** Whether a chunk of {@code bytes} has a reference word (0: its data follows) in place of inline data. */
    private boolean carriesReference(long bytes) {
        return bytes > ShmLayout.SLOT_INLINE_BYTES && !small(bytes);
    }

    /** Fills chunk {@code chunk}'s slot header, its reference word too if it has one, and raises its flag. */
    private void publishSlot(
            long chunk, boolean hasReference, long reference, long sequence, long descriptor, long count) {
        MemorySegment p = mine;
        long at = slot(chunk);
        if (hasReference) SharedWords.setPlain(p, at + ShmLayout.SLOT_REFERENCE, reference);
        SharedWords.setPlain(p, at + ShmLayout.SLOT_SEQUENCE, sequence);
        SharedWords.setPlain(p, at + ShmLayout.SLOT_DESCRIPTOR, descriptor);
        SharedWords.setPlain(p, at + ShmLayout.SLOT_COUNT, count);
        SharedWords.release(p, at + ShmLayout.SLOT_FLAG, chunk + 1);
    }

    // ---------------------------------------------------------------- single copy

    @Override
    public boolean singleCopyPays(long bytes) {
        return bytes >= SINGLE_COPY_MIN_BYTES && bytes <= SINGLE_COPY_MAX_BYTES;
    }

    @Override
    public boolean singleCopy() {
        if (singleCopyKnown) return singleCopy;
        boolean all = true;
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            long verdict = pages.singleCopyVerdict(r);
            if (verdict == ShmLayout.SINGLE_COPY_UNKNOWN) return false; // it is still trying; ask again next time
            all &= verdict == ShmLayout.SINGLE_COPY_YES;
        }
        singleCopy = all;
        singleCopyKnown = true;
        return all;
    }

    @Override
    public void publishReference(
            long chunk, MemorySegment src, long srcOffset, long bytes, long sequence, long descriptor, long count) {
        if (!src.isNative()) throw new IllegalArgumentException("only native memory is published by reference");
        if (!carriesReference(bytes)) {
            // Too short to carry an address beside it (the tail of an operation): copied, and read as copied.
            write(chunk, src, srcOffset, bytes);
            publish(chunk, bytes, sequence, descriptor, count);
            return;
        }
        Objects.checkFromIndexSize(srcOffset, bytes, src.byteSize());
        publishSlot(chunk, true, src.address() + srcOffset, sequence, descriptor, count);
    }

    @Override
    public long reference(int writer, long chunk, long bytes) {
        if (!carriesReference(bytes)) return 0;
        return SharedWords.plain(page[writer], slot(chunk) + ShmLayout.SLOT_REFERENCE);
    }

    @Override
    public void readReference(int writer, long address, MemorySegment dst, long dstOffset, long bytes)
            throws PeerLostException {
        Objects.checkFromIndexSize(dstOffset, bytes, dst.byteSize());
        if (dst.isReadOnly()) throw new IllegalArgumentException("the receive buffer is read-only");
        long pid = pages.pid(writer);
        if (dst.isNative()) {
            check(writer, CrossMemory.read(pid, dst, dstOffset, address, bytes));
            return;
        }
        if (bounce == null) bounce = Arena.ofAuto().allocate(BOUNCE_BYTES, 64);
        for (long done = 0; done < bytes; ) {
            long n = Math.min(BOUNCE_BYTES, bytes - done);
            check(writer, CrossMemory.read(pid, bounce, 0, address + done, n));
            MemorySegment.copy(bounce, 0, dst, dstOffset + done, n);
            done += n;
        }
    }

    /** A failed single-copy read as the error it is: a lost peer, or a refusal the verdict did not foresee. */
    private void check(int writer, int errno) throws PeerLostException {
        if (errno == 0) return;
        if (errno == CrossMemory.ESRCH) {
            throw new PeerLostException(
                    writer, "its process " + pages.pid(writer) + " is gone (killed or crashed)", null);
        }
        throw new JcclException("rank " + rank + " could not read rank " + writer + "'s buffer by single copy "
                + "(process_vm_readv: " + CrossMemory.errorName(errno) + "). " + Config.SHM_SINGLE_COPY
                + "=0 makes ranks of this host copy through shared memory instead.");
    }

    /**
     * True once every peer has finished with this rank's chunks below {@code chunks}; reads their counters if need be.
     */
    @Override
    public boolean allConsumed(long chunks) {
        if (knownConsumed >= chunks) return true;
        long min = Long.MAX_VALUE;
        for (int r = 0; r < size; r++) {
            if (r != rank) min = Math.min(min, SharedWords.acquire(page[r], ShmLayout.consumedOffset(rank)));
        }
        knownConsumed = Math.max(knownConsumed, min);
        return knownConsumed >= chunks;
    }

    // ---------------------------------------------------------------- reader

    /** True once {@code writer} has published its chunk {@code chunk} of {@code bytes}. */
    @Override
    public boolean published(int writer, long chunk, long bytes) {
        long flag = small(bytes) ? smallRecord(chunk) + ShmLayout.SMALL_RECORD_FLAG : slot(chunk) + ShmLayout.SLOT_FLAG;
        return SharedWords.acquire(page[writer], flag) == chunk + 1;
    }

    /**
     * The memory holding {@code writer}'s outbox; a chunk's data lies in it at {@link #dataOffset(int, long, long)}.
     */
    @Override
    public MemorySegment page(int writer) {
        return page[writer];
    }

    /** Where the {@code bytes} of {@code writer}'s published chunk {@code chunk} lie in {@link #page(int) its page}. */
    @Override
    public long dataOffset(int writer, long chunk, long bytes) {
        return at(chunk, bytes);
    }

    @Override
    public boolean sameOperation(int writer, long chunk, long bytes, long sequence, long descriptor, long count) {
        MemorySegment p = page[writer];
        if (small(bytes)) {
            return SharedWords.plain(p, smallRecord(chunk) + ShmLayout.SMALL_RECORD_DIGEST)
                    == digest(sequence, descriptor, count);
        }
        long at = slot(chunk);
        return SharedWords.plain(p, at + ShmLayout.SLOT_SEQUENCE) == sequence
                && SharedWords.plain(p, at + ShmLayout.SLOT_DESCRIPTOR) == descriptor
                && SharedWords.plain(p, at + ShmLayout.SLOT_COUNT) == count;
    }

    @Override
    public OperationId operationOf(int writer, long chunk, long bytes) {
        if (small(bytes)) {
            return pages.announced(writer);
        }
        MemorySegment p = page[writer];
        long at = slot(chunk);
        return new OperationId(
                SharedWords.plain(p, at + ShmLayout.SLOT_SEQUENCE),
                SharedWords.plain(p, at + ShmLayout.SLOT_DESCRIPTOR),
                SharedWords.plain(p, at + ShmLayout.SLOT_COUNT));
    }

    /** This rank has finished with {@code writer}'s chunks below {@code chunks}; the writer may reuse their slots. */
    @Override
    public void consumed(int writer, long chunks) {
        SharedWords.release(mine, ShmLayout.consumedOffset(writer), chunks);
    }

    // ---------------------------------------------------------------- sleeping and waking

    /**
     * Wakes the ranks marked in {@code which} that may be asleep, after publishing chunks they read or consuming chunks
     * they wrote, and clears the marks. One fence (where wake-ups are fenced, see {@link RankPages#wake}) serves them
     * all.
     */
    @Override
    public void wake(boolean[] which) {
        boolean fence = transport.fencedWakes();
        for (int r = 0; r < which.length; r++) {
            if (!which[r]) continue;
            which[r] = false;
            pages.wake(r, fence);
            fence = false;
        }
    }

    /** The doorbell before the last look for work; see {@link #sleep}. */
    @Override
    public int doorbell() {
        return pages.doorbell();
    }

    /** Raises or lowers this rank's "may be asleep" flag; raised before the last look for work. */
    @Override
    public void sleeping(boolean asleep) {
        pages.sleeping(asleep);
    }

    /**
     * Sleeps until the doorbell no longer reads {@code doorbell}, or {@code maxNanos}, or the transport's cap on
     * sleeps.
     */
    @Override
    public void sleep(int doorbell, long maxNanos) {
        pages.sleep(doorbell, transport.sleepCap(maxNanos));
    }

    // ---------------------------------------------------------------- the peers

    /** A {@link PeerLostException} if {@code r} failed, aborted, closed or died. */
    @Override
    public void checkPeer(int r) throws PeerLostException {
        transport.checkPeer(r);
    }

    @Override
    public void checkPeerStopped(int r) throws PeerLostException {
        transport.checkPeerStopped(r);
    }

    /**
     * An {@link OperationMismatchException} if rank {@code r} says it is in collective {@code sequence} with another
     * signature.
     */
    @Override
    public void checkSameOperation(int r, long sequence, long descriptor, long count)
            throws OperationMismatchException {
        OperationId a = pages.announced(r);
        if (a != null && a.sequence() == sequence && (a.descriptor() != descriptor || a.count() != count)) {
            throw new OperationMismatchException(r, sequence, a.descriptor(), a.count());
        }
    }

    /** True once the transport was closed (abort): the caller must stop touching the outboxes. */
    @Override
    public boolean closed() {
        return transport.isClosed();
    }
}
