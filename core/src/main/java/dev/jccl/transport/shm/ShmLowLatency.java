package dev.jccl.transport.shm;

import dev.jccl.transport.PeerLostException;

import java.lang.foreign.MemorySegment;

/**
 * The low-latency slots of the rank pages (see {@link ShmLayout}): each rank publishes its input
 * for a collective in its own slot and raises the slot's flag; every local rank reads what it
 * needs straight from the others' slots. One cache line carries the flag, the operation's
 * signature and the first bytes of data, so a small operation costs one line crossing cores.
 *
 * <p>Two slots per rank, used by even and odd sequence numbers. A rank may rewrite its slot for
 * collective {@code s} only when every peer has finished collective {@code s - 2}, the last one
 * that read it: usually known already (a peer that published {@code s - 1} had finished
 * {@code s - 2}), otherwise read from the peers' done counters.
 */
public final class ShmLowLatency {
    private final ShmTransport transport;
    private final RankPages pages;
    private final int rank;
    private final int size;
    private final long[] slotOffset = new long[2];
    /** Every peer is known to have finished at least this many collectives. */
    private long knownAllDone;

    ShmLowLatency(ShmTransport transport, RankPages pages, int rank, int size) {
        this.transport = transport;
        this.pages = pages;
        this.rank = rank;
        this.size = size;
        slotOffset[0] = ShmLayout.llSlotOffset(pages.llSlotBytes(), 0);
        slotOffset[1] = ShmLayout.llSlotOffset(pages.llSlotBytes(), 1);
    }

    public int slotBytes() {
        return pages.llSlotBytes();
    }

    /** The data area of rank {@code r}'s slot for collective {@code sequence}. */
    public MemorySegment data(int r, long sequence, long bytes) {
        return pages.page(r).asSlice(slotOffset[(int) (sequence & 1)] + ShmLayout.LL_DATA, bytes);
    }

    /** True once this rank may write its slot for {@code sequence}. */
    public boolean mayWrite(long sequence) {
        if (knownAllDone >= sequence - 1) return true;
        long min = Long.MAX_VALUE;
        for (int r = 0; r < size; r++) if (r != rank) min = Math.min(min, pages.done(r));
        knownAllDone = Math.max(knownAllDone, min);
        return knownAllDone >= sequence - 1;
    }

    /** Publishes this rank's slot for {@code sequence}; its data must be written already. */
    public void publish(long sequence, long descriptor, long count, long length) {
        MemorySegment p = pages.mine();
        long slot = slotOffset[(int) (sequence & 1)];
        SharedWords.setPlain(p, slot + ShmLayout.LL_DESCRIPTOR, descriptor);
        SharedWords.setPlain(p, slot + ShmLayout.LL_COUNT, count);
        SharedWords.setPlain(p, slot + ShmLayout.LL_LENGTH, length);
        SharedWords.release(p, slot + ShmLayout.LL_FLAG, sequence + 1);
    }

    /** True once rank {@code r} has published its slot for {@code sequence}. */
    public boolean published(int r, long sequence) {
        return SharedWords.acquire(pages.page(r), slotOffset[(int) (sequence & 1)] + ShmLayout.LL_FLAG) == sequence + 1;
    }

    public long descriptor(int r, long sequence) {
        return SharedWords.plain(pages.page(r), slotOffset[(int) (sequence & 1)] + ShmLayout.LL_DESCRIPTOR);
    }

    public long count(int r, long sequence) {
        return SharedWords.plain(pages.page(r), slotOffset[(int) (sequence & 1)] + ShmLayout.LL_COUNT);
    }

    /** Every peer has published collective {@code sequence}, so each has finished the one before. */
    public void sawEveryPeer(long sequence) {
        knownAllDone = Math.max(knownAllDone, sequence);
    }

    /**
     * An {@link dev.jccl.transport.OperationMismatchException} if rank {@code r} says it is in
     * collective {@code sequence} with another signature than {@code descriptor} × {@code count}.
     */
    public void checkSameOperation(int r, long sequence, long descriptor, long count) throws dev.jccl.transport.OperationMismatchException {
        RankPages.Announcement a = pages.announced(r);
        if (a != null && a.sequence() == sequence && (a.descriptor() != descriptor || a.count() != count)) {
            throw new dev.jccl.transport.OperationMismatchException(r, sequence, a.descriptor(), a.count());
        }
    }

    /** A {@link PeerLostException} if {@code r} failed, aborted, closed or died. */
    public void checkPeer(int r) throws PeerLostException {
        transport.checkPeer(r);
    }

    /** True once the transport was closed (abort): the caller must stop touching the slots. */
    public boolean closed() {
        return transport.isClosed();
    }
}
