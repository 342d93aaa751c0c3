package dev.jccl.transport.shm;

import dev.jccl.transport.Outbox;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * This rank's page and the pages of its local peers (see {@link ShmLayout}): each rank's state, what operation it is
 * in, how many it has finished, and its low-latency slots. The owner writes its page; peers only read it, except for
 * the attach count.
 */
final class RankPages implements AutoCloseable {
    private final int rank;
    private final int slotBytes;
    private final int slots;
    private final ShmSegment[] byRank;

    RankPages(int rank, int slotBytes, int slots, ShmSegment[] byRank) {
        this.rank = rank;
        this.slotBytes = slotBytes;
        this.slots = slots;
        this.byRank = byRank;
    }

    int slotBytes() {
        return slotBytes;
    }

    int slots() {
        return slots;
    }

    int ranks() {
        return byRank.length;
    }

    MemorySegment page(int r) {
        return byRank[r].memory();
    }

    MemorySegment mine() {
        return byRank[rank].memory();
    }

    /** Writes the header of a freshly created page; its state stays INIT until {@link #setState} READY. */
    static void initialise(MemorySegment page, long commId, int rank, int nRanks, int slotBytes, int slots) {
        SharedWords.setPlain(page, ShmLayout.MAGIC_OFFSET, ShmLayout.MAGIC);
        page.set(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET, ShmLayout.VERSION);
        page.set(ValueLayout.JAVA_INT, ShmLayout.SIZE_PARAM_OFFSET, slotBytes);
        page.set(ValueLayout.JAVA_INT, ShmLayout.SLOTS_OFFSET, slots);
        SharedWords.setPlain(page, ShmLayout.PID_OFFSET, ProcessHandle.current().pid());
        SharedWords.setPlain(page, ShmLayout.COMM_OFFSET, commId);
        page.set(ValueLayout.JAVA_INT, ShmLayout.RANK_A_OFFSET, rank);
        page.set(ValueLayout.JAVA_INT, ShmLayout.RANK_B_OFFSET, nRanks);
        SharedWords.setPlain(page, ShmLayout.PAGE_ADDRESS_OFFSET, page.address());
    }

    /** Where rank {@code r} has its own page mapped, in its own memory. */
    long pageAddress(int r) {
        return SharedWords.plain(page(r), ShmLayout.PAGE_ADDRESS_OFFSET);
    }

    /** Publishes this rank's verdict on reading its peers by single copy ({@code ShmLayout.SINGLE_COPY_*}). */
    void singleCopyVerdict(long verdict) {
        SharedWords.release(mine(), ShmLayout.SINGLE_COPY_OFFSET, verdict);
    }

    /** Rank {@code r}'s verdict on reading its peers by single copy; {@code SINGLE_COPY_UNKNOWN} until it has tried. */
    long singleCopyVerdict(int r) {
        return SharedWords.acquire(page(r), ShmLayout.SINGLE_COPY_OFFSET);
    }

    /**
     * Null if {@code page} is a ready page of rank {@code r} of communicator {@code commId}; else what is wrong or
     * missing.
     */
    static String check(MemorySegment page, long commId, int r) {
        if (SharedWords.plain(page, ShmLayout.MAGIC_OFFSET) != ShmLayout.MAGIC) return "not initialised yet";
        if (page.get(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET) != ShmLayout.VERSION) {
            return "layout version " + page.get(ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET) + ", this Jccl uses "
                    + ShmLayout.VERSION;
        }
        if (SharedWords.plain(page, ShmLayout.COMM_OFFSET) != commId
                || page.get(ValueLayout.JAVA_INT, ShmLayout.RANK_A_OFFSET) != r) {
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
     * Tells peers which collective this rank is in, so a peer waiting on it can spot a mismatch. A seqlock: the
     * sequence word reads 0 while the other two change, and {@code sequence + 1} once they hold that operation's
     * values.
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
    Outbox.OperationId announced(int r) {
        MemorySegment p = page(r);
        long before = SharedWords.acquire(p, ShmLayout.ANNOUNCE_SEQ_OFFSET);
        if (before == 0) return null;
        long descriptor = SharedWords.plain(p, ShmLayout.ANNOUNCE_DESC_OFFSET);
        long count = SharedWords.plain(p, ShmLayout.ANNOUNCE_COUNT_OFFSET);
        VarHandle.loadLoadFence();
        long after = SharedWords.plain(p, ShmLayout.ANNOUNCE_SEQ_OFFSET);
        return before == after ? new Outbox.OperationId(before - 1, descriptor, count) : null;
    }

    // ---------------------------------------------------------------- sleeping and waking

    /** The owner's doorbell now: read before looking for work one last time, then passed to {@link #sleep}. */
    int doorbell() {
        return SharedWords.acquireInt(mine(), ShmLayout.DOORBELL_OFFSET);
    }

    /**
     * Says whether the owner may be asleep. Raised before the owner's last look for work and lowered after it wakes; a
     * peer that makes work for the owner and then sees it raised lowers it and rings the doorbell (see {@link #wake}).
     * The store is volatile, so that the owner's last look cannot come before it.
     */
    void sleeping(boolean asleep) {
        SharedWords.setIntVolatile(mine(), ShmLayout.SLEEPING_OFFSET, asleep ? 1 : 0);
        VarHandle.fullFence();
    }

    /**
     * Sleeps until a peer rings the doorbell, if it still reads {@code doorbell}, for at most {@code maxNanos}; parks
     * instead where futexes are not available.
     */
    void sleep(int doorbell, long maxNanos) {
        if (Futex.available()) Futex.await(mine(), ShmLayout.DOORBELL_OFFSET, doorbell, maxNanos);
        else java.util.concurrent.locks.LockSupport.parkNanos(Math.min(maxNanos, 50_000));
    }

    /**
     * Wakes rank {@code r} if it may be asleep; call after publishing what it may wait for. With {@code fenced}, a full
     * fence orders the publication before the look at its flag (the other half of the handshake), so no wake-up is ever
     * lost. The fence waits for this core's pending stores, which after copying a ring piece costs microseconds:
     * measured on a 1 MiB AllReduce of two ranks, fenced wakes after every piece took it from 110 to 160 µs. Without
     * the fence a wake-up can be missed when the peer fell asleep at that very moment; it then sleeps out its bounded
     * sleep, which is what ranks that each have a core accept, since they sleep only after polling for milliseconds.
     */
    void wake(int r, boolean fenced) {
        if (fenced) VarHandle.fullFence();
        MemorySegment p = page(r);
        if (SharedWords.acquireInt(p, ShmLayout.SLEEPING_OFFSET) == 0) return;
        // The waker that lowers the flag rings; those after it see it lowered and need not. Left raised, it made
        // every publication until the owner ran again a system call: a Broadcast root that ran ahead of its sleeping
        // readers made 80,000 futex wakes where its readers slept 1,300 times each.
        if (!SharedWords.compareAndSetInt(p, ShmLayout.SLEEPING_OFFSET, 1, 0)) return;
        SharedWords.getAndAddInt(p, ShmLayout.DOORBELL_OFFSET, 1);
        if (Futex.available()) Futex.wakeAll(p, ShmLayout.DOORBELL_OFFSET);
    }

    void finished(long collectivesDone) {
        SharedWords.release(mine(), ShmLayout.DONE_OFFSET, collectivesDone);
    }

    long done(int r) {
        return SharedWords.acquire(page(r), ShmLayout.DONE_OFFSET);
    }

    @Override
    public void close() {
        for (ShmSegment s : byRank) {
            if (s != null) s.close();
        }
    }
}
