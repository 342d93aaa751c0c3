package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.shm.ShmOutbox;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The one-shot collectives of the LL protocol, for communicators whose ranks all share memory:
 * every rank publishes what the others need from it, in chunks, in its own {@link ShmOutbox}, and
 * reads what it needs from the others' outboxes in place, computing its own result (reductions in
 * rank order, so every rank gets the same bits). One round of publishing instead of a ring's
 * 2(P-1) steps: a small operation is a copy, a flag, a wait on a flag and a reduce; a large one
 * streams, each rank reading chunks as their writers publish them.
 *
 * <pre>
 * collective     each rank publishes          each rank reads
 * AllReduce      its input                    every rank's chunk j, reduced in rank order (its own too, from its outbox)
 * Reduce         its input                    the root: as AllReduce; the others: nothing
 * ReduceScatter  its whole input              the chunks holding its own block, from every rank
 * AllGather      its input                    every other rank's input
 * AllToAll       its whole input              its own block of every other rank's input
 * Broadcast      the root: its input          the root's input
 * </pre>
 *
 * <p>Why one round matters most where ranks outnumber cores: a ring step needs its two ends
 * running at once, so with four ranks on two cores every step waits for a time slice; here a
 * rank does all it can whenever it runs. The caller's thread does all of it, waiting as
 * {@link Backoff} says; once it parks it checks that the peers it waits for are alive and in the
 * same operation, until the deadline.
 */
final class LowLatencyCollectives {
    private static final long MAX_SLEEP_NANOS = 5_000_000;
    private static final long CHECK_INTERVAL_NANOS = 5_000_000;

    private final ShmOutbox box;
    private final int rank;
    private final int size;
    private final Failures failures;
    /** Each rank's next outbox chunk number, as every rank counts them. */
    private final long[] nextChunk;
    /** Reused: operations of one communicator never run at the same time. */
    private final Waiter waiter;
    /** Peers to wake at the end of a round: readers of chunks just published, writers of chunks just consumed. */
    private final boolean[] toWake;

    LowLatencyCollectives(ShmOutbox box, int rank, int size, Failures failures, Backoff.Policy waiting) {
        this.box = box;
        this.rank = rank;
        this.size = size;
        this.failures = failures;
        this.nextChunk = new long[size];
        this.waiter = new Waiter(waiting);
        this.toWake = new boolean[size];
    }

    /** One operation as this rank sees it: what each rank publishes, what this rank reads. */
    private final class Op {
        final OpContext ctx;
        final Collective collective;
        final int root;
        final long block;
        final long stream;
        final long slot;
        final long chunks;
        final ReduceKernel kernel;
        final MemorySegment send;
        final MemorySegment recv;

        Op(OpContext ctx, MemorySegment send, MemorySegment recv) {
            this.ctx = ctx;
            this.collective = ctx.collective();
            this.root = ctx.root();
            this.block = ctx.count() * ctx.type().byteSize();
            this.stream = switch (collective) {
                case REDUCE_SCATTER, ALL_TO_ALL -> block * size;
                default -> block;
            };
            this.slot = box.slotBytes();
            this.chunks = Math.ceilDiv(stream, slot);
            this.kernel = ctx.op() == null ? null : ReduceKernels.forOperationBytes(ctx.type(), ctx.op(), stream);
            this.send = send;
            this.recv = recv;
        }

        /** Chunks {@code writer} publishes: all of its stream, but only the root does in a Broadcast. */
        long chunksOf(int writer) {
            return collective == Collective.BROADCAST && writer != root ? 0 : chunks;
        }

        /** True if this rank reads {@code writer}'s chunks at all. */
        boolean reads(int writer) {
            return switch (collective) {
                case BROADCAST -> writer == root && rank != root;
                case REDUCE -> rank == root;
                case ALL_GATHER, ALL_TO_ALL -> writer != rank;
                default -> true;
            };
        }

        /** True if chunk {@code j} of a stream holds bytes this rank needs (ReduceScatter and AllToAll need one block of it). */
        boolean needs(long j) {
            if (collective != Collective.REDUCE_SCATTER && collective != Collective.ALL_TO_ALL) return true;
            long from = j * slot;
            long to = Math.min(stream, from + slot);
            return to > rank * block && from < (rank + 1) * block;
        }

        boolean reduces() {
            return collective == Collective.ALL_REDUCE || collective == Collective.REDUCE_SCATTER
                    || collective == Collective.REDUCE && rank == root;
        }
    }

    void run(OpContext ctx, MemorySegment send, MemorySegment recv, long deadlineNanos) {
        try {
            runOp(new Op(ctx, send, recv), deadlineNanos);
        } catch (IllegalStateException e) {
            // The outboxes were unmapped under us: the communicator was aborted or closed.
            throw new JcclException("rank " + rank + ": " + ctx.describe() + " stopped: the communicator was closed or aborted", e);
        }
    }

