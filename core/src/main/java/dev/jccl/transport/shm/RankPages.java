package dev.jccl.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * This rank's page and the pages of its local peers (see {@link ShmLayout}): each rank's state,
 * what operation it is in, how many it has finished, and its low-latency slots. The owner writes
 * its page; peers only read it, except for the attach count.
 */
final class RankPages implements AutoCloseable {
    private final int rank;
    private final int llSlotBytes;
    private final ShmSegment[] byRank;

    RankPages(int rank, int llSlotBytes, ShmSegment[] byRank) {
        this.rank = rank;
        this.llSlotBytes = llSlotBytes;
        this.byRank = byRank;
    }

    int llSlotBytes() {
        return llSlotBytes;
    }

    MemorySegment page(int r) {
        return byRank[r].memory();
    }

    MemorySegment mine() {
        return byRank[rank].memory();
    }

    /** Writes the header of a freshly created page; its state stays INIT until {@link #setState} READY. */
    static void initialise(MemorySegment page, long commId, int rank, int nRanks, int llSlotBytes) {
        SharedWords.setPlain(page, ShmLayout.MAGIC_OFFSET, ShmLayout.MAGIC);
        page.set(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET, ShmLayout.VERSION);
        page.set(ValueLayout.JAVA_INT, ShmLayout.SIZE_PARAM_OFFSET, llSlotBytes);
        SharedWords.setPlain(page, ShmLayout.PID_OFFSET, ProcessHandle.current().pid());
        SharedWords.setPlain(page, ShmLayout.COMM_OFFSET, commId);
        page.set(ValueLayout.JAVA_INT, ShmLayout.RANK_A_OFFSET, rank);
        page.set(ValueLayout.JAVA_INT, ShmLayout.RANK_B_OFFSET, nRanks);
    }

    /** Null if {@code page} is a ready page of rank {@code r} of communicator {@code commId}; else what is wrong or missing. */
    static String check(MemorySegment page, long commId, int r) {
        if (SharedWords.plain(page, ShmLayout.MAGIC_OFFSET) != ShmLayout.MAGIC) return "not initialised yet";
        if (page.get(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET) != ShmLayout.VERSION) {
            return "layout version " + page.get(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET) + ", this Jccl uses " + ShmLayout.VERSION;
        }
        if (SharedWords.plain(page, ShmLayout.COMM_OFFSET) != commId || page.get(ValueLayout.JAVA_INT, ShmLayout.RANK_A_OFFSET) != r) {
            return "belongs to another communicator or rank";
        }
        return SharedWords.acquire(page, ShmLayout.STATE_OFFSET) == ShmLayout.STATE_INIT ? "not initialised yet" : null;
    }

    static void setState(MemorySegment page, long state) {
        SharedWords.release(page, ShmLayout.STATE_OFFSET, state);
    }

    long state(int r) {
        return SharedWords.acquire(page(r), ShmLayout.STATE_OFFSET);
    }

    /** Records why this rank failed, then marks it FAILED, so that peers can report the reason. */
    void fail(String reason) {
        MemorySegment p = mine();
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, ShmLayout.REASON_MAX_BYTES);
        MemorySegment.copy(MemorySegment.ofArray(text), 0, p, ShmLayout.REASON_OFFSET, n);
        p.set(ValueLayout.JAVA_INT, ShmLayout.REASON_LENGTH_OFFSET, n);
        setState(p, ShmLayout.STATE_FAILED);
    }

    String reason(int r) {
        MemorySegment p = page(r);
        int n = Math.clamp(p.get(ValueLayout.JAVA_INT, ShmLayout.REASON_LENGTH_OFFSET), 0, ShmLayout.REASON_MAX_BYTES);
        byte[] text = new byte[n];
        MemorySegment.copy(p, ShmLayout.REASON_OFFSET, MemorySegment.ofArray(text), 0, n);
        return new String(text, StandardCharsets.UTF_8);
    }

    long pid(int r) {
        return SharedWords.plain(page(r), ShmLayout.PID_OFFSET);
    }

    long attached() {
        return SharedWords.acquire(mine(), ShmLayout.ATTACHED_OFFSET);
    }

    static void attach(MemorySegment page) {
        SharedWords.getAndAdd(page, ShmLayout.ATTACHED_OFFSET, 1);
    }

    /**
     * Tells peers which collective this rank is in, so a peer waiting on it can spot a mismatch.
     * A seqlock: the sequence word reads 0 while the other two change, and {@code sequence + 1}
     * once they hold that operation's values.
     */
    void announce(long sequence, long descriptor, long count) {
        MemorySegment p = mine();
        SharedWords.release(p, ShmLayout.ANNOUNCE_SEQ_OFFSET, 0);
        VarHandle.storeStoreFence();
        SharedWords.setPlain(p, ShmLayout.ANNOUNCE_DESC_OFFSET, descriptor);
        SharedWords.setPlain(p, ShmLayout.ANNOUNCE_COUNT_OFFSET, count);
        SharedWords.release(p, ShmLayout.ANNOUNCE_SEQ_OFFSET, sequence + 1);
    }

    /** What rank {@code r} announced last, read consistently; null if nothing yet or it is changing right now. */
    Announcement announced(int r) {
        MemorySegment p = page(r);
        long before = SharedWords.acquire(p, ShmLayout.ANNOUNCE_SEQ_OFFSET);
        if (before == 0) return null;
        long descriptor = SharedWords.plain(p, ShmLayout.ANNOUNCE_DESC_OFFSET);
        long count = SharedWords.plain(p, ShmLayout.ANNOUNCE_COUNT_OFFSET);
        VarHandle.loadLoadFence();
        long after = SharedWords.plain(p, ShmLayout.ANNOUNCE_SEQ_OFFSET);
        return before == after ? new Announcement(before - 1, descriptor, count) : null;
    }

    /** A rank's current collective: its sequence number, signature and count. */
    record Announcement(long sequence, long descriptor, long count) {}

    void finished(long collectivesDone) {
        SharedWords.release(mine(), ShmLayout.DONE_OFFSET, collectivesDone);
    }

    long done(int r) {
        return SharedWords.acquire(page(r), ShmLayout.DONE_OFFSET);
    }

    @Override
    public void close() {
        for (ShmSegment s : byRank) if (s != null) s.close();
    }
}
