package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.concurrent.IdleStrategy;
import dev.jccl.plan.Collective;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.Outbox;
import dev.jccl.transport.Outbox.OperationId;
import dev.jccl.transport.PeerLostException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The one-shot collectives of the LL protocol, for communicators whose ranks all share memory: every rank publishes
 * what the others need from it, in chunks, in its own {@link Outbox}, and reads what it needs from the others' outboxes
 * in place, computing its own result (reductions in rank order, so every rank gets the same bits). One round of
 * publishing instead of a ring's 2(P-1) steps: a small operation is a copy, a flag, a wait on a flag and a reduce; a
 * large one streams, each rank reading chunks as their writers publish them.
 *
 * <pre>
 * collective     each rank publishes          each rank reads
 * AllReduce      its input                    every rank's chunk j, reduced in rank order
 *                                             (its own too, from its outbox)
 * Reduce         its input                    the root: as AllReduce; the others: nothing
 * ReduceScatter  its whole input              the chunks holding its own block, from every rank
 * AllGather      its input                    every other rank's input
 * AllToAll       its whole input              its own block of every other rank's input
 * Broadcast      the root: its input          the root's input
 * </pre>
 *
 * <p>Why one round matters most where ranks outnumber cores: a ring step needs its two ends running at once, so with
 * four ranks on two cores every step waits for a time slice; here a rank does all it can whenever it runs.
 *
 * <p>An operation is an {@link Operation}: {@link Operation#doWork()} does what can be done now and never waits, so the
 * same operation can be started on the caller's thread and finished on the progress thread (see {@link #tryInline}).
 * Waiting follows the communicator's {@link WaitPolicy}; once a waiter blocks it checks now and then that the peers it
 * waits for are alive and in the same operation, until the deadline. Operations of one communicator never overlap, so
 * one {@code Operation} object serves them all, and starting one allocates nothing.
 */
final class LowLatencyCollectives {
    private static final long MAX_SLEEP_NANOS = 5_000_000;
    private static final long CHECK_INTERVAL_NANOS = 5_000_000;
    /**
     * Bytes a rank publishes up to which an operation's own work takes well under a microsecond: reading 4 ranks' 1 KiB
     * and reducing it takes about 0.2 µs here (the kernels run at 10-20 GB/s).
     */
    static final long AT_ONCE_MAX_BYTES = 1024;
    /**
     * Idle rounds (spins: about 50 ns each here) a wait may last before it counts as one, reading the clock: ranks that
     * run in step wait less than that for each other. Only where ranks have a CPU each: a rank that shares one yields
     * from its first idle round, and any wait of it counts.
     */
    static final int SHORT_WAIT_SPINS = 64;

    private final Outbox box;
    private final int rank;
    private final int size;
    private final Failures failures;
    /** Each rank's next outbox chunk number, as every rank counts them. */
    private final long[] nextChunk;
    /**
     * The most chunks a reduction reads from each peer by reference in one system call: 256 KiB, which two scratch
     * buffers, this rank's input and its result still leave in a core's L2 (1 MiB here).
     */
    static final int REDUCE_RUN_CHUNKS = 8;

    /** {@link Operation#source}'s scratch index for a peer's bytes read straight into the result, where allowed. */
    private static final int INTO_RESULT = -1;

    /** Where a reduction reads peers' chunks published by reference; made on first use, two for the first step. */
    private final MemorySegment[] scratch = new MemorySegment[2];

    private MemorySegment scratch(int i) {
        if (scratch[i] == null) scratch[i] = Arena.ofAuto().allocate((long) REDUCE_RUN_CHUNKS * box.slotBytes(), 64);
        return scratch[i];
    }

    /** Idle rounds of {@link #finish} after which an operation counts as having waited. */
    private final int shortWaitRounds;
    /** Whether {@link #tryInline} yields its CPU between looks (ranks share CPUs) rather than spinning. */
    private final boolean yieldWhileWaiting;
    /**
     * Whether writers may publish by reference ({@link Outbox#publishReference}): only where ranks have a CPU each. A
     * writer that publishes by reference must wait for every reader before it returns; where ranks share CPUs that wait
     * costs a time slice, and a writer that copies into its outbox and runs ahead does better. 4 ranks on 2 CPUs, 64
     * KiB, µs a call, 2026-11-28: Broadcast 21.6-22.4 by reference, 9.0-11.3 copying (Open MPI 20.9-21.3); AllGather
     * 23.4-29.1 against 9.5-22.5 (Open MPI 52.6-68.8). On 2 ranks it is the other way round: Broadcast 7.9-9.3 by
     * reference against 6.1 in the VM's fast phase and 29.9-31.4 in its slow one (Open MPI 7.0-9.0). The copying 4-rank
     * Broadcast of 64 KiB (-z 2) runs at one of two levels, 6-10 µs or 23-63, that follow the VM's phase: a cache-line
     * watch every 0.5 s (bench/core_probe.c) read 55-113 ns beside each of 8 fast rows of one run and 384-453 ns beside
     * each of 4 slow ones, seconds apart (2026-12-08; Open MPI 20.6-25.1 fast, 34-37 slow). In the slow phase the
     * root's copy into its outbox, over lines the readers on the other CPU hold, takes 22-32 µs a call instead of 6
     * (the copy stub has 92% of its samples), whatever the placement: pinned alone on one CPU with the readers on the
     * other it read both levels. Readers then catch up and take each chunk as it is published.
     */
    private final boolean singleCopyAllowed;

    private final Operation operation;
    /** The waiter of the thread that finishes operations; reused, since operations never overlap. */
    private final Waiter waiter;

    /** Gives an operation that started with an earlier one's start time its own (see {@link #restamp}). */
    interface StartClock {
        OpContext restamp(OpContext ctx, long nowNanos);
    }

    private final StartClock startClock;
    private final long timeoutNanos;

    LowLatencyCollectives(
            Outbox box,
            int rank,
            int size,
            Failures failures,
            WaitPolicy policy,
            StartClock startClock,
            long timeoutNanos) {
        this.box = box;
        this.startClock = startClock;
        this.timeoutNanos = timeoutNanos;
        this.rank = rank;
        this.size = size;
        this.failures = failures;
        this.nextChunk = new long[size];
        this.operation = new Operation();
        this.waiter = new Waiter(policy);
        // Where ranks share CPUs a waiter yields from its first idle round, and a yield may last a time slice.
        this.shortWaitRounds = policy.spinNanos() > 0 ? SHORT_WAIT_SPINS : 1;
        this.yieldWhileWaiting = policy.spinNanos() == 0;
        this.singleCopyAllowed = !policy.oversubscribed();
    }

    /**
     * Runs one operation to its end on this thread; true if it {@link Operation#endedAtOnce ended at once}.
     * {@code startReused}: its start time is an earlier operation's (see {@code Sequencer.CLOCK_REUSE_MAX}), and so is
     * {@code deadlineNanos} until it waits.
     */
    boolean run(OpContext ctx, MemorySegment send, MemorySegment recv, long deadlineNanos, boolean startReused) {
        Operation op = start(ctx, send, recv, startReused);
        finish(op, deadlineNanos);
        return op.endedAtOnce();
    }

    /**
     * Starts an operation; the previous one must have finished. Nothing is published yet: the first
     * {@link Operation#doWork} does that.
     */
    Operation start(OpContext ctx, MemorySegment send, MemorySegment recv, boolean startReused) {
        operation.start(ctx, send, recv);
        operation.startReused = startReused;
        return operation;
    }

    /**
     * An operation that took an earlier one's start time waits beyond a short spin: what is reported and recorded of it
     * from now on starts at {@code nowNanos}, a few microseconds after it really started.
     */
    private void restamp(Operation op, long nowNanos) {
        op.startReused = false;
        op.ctx = startClock.restamp(op.ctx, nowNanos);
    }

    /**
     * Advances {@code op} on the caller's thread without blocking, waiting at most {@code waitNanos} for peers:
     * spinning where ranks have a CPU each, yielding it between looks where they share CPUs (the peers need it to
     * publish what this rank waits for). True if it finished (its result is in place). What is left is for
     * {@link #finish} on any thread.
     */
    boolean tryInline(Operation op, long waitNanos) {
        try {
            long start = 0;
            for (int idle = 0; ; ) {
                if (op.doWork() > 0) {
                    idle = 0;
                } else if (op.done()) {
                    op.end();
                    return true;
                } else {
                    // The clock is first read after shortWaitRounds: most waits between ranks in step end sooner,
                    // and a read costs 21 ns here, a tenth of an 8-byte AllReduce.
                    while (!op.mayMove()) {
                        if (++idle % shortWaitRounds == 0) {
                            long now = System.nanoTime();
                            if (idle == shortWaitRounds) {
                                start = now;
                                op.waited = true;
                                if (op.startReused) restamp(op, now);
                            } else if (now - start >= waitNanos) {
                                return false;
                            }
                        }
                        if (yieldWhileWaiting) Thread.yield();
                        else Thread.onSpinWait();
                    }
                }
            }
        } catch (IllegalStateException e) {
            throw closedUnderUs(op.ctx, e);
        }
    }

    /** Runs {@code op} to its end on this thread, waiting as the policy says, until {@code deadlineNanos}. */
    void finish(Operation op, long deadlineNanos) {
        try {
            waiter.start(op.ctx, deadlineNanos);
            int idleRounds = 0;
            while (true) {
                if (op.doWork() > 0) {
                    waiter.worked();
                } else if (op.done()) {
                    break;
                } else {
                    // Poll just the flag the operation waits for: a spinning waiter sees it change within nanoseconds.
                    while (!op.mayMove()) {
                        if (++idleRounds >= shortWaitRounds) {
                            op.waited = true;
                            if (op.startReused) waiter.ownStart(op, System.nanoTime());
                        }
                        waiter.idle(op);
                    }
                }
            }
            waiter.worked();
            op.end();
        } catch (IllegalStateException e) {
            throw closedUnderUs(op.ctx, e);
        }
    }

    /** The outboxes were unmapped under us: the communicator was aborted or closed. */
    private JcclException closedUnderUs(OpContext ctx, IllegalStateException e) {
        return new JcclException(
                "rank " + rank + ": " + ctx.describe() + " stopped: the communicator was closed or aborted", e);
    }

    /** One operation as this rank sees it: what each rank publishes, what this rank reads, and how far it got. */
    final class Operation {
        OpContext ctx;
        private Collective collective;
        private int root;
        private long block;
        private long stream;
        private long slot;
        private long chunks;
        private ReduceKernel kernel;
        private MemorySegment send;
        private MemorySegment recv;
        private boolean reduceMode;
        private long sequence;
        private long descriptor;
        private long count;
        /** Each writer's first chunk number in this operation. */
        private final long[] base = new long[size];
        /** Gather mode: chunks of each writer's stream done. */
        private final long[] read = new long[size];
        /** Whether {@link #ctx}'s start time is an earlier operation's, not yet replaced by its own. */
        private boolean startReused;

        /** Peers to wake at the end of a round: readers of chunks just published, writers of chunks just consumed. */
        private final boolean[] toWake = new boolean[size];

        private long mine;
        /**
         * The writer whose chunk {@link #doWork} found missing first, and that chunk; -1 if it waits only for room in
         * its outbox.
         */
        private int awaitedWriter;

        private long awaitedChunk;
        private long awaitedBytes;
        /**
         * Whether this rank waited beyond a short spin at some point of the operation: {@link #SHORT_WAIT_SPINS} idle
         * rounds, or any idle round of {@link #finish} where ranks share CPUs.
         */
        private boolean waited;

        private long published;
        /** Reduce mode: chunks of every stream done. */
        private long reduced;
        /**
         * Whether this rank publishes its chunks by reference: its readers copy them straight out of {@link #send} (see
         * {@link Outbox#publishReference}), and the operation ends only once they all have.
         */
        private boolean byReference;
        /** By reference: every reader has copied this rank's chunks, so {@link #send} is the caller's again. */
        private boolean referencesReleased;
        /**
         * The Broadcast root's copy from {@link #send} to {@link #recv} (out of place) is still to be made. The root
         * reads nothing, so its first {@link #doWork} publishes first and copies after, while the readers read: a
         * 2-rank 64 KiB Broadcast went from 8.0-9.2 µs to 6.6-7.6 (2026-11-29, 4 runs each, interleaved). The ranks of
         * AllGather and AllToAll copy their own block at the start as before: they read their peers too, and that read,
         * not their publishing, bounds the operation; deferring their copy measured slower (AllGather 64 KiB 5.1-6.1 µs
         * against 5.8-6.7).
         */
        private boolean ownPartPending;

        void start(OpContext ctx, MemorySegment send, MemorySegment recv) {
            this.ctx = ctx;
            this.collective = ctx.collective();
            this.root = ctx.root();
            this.block = ctx.count() * ctx.type().byteSize();
            this.stream = switch (collective) {
                case REDUCE_SCATTER, ALL_TO_ALL -> block * size;
                default -> block;
            };
            this.slot = box.slotBytes();
            // Most operations are one chunk, and a 64-bit division costs more than the rest of this line.
            this.chunks = stream <= slot ? (stream == 0 ? 0 : 1) : Math.ceilDiv(stream, slot);
            this.kernel = ctx.op() == null ? null : ReduceKernels.forOperationBytes(ctx.type(), ctx.op(), stream);
            this.send = send;
            this.recv = recv;
            this.reduceMode = collective == Collective.ALL_REDUCE
                    || collective == Collective.REDUCE_SCATTER
                    || collective == Collective.REDUCE && rank == root;
            this.sequence = ctx.sequence();
            this.descriptor = ctx.descriptor();
            this.count = ctx.count();
            // Only the writers of these run ahead of their readers: the root of a Broadcast, the non-roots of a Reduce.
            box.packSmallChunks(collective == Collective.BROADCAST || collective == Collective.REDUCE);
            for (int w = 0; w < size; w++) { // loops: for a few ranks the library calls cost more than the work
                base[w] = nextChunk[w];
                read[w] = 0;
            }
            this.mine = chunksOf(rank);
            // Gathering collectives only: their readers copy a chunk as it is, where a reduction reads it in place.
            this.byReference = singleCopyAllowed
                    && size > 1
                    && mine > 0
                    && referencesAllowed()
                    && box.singleCopyPays(stream)
                    && send.isNative()
                    && box.singleCopy();
            this.referencesReleased = false;
            this.published = 0;
            this.reduced = 0;
            this.waited = false;
            // Chunks this rank will never read are finished with at once, so their writers need not wait for it.
            for (int w = 0; w < size; w++) {
                if (w != rank && !reads(w)) box.consumed(w, base[w] + chunksOf(w));
            }
            this.ownPartPending = collective == Collective.BROADCAST && rank == root && !Memory.same(send, recv);
            if (!ownPartPending) copyOwnPart();
        }

        /** Chunks {@code writer} publishes: all of its stream, but only the root does in a Broadcast. */
        private long chunksOf(int writer) {
            return collective == Collective.BROADCAST && writer != root ? 0 : chunks;
        }

        /** True if this rank reads {@code writer}'s chunks at all. */
        private boolean reads(int writer) {
            return switch (collective) {
                case BROADCAST -> writer == root && rank != root;
                case REDUCE -> rank == root;
                case ALL_GATHER, ALL_TO_ALL -> writer != rank;
                default -> true;
            };
        }

        /**
         * True if chunk {@code j} of a stream holds bytes this rank needs (ReduceScatter and AllToAll need one block of
         * it).
         */
        private boolean needs(long j) {
            if (collective != Collective.REDUCE_SCATTER && collective != Collective.ALL_TO_ALL) return true;
            long from = j * slot;
            long to = Math.min(stream, from + slot);
            return to > rank * block && from < (rank + 1) * block;
        }

        /** Bytes in chunk {@code j} of a stream. */
        private long length(long j) {
            return Math.min(slot, stream - j * slot);
        }

        /**
         * True if this operation, finished, published at most {@link #AT_ONCE_MAX_BYTES} and never waited beyond a
         * short spin: it then took a few microseconds at most, and the flight recorder need not time its end (see
         * {@link FlightRecorder#endedAtOnce}).
         */
        boolean endedAtOnce() {
            return !waited && stream <= AT_ONCE_MAX_BYTES;
        }

        /** True once this rank has published all it publishes and read all it reads. */
        boolean done() {
            if (ownPartPending || published < mine || !referencesReleased()) return false;
            if (reduceMode) return reduced == chunks;
            for (int w = 0; w < size; w++) {
                if (w != rank && reads(w) && read[w] < chunksOf(w)) return false;
            }
            return true;
        }

        /**
         * Publishes what the outbox has room for, reads and reduces what the peers have published, and wakes the peers
         * this made work for; never waits. Returns how many chunks it published or finished reading (0: nothing could
         * move).
         */
        int doWork() {
            int work = 0;
            awaitedWriter = -1;
            // Publish as far as the readers (and, reducing, this rank itself, which reads its own chunks) allow.
            while (published < mine
                    && (!reduceMode || published - reduced < box.slots())
                    && box.canWrite(base[rank] + published, length(published))) {
                long g = base[rank] + published;
                if (byReference) {
                    box.publishReference(g, send, published * slot, length(published), sequence, descriptor, count);
                } else {
                    box.write(g, send, published * slot, length(published));
                    box.publish(g, length(published), sequence, descriptor, count);
                }
                published++;
                work++;
                for (int w = 0; w < size; w++) toWake[w] |= w != rank;
            }
            if (reduceMode) {
                while (reduced < chunks && (!needs(reduced) || firstUnpublished(reduced) < 0)) {
                    long next = reduced + 1;
                    if (needs(reduced)) next = reduceRun(reduced);
                    work += (int) (next - reduced);
                    reduced = next;
                    for (int w = 0; w < size; w++) {
                        if (w == rank) continue;
                        box.consumed(w, base[w] + reduced);
                        toWake[w] = true;
                    }
                }
            } else {
                for (int w = 0; w < size; w++) {
                    if (w == rank || !reads(w)) continue;
                    long theirs = chunksOf(w);
                    while (read[w] < theirs
                            && (!needs(read[w]) || box.published(w, base[w] + read[w], length(read[w])))) {
                        long j = read[w];
                        long next = j + 1;
                        if (needs(j)) {
                            long address = box.reference(w, base[w] + j, length(j));
                            if (address == 0) copyChunk(w, j);
                            else next = copyReferenced(w, j, address);
                        }
                        work += (int) (next - j);
                        read[w] = next;
                        box.consumed(w, base[w] + next);
                        toWake[w] = true;
                    }
                    if (read[w] < theirs && awaitedWriter < 0) {
                        awaitedWriter = w;
                        awaitedChunk = base[w] + read[w];
                        awaitedBytes = length(read[w]);
                    }
                }
            }
            if (work > 0) box.wake(toWake);
            if (ownPartPending) {
                // Last: the readers start on what the root published before it copies.
                ownPartPending = false;
                copyOwnPart();
                work++;
            }
            return work;
        }

        /** The operation as reported: its start time is its own once it waited (see {@link #restamp}). */
        OpContext context() {
            return ctx;
        }

        /** Ends a finished operation: the chunk counts move on, and AVG divides. */
        void end() {
            for (int w = 0; w < size; w++) nextChunk[w] = base[w] + chunksOf(w);
            if (ctx.op() == ReduceOp.AVG && (collective != Collective.REDUCE || rank == root)) {
                ReduceKernels.divideBySize(recv, 0, recv.byteSize() / ctx.type().byteSize(), ctx.type(), size);
            }
            send = null;
            recv = null;
        }

        /** What this rank contributes to its own result without the outboxes: its own block, copied directly. */
        private void copyOwnPart() {
            switch (collective) {
                case ALL_GATHER -> {
                    MemorySegment mine = recv.asSlice(rank * block, block);
                    if (!Memory.same(send, mine)) MemorySegment.copy(send, 0, mine, 0, block);
                }
                case ALL_TO_ALL -> {
                    MemorySegment from = send.asSlice(rank * block, block);
                    MemorySegment to = recv.asSlice(rank * block, block);
                    if (!Memory.same(from, to)) MemorySegment.copy(from, 0, to, 0, block);
                }
                case BROADCAST -> {
                    if (rank == root && !Memory.same(send, recv)) MemorySegment.copy(send, 0, recv, 0, block);
                }
                default -> {}
            }
        }

        /** The first rank whose chunk {@code j} is not published yet (noting it as awaited), or -1 if all are. */
        private int firstUnpublished(long j) {
            for (int w = 0; w < size; w++) {
                if (w == rank ? published <= j : !box.published(w, base[w] + j, length(j))) {
                    if (w != rank) {
                        awaitedWriter = w;
                        awaitedChunk = base[w] + j;
                        awaitedBytes = length(j);
                    }
                    return w;
                }
            }
            return -1;
        }

        /**
         * After a {@link #doWork} that moved nothing: true once something it waits for has changed, looking first at
         * the flag it found missing, so that a waiter spins on one word. Every other way forward is looked at too: the
         * other writers' next chunks and room in this rank's outbox. Watching only one would deadlock a multi-chunk
         * operation, where the awaited writer waits for room that this rank gives only by reading another writer or
         * publishing its own next chunk.
         */
        boolean mayMove() {
            if (awaitedWriter >= 0 && box.published(awaitedWriter, awaitedChunk, awaitedBytes)) return true;
            if (byReference && !referencesReleased && referencesReleased()) return true;
            if (published < mine
                    && (!reduceMode || published - reduced < box.slots())
                    && box.canWrite(base[rank] + published, length(published))) {
                return true;
            }
            if (reduceMode) return false;
            for (int w = 0; w < size; w++) {
                if (w != rank
                        && w != awaitedWriter
                        && reads(w)
                        && read[w] < chunksOf(w)
                        && box.published(w, base[w] + read[w], length(read[w]))) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Chunk {@code j} of every rank's stream and, where every rank published by reference, the later ones published
         * so far (up to {@link #REDUCE_RUN_CHUNKS}), reduced in rank order into this rank's part of the result (see
         * {@link #source} for where each rank's bytes are read). Returns the first chunk it did not reduce.
         */
        private long reduceRun(long j) {
            long end = j + 1;
            while (byReference
                    && end < chunks
                    && end - j < REDUCE_RUN_CHUNKS
                    && needs(end)
                    && published > end
                    && continuesRun(j, end)) {
                end++;
            }
            long from = j * slot;
            long to = Math.min(stream, end * slot);
            // The bytes of the run this rank's result holds, and where they go in recv.
            long lo = from;
            long hi = to;
            long recvOffset = from;
            if (collective == Collective.REDUCE_SCATTER) {
                lo = Math.max(from, rank * block);
                hi = Math.min(to, (rank + 1) * block);
                recvOffset = lo - rank * block;
            }
            for (long k = j; k < end; k++) {
                for (int w = 0; w < size; w++) check(w, base[w] + k, length(k));
            }
            long elements = (hi - lo) / ctx.type().byteSize();
            long skip = lo - from;
            // The first peer of the first two is read straight into the result where that holds none of this rank's
            // input: the kernel then reduces into memory the read just brought into cache, and no scratch is written.
            boolean firstIsPeer = rank != 0;
            MemorySegment first = source(0, j, skip, hi - lo, firstIsPeer ? INTO_RESULT : 0, recvOffset);
            long firstOffset = located;
            MemorySegment second = source(1, j, skip, hi - lo, firstIsPeer ? 1 : INTO_RESULT, recvOffset);
            kernel.apply(first, firstOffset, second, located, recv, recvOffset, elements);
            for (int w = 2; w < size; w++) {
                MemorySegment next = source(w, j, skip, hi - lo, w & 1, recvOffset);
                kernel.apply(recv, recvOffset, next, located, recv, recvOffset, elements);
            }
            return end;
        }

        /** Where in the memory {@link #source} last returned its bytes begin. */
        private long located;

        /** True if every peer has published chunk {@code k} by reference, right after its chunk {@code j}'s bytes. */
        private boolean continuesRun(long j, long k) {
            for (int w = 0; w < size; w++) {
                if (w == rank) continue;
                if (!box.published(w, base[w] + k, length(k))) return false;
                long first = box.reference(w, base[w] + j, length(j));
                if (box.reference(w, base[w] + k, length(k)) != first + (k - j) * slot) return false;
            }
            return true;
        }

        /**
         * Where rank {@code w}'s {@code bytes}, {@code skip} bytes into a run that starts at chunk {@code j}, lie for
         * the kernel: the memory is returned, the offset left in {@link #located}. This rank's are in {@link #send} if
         * it published by reference; a peer's published by reference are first read into scratch buffer
         * {@code scratchIndex}, or with {@link #INTO_RESULT} into {@link #recv} at {@code recvOffset} where it holds
         * none of this rank's input (else scratch buffer 0); anything else is in its writer's outbox.
         */
        private MemorySegment source(int w, long j, long skip, long bytes, int scratchIndex, long recvOffset) {
            long chunk = base[w] + j;
            if (w == rank && byReference) {
                located = j * slot + skip;
                return send;
            }
            long address = w == rank ? 0 : box.reference(w, chunk, length(j));
            if (address == 0) {
                located = box.dataOffset(w, chunk, length(j)) + skip;
                return box.page(w);
            }
            boolean intoResult = scratchIndex == INTO_RESULT && !Memory.overlap(send, recv);
            MemorySegment into = intoResult ? recv : scratch(scratchIndex == INTO_RESULT ? 0 : scratchIndex);
            located = intoResult ? recvOffset : 0;
            try {
                box.readReference(w, address + skip, into, located, bytes);
            } catch (PeerLostException e) {
                throw failures.translate(ctx, e, "in the one-shot exchange");
            }
            return into;
        }

        /**
         * Whether this collective may publish by reference: where every reader copies what it reads (Broadcast,
         * AllGather, AllToAll), or reads it into scratch memory before reducing (AllReduce, ReduceScatter), and this
         * rank's readers read nothing it writes during the operation. A Reduce's non-roots keep copying: they run ahead
         * of their root, which by reference they could not.
         */
        private boolean referencesAllowed() {
            return switch (collective) {
                case BROADCAST, ALL_GATHER -> true; // the writer writes none of what it publishes
                case ALL_TO_ALL, ALL_REDUCE, REDUCE_SCATTER -> !Memory.overlap(send, recv);
                default -> false;
            };
        }

        /**
         * True unless this rank published by reference and some reader has not yet copied all of it. Once true it stays
         * true for the operation, so that {@link #mayMove} reports the change once, not on every idle round.
         */
        private boolean referencesReleased() {
            if (!byReference || referencesReleased) return true;
            referencesReleased = published == mine && box.allConsumed(base[rank] + mine);
            return referencesReleased;
        }

        /**
         * Copies {@code w}'s chunk {@code j}, published by reference at {@code address}, and every later chunk of
         * {@code w} published so far that continues it, in one read (one system call) from {@code w}'s buffer into
         * place. Returns the first chunk it did not copy.
         */
        private long copyReferenced(int w, long j, long address) {
            long theirs = chunksOf(w);
            check(w, base[w] + j, length(j));
            long end = j + 1;
            while (end < theirs
                    && needs(end)
                    && box.published(w, base[w] + end, length(end))
                    && box.reference(w, base[w] + end, length(end)) == address + (end - j) * slot) {
                check(w, base[w] + end, length(end));
                end++;
            }
            long from = j * slot;
            long to = Math.min(stream, end * slot);
            try {
                switch (collective) {
                    case ALL_GATHER -> box.readReference(w, address, recv, w * block + from, to - from);
                    case BROADCAST -> box.readReference(w, address, recv, from, to - from);
                    case ALL_TO_ALL -> {
                        long lo = Math.max(from, rank * block);
                        long hi = Math.min(to, (rank + 1) * block);
                        box.readReference(w, address + lo - from, recv, w * block + (lo - rank * block), hi - lo);
                    }
                    default -> throw new IllegalStateException(collective + " does not gather");
                }
            } catch (PeerLostException e) {
                throw failures.translate(ctx, e, "in the one-shot exchange");
            }
            return end;
        }

        /** A gathered chunk: its part of this rank's result, copied into place. */
        private void copyChunk(int w, long j) {
            long chunk = base[w] + j;
            long from = j * slot;
            long length = length(j);
            check(w, chunk, length);
            MemorySegment page = box.page(w);
            long at = box.dataOffset(w, chunk, length);
            switch (collective) {
                case ALL_GATHER -> MemorySegment.copy(page, at, recv, w * block + from, length);
                case BROADCAST -> MemorySegment.copy(page, at, recv, from, length);
                case ALL_TO_ALL -> {
                    long lo = Math.max(from, rank * block);
                    long hi = Math.min(from + length, (rank + 1) * block);
                    MemorySegment.copy(page, at + lo - from, recv, w * block + (lo - rank * block), hi - lo);
                }
                default -> throw new IllegalStateException(collective + " does not gather");
            }
        }

        /** A chunk of another operation means the ranks called different collectives: an error on both sides. */
        private void check(int w, long chunk, long bytes) {
            if (w == rank || box.sameOperation(w, chunk, bytes, sequence, descriptor, count)) return;
            OperationId theirs = box.operationOf(w, chunk, bytes);
            // A small chunk carries only a digest of its operation; the writer's announcement may already name a
            // later one, or this very one if the writer moved on after a mismatch further back.
            boolean named = theirs != null
                    && (theirs.sequence() != sequence || theirs.descriptor() != descriptor || theirs.count() != count);
            throw failures.mismatch(
                    ctx,
                    w,
                    named
                            ? OpContext.describe(theirs.sequence(), theirs.descriptor(), theirs.count())
                            : "another operation (the chunk it published says so, but not which)",
                    null);
        }

        /**
         * The rank whose chunk this one waits for, for timeout messages; -1 if it waits only for room in its outbox.
         */
        int awaited() {
            return awaitedWriter;
        }
    }

    /**
     * Spins and yields as the policy says, then sleeps on this rank's doorbell until a peer that publishes or consumes
     * a chunk rings it, checking the awaited peers now and then, until the operation's deadline. Before sleeping it
     * says it may sleep and has the loop look for work once more, so that a peer that published meanwhile either is
     * seen or sees the flag and rings.
     */
    private final class Waiter {
        OpContext op;
        long deadlineNanos;
        final IdleStrategy idle;
        long lastCheck;
        boolean armed;
        int doorbell;

        Waiter(WaitPolicy policy) {
            this.idle = policy.newIdleStrategy();
        }

        void start(OpContext op, long deadlineNanos) {
            this.op = op;
            this.deadlineNanos = deadlineNanos;
            idle.reset();
            lastCheck = 0;
            disarm();
        }

        /**
         * If {@code operation} took an earlier one's start time, gives it its own, {@code nowNanos}, and reckons its
         * deadline from that (see {@link #restamp}).
         */
        void ownStart(Operation operation, long nowNanos) {
            if (!operation.startReused) return;
            restamp(operation, nowNanos);
            op = operation.ctx;
            deadlineNanos = nowNanos + timeoutNanos;
        }

        /** The loop did something: wait afresh next time. */
        void worked() {
            disarm();
            idle.reset();
        }

        private void disarm() {
            if (armed) {
                box.sleeping(false);
                armed = false;
            }
        }

        /**
         * One idle round while {@code operation} waits for a peer (or for room in this rank's outbox, that is for every
         * peer).
         */
        void idle(Operation operation) {
            if (box.closed()) {
                throw new JcclException(
                        "rank " + rank + ": " + op.describe() + " stopped: the communicator was closed or aborted");
            }
            if (idle.idle()) return;
            int peer = operation.awaited();
            long now = System.nanoTime();
            ownStart(operation, now); // before any look at the deadline, which may be reckoned from an earlier start
            if (now - lastCheck > CHECK_INTERVAL_NANOS) {
                lastCheck = now;
                check(operation, peer);
            }
            if (now - deadlineNanos > 0) {
                disarm();
                Set<Integer> waitingFor = new LinkedHashSet<>();
                if (peer >= 0) waitingFor.add(peer);
                else {
                    for (int r = 0; r < size; r++) {
                        if (r != rank) waitingFor.add(r);
                    }
                }
                throw failures.timeout(
                        op,
                        "in the one-shot exchange",
                        waitingFor,
                        peer >= 0 ? "waiting for a chunk from" : "waiting for room in its outbox, which",
                        p -> "has not published or consumed it");
            }
            if (!armed) {
                doorbell = box.doorbell();
                box.sleeping(true);
                armed = true;
                return; // one more look for work before sleeping
            }
            box.sleep(doorbell, Math.min(MAX_SLEEP_NANOS, deadlineNanos - now));
            disarm();
        }

        /**
         * Fails if a peer the operation waits for has stopped or is in another operation. A peer may have published
         * what this rank waits for and then finished and closed its communicator since this rank last looked (its state
         * is written after its chunks): the operation then moves on, and that is no error.
         */
        private void check(Operation operation, int peer) {
            for (int r = 0; r < size; r++) {
                if (r == rank) continue;
                try {
                    // The awaited peer must be alive; any other rank of the collective must not have failed or
                    // aborted, for then this one cannot finish either (it may have closed once it had our chunk).
                    if (peer < 0 || r == peer) box.checkPeer(r);
                    else box.checkPeerStopped(r);
                    box.checkSameOperation(r, op.sequence(), op.descriptor(), op.count());
                } catch (PeerLostException e) {
                    if (operation.mayMove()) return;
                    throw failures.translate(op, e, "in the one-shot exchange");
                } catch (OperationMismatchException e) {
                    throw failures.translate(op, e, "in the one-shot exchange");
                }
            }
        }
    }
}