    private void runOp(Op op, long deadlineNanos) {
        waiter.start(op.ctx, deadlineNanos);
        long[] base = nextChunk.clone();
        // Chunks this rank will never read are finished with at once, so their writers need not wait for it.
        for (int w = 0; w < size; w++) {
            if (w != rank && !op.reads(w)) box.consumed(w, base[w] + op.chunksOf(w));
        }
        copyOwnPart(op);
        long mine = op.chunksOf(rank);
        long published = 0;
        long reduced = 0; // reduce mode: chunks of every stream done
        long[] read = new long[size]; // gather mode: chunks of each writer's stream done
        boolean reduceMode = op.reduces();
        while (true) {
            boolean progress = false;
            // Publish as far as the readers (and, reducing, this rank itself, which reads its own chunks) allow.
            while (published < mine && (!reduceMode || published - reduced < box.slots()) && box.canWrite(base[rank] + published)) {
                long from = published * op.slot;
                long length = Math.min(op.slot, op.stream - from);
                MemorySegment.copy(op.send, from, box.slotData(base[rank] + published, length), 0, length);
                box.publish(base[rank] + published, op.ctx.sequence(), op.ctx.descriptor(), op.ctx.count(), length);
                published++;
                progress = true;
                for (int w = 0; w < size; w++) toWake[w] |= w != rank;
            }
            boolean readAll;
            if (reduceMode) {
                while (reduced < op.chunks && (!op.needs(reduced) || allPublished(op, base, reduced, published))) {
                    if (op.needs(reduced)) reduceChunk(op, base, reduced);
                    reduced++;
                    for (int w = 0; w < size; w++) {
                        if (w == rank) continue;
                        box.consumed(w, base[w] + reduced);
                        toWake[w] = true;
                    }
                    progress = true;
                }
                readAll = reduced == op.chunks;
            } else {
                readAll = true;
                for (int w = 0; w < size; w++) {
                    if (w == rank || !op.reads(w)) continue;
                    long theirs = op.chunksOf(w);
                    while (read[w] < theirs && (!op.needs(read[w]) || box.published(w, base[w] + read[w]))) {
                        if (op.needs(read[w])) copyChunk(op, w, base[w] + read[w], read[w]);
                        read[w]++;
                        box.consumed(w, base[w] + read[w]);
                        toWake[w] = true;
                        progress = true;
                    }
                    readAll &= read[w] == theirs;
                }
            }
            if (progress) {
                for (int w = 0; w < size; w++) {
                    if (toWake[w]) {
                        box.wake(w);
                        toWake[w] = false;
                    }
                }
                waiter.worked();
            }
            if (published == mine && readAll) break;
            if (!progress) waiter.idle(firstAwaited(op, base, read, reduced, reduceMode));
        }
        for (int w = 0; w < size; w++) nextChunk[w] = base[w] + op.chunksOf(w);
        if (op.ctx.op() == ReduceOp.AVG && (op.collective != Collective.REDUCE || rank == op.root)) {
            ReduceKernels.divideBySize(op.recv, 0, op.recv.byteSize() / op.ctx.type().byteSize(), op.ctx.type(), size);
        }
    }

    /** What this rank contributes to its own result without the outboxes: its own block, copied directly. */
    private void copyOwnPart(Op op) {
        switch (op.collective) {
            case ALL_GATHER -> {
                MemorySegment mine = op.recv.asSlice(rank * op.block, op.block);
                if (!Memory.same(op.send, mine)) MemorySegment.copy(op.send, 0, mine, 0, op.block);
            }
            case ALL_TO_ALL -> {
                MemorySegment from = op.send.asSlice(rank * op.block, op.block);
                MemorySegment to = op.recv.asSlice(rank * op.block, op.block);
                if (!Memory.same(from, to)) MemorySegment.copy(from, 0, to, 0, op.block);
            }
            case BROADCAST -> {
                if (rank == op.root && !Memory.same(op.send, op.recv)) MemorySegment.copy(op.send, 0, op.recv, 0, op.block);
            }
            default -> { }
        }
    }

    private boolean allPublished(Op op, long[] base, long j, long publishedByMe) {
        for (int w = 0; w < size; w++) {
            if (w == rank ? publishedByMe <= j : !box.published(w, base[w] + j)) return false;
        }
        return true;
    }

    /** Chunk {@code j} of every rank's stream, reduced in rank order into this rank's part of the result. */
    private void reduceChunk(Op op, long[] base, long j) {
        long from = j * op.slot;
        long to = Math.min(op.stream, from + op.slot);
        // The bytes of the chunk this rank's result holds, and where they go in recv.
        long lo = from;
        long hi = to;
        long recvOffset = from;
        if (op.collective == Collective.REDUCE_SCATTER) {
            lo = Math.max(from, rank * op.block);
            hi = Math.min(to, (rank + 1) * op.block);
            recvOffset = lo - rank * op.block;
        }
        long elements = (hi - lo) / op.ctx.type().byteSize();
        for (int w = 0; w < size; w++) check(op, w, base[w] + j);
        MemorySegment first = box.data(0, base[0] + j, to - from);
        MemorySegment second = box.data(1, base[1] + j, to - from);
        op.kernel.apply(first, lo - from, second, lo - from, op.recv, recvOffset, elements);
        for (int w = 2; w < size; w++) {
            op.kernel.apply(op.recv, recvOffset, box.data(w, base[w] + j, to - from), lo - from, op.recv, recvOffset, elements);
        }
    }

    /** A gathered chunk: its part of this rank's result, copied into place. */
    private void copyChunk(Op op, int w, long chunk, long j) {
        check(op, w, chunk);
        long from = j * op.slot;
        long length = box.length(w, chunk);
        MemorySegment data = box.data(w, chunk, length);
        switch (op.collective) {
            case ALL_GATHER -> MemorySegment.copy(data, 0, op.recv, w * op.block + from, length);
            case BROADCAST -> MemorySegment.copy(data, 0, op.recv, from, length);
            case ALL_TO_ALL -> {
                long lo = Math.max(from, rank * op.block);
                long hi = Math.min(from + length, (rank + 1) * op.block);
                MemorySegment.copy(data, lo - from, op.recv, w * op.block + (lo - rank * op.block), hi - lo);
            }
            default -> throw new IllegalStateException(op.collective + " does not gather");
        }
    }

    /** A chunk of another operation means the ranks called different collectives: an error on both sides. */
    private void check(Op op, int w, long chunk) {
        if (w == rank) return;
        long seq = box.sequence(w, chunk);
        long descriptor = box.descriptor(w, chunk);
        long count = box.count(w, chunk);
        if (seq != op.ctx.sequence() || descriptor != op.ctx.descriptor() || count != op.ctx.count()) {
            throw failures.mismatch(op.ctx, w, OpContext.describe(seq, descriptor, count), null);
        }
    }

    /** The rank whose chunk this one waits for, for timeout messages; -1 if it waits only for room in its outbox. */
    private int firstAwaited(Op op, long[] base, long[] read, long reduced, boolean reduceMode) {
        for (int w = 0; w < size; w++) {
            if (w == rank || !op.reads(w)) continue;
            long next = reduceMode ? reduced : read[w];
            if (next < op.chunksOf(w) && !box.published(w, base[w] + next)) return w;
        }
        return -1;
    }

    /**
     * Spins, then sleeps on this rank's doorbell until a peer that publishes or consumes a chunk
     * rings it, checking the awaited peers now and then, until the operation's deadline. Before
     * sleeping it says it may sleep and has the loop look for work once more, so that a peer
     * that published meanwhile either is seen or sees the flag and rings.
     */
    private final class Waiter {
        OpContext op;
        long deadlineNanos;
        final Backoff backoff;
        long lastCheck;
        boolean armed;
        int doorbell;

        Waiter(Backoff.Policy waiting) {
            this.backoff = new Backoff(waiting);
        }

        void start(OpContext op, long deadlineNanos) {
            this.op = op;
            this.deadlineNanos = deadlineNanos;
            backoff.reset();
            lastCheck = 0;
            disarm();
        }

        /** The loop did something: wait afresh next time. */
        void worked() {
            disarm();
            backoff.reset();
        }

        private void disarm() {
            if (armed) {
                box.sleeping(false);
                armed = false;
            }
        }

        /** One idle round while waiting for {@code peer} (-1: for room in this rank's outbox, that is for every peer). */
        void idle(int peer) {
            if (box.closed()) {
                throw new JcclException("rank " + rank + ": " + op.describe() + " stopped: the communicator was closed or aborted");
            }
            Backoff.Phase phase = backoff.next();
            if (phase != Backoff.Phase.BLOCK) {
                Backoff.pause(phase);
                return;
            }
            long now = System.nanoTime();
            if (now - lastCheck > CHECK_INTERVAL_NANOS) {
                lastCheck = now;
                check(peer);
            }
            if (now - deadlineNanos > 0) {
                disarm();
                Set<Integer> waitingFor = new LinkedHashSet<>();
                if (peer >= 0) waitingFor.add(peer);
                else for (int r = 0; r < size; r++) if (r != rank) waitingFor.add(r);
                throw failures.timeout(op, "in the one-shot exchange", waitingFor,
                        peer >= 0 ? "waiting for a chunk from" : "waiting for room in its outbox, which", p -> "has not published or consumed it");
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

        private void check(int peer) {
            for (int r = 0; r < size; r++) {
                if (r == rank || peer >= 0 && r != peer) continue;
                try {
                    box.checkPeer(r);
                    box.checkSameOperation(r, op.sequence(), op.descriptor(), op.count());
                } catch (PeerLostException | OperationMismatchException e) {
                    throw failures.translate(op, e, "in the one-shot exchange");
                }
            }
        }
    }
}
