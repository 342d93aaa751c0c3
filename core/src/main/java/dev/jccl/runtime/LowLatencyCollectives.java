package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.plan.Collective;
import dev.jccl.plan.Tuner;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.shm.ShmLowLatency;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * The one-shot collectives of the LL protocol, for communicators whose ranks all share memory:
 * every rank copies its input into its low-latency slot and raises the flag; each rank then
 * reads what it needs from the others' slots and computes its own result, reducing in rank order
 * so that every rank gets the same bits. No schedule, no frames: the path a small operation takes
 * is a copy, a flag, a wait on a flag, and a reduce.
 *
 * <p>The caller's thread does all of it. It waits as {@link Backoff} says, and once it parks it
 * checks that the peers it waits for are alive and in the same operation, until the deadline.
 */
final class LowLatencyCollectives {
    private static final long PARK_NANOS = 50_000;
    private static final long CHECK_INTERVAL_NANOS = 5_000_000;

    private final ShmLowLatency ll;
    private final int rank;
    private final int size;
    private final Failures failures;

    LowLatencyCollectives(ShmLowLatency ll, int rank, int size, Failures failures) {
        this.ll = ll;
        this.rank = rank;
        this.size = size;
        this.failures = failures;
    }

    /** The most one rank may publish; the {@link Tuner} offers LL only below it. */
    int slotBytes() {
        return ll.slotBytes();
    }

    void run(OpContext op, MemorySegment send, MemorySegment recv, long deadlineNanos) {
        long seq = op.sequence();
        long descriptor = op.descriptor();
        long count = op.count();
        int elem = op.type().byteSize();
        long block = count * elem;
        Collective c = op.collective();
        int root = op.root();
        Waiter waiter = new Waiter(op, deadlineNanos);

        while (!ll.mayWrite(seq)) waiter.idle(-1, "for every local rank to finish collective #" + (seq - 2));
        waiter.reset();
        long published = switch (c) {
            case BROADCAST -> rank == root ? block : 0;
            case REDUCE_SCATTER, ALL_TO_ALL -> block * size;
            default -> block;
        };
        MemorySegment mine = ll.data(rank, seq, published);
        if (published > 0) MemorySegment.copy(send, 0, mine, 0, published);
        ll.publish(seq, descriptor, count, published);

        ReduceKernel kernel = op.op() == null ? null : ReduceKernels.of(op.type(), op.op());
        switch (c) {
            case ALL_REDUCE -> {
                reduceAll(waiter, seq, descriptor, count, block, 0, kernel, recv);
                finishAverage(op, recv, count);
            }
            case REDUCE -> {
                if (rank == root) {
                    reduceAll(waiter, seq, descriptor, count, block, 0, kernel, recv);
                    finishAverage(op, recv, count);
                }
            }
            case REDUCE_SCATTER -> {
                reduceAll(waiter, seq, descriptor, count, block * size, (long) rank * block, kernel, recv);
                finishAverage(op, recv, count);
            }
            case BROADCAST -> {
                if (rank == root) {
                    if (!Memory.same(send, recv)) MemorySegment.copy(send, 0, recv, 0, block);
                } else {
                    await(waiter, root, seq, descriptor, count);
                    MemorySegment.copy(ll.data(root, seq, block), 0, recv, 0, block);
                }
            }
            case ALL_GATHER -> {
                for (int r = 0; r < size; r++) {
                    if (r != rank) await(waiter, r, seq, descriptor, count);
                    MemorySegment.copy(ll.data(r, seq, block), 0, recv, r * block, block);
                }
                ll.sawEveryPeer(seq);
            }
            case ALL_TO_ALL -> {
                for (int r = 0; r < size; r++) {
                    if (r != rank) await(waiter, r, seq, descriptor, count);
                    MemorySegment.copy(ll.data(r, seq, block * size), (long) rank * block, recv, r * block, block);
                }
                ll.sawEveryPeer(seq);
            }
            default -> throw new IllegalArgumentException(c + " has no one-shot form");
        }
    }

    /** {@code recv = slot0 op slot1 op …}, over the {@code block} bytes at {@code offset} of each rank's slot, in rank order. */
    private void reduceAll(Waiter waiter, long seq, long descriptor, long count, long slotBytes, long offset, ReduceKernel kernel,
                           MemorySegment recv) {
        for (int r = 0; r < size; r++) if (r != rank) await(waiter, r, seq, descriptor, count);
        ll.sawEveryPeer(seq);
        kernel.apply(ll.data(0, seq, slotBytes), offset, ll.data(1, seq, slotBytes), offset, recv, 0, count);
        for (int r = 2; r < size; r++) kernel.apply(recv, 0, ll.data(r, seq, slotBytes), offset, recv, 0, count);
    }

    private void finishAverage(OpContext op, MemorySegment recv, long count) {
        if (op.op() == dev.jccl.ReduceOp.AVG) ReduceKernels.divideBySize(recv, 0, count, op.type(), size);
    }

    /** Waits until rank {@code r} has published collective {@code seq}, and checks it is the same operation. */
    private void await(Waiter waiter, int r, long seq, long descriptor, long count) {
        waiter.reset();
        while (!ll.published(r, seq)) waiter.idle(r, null);
        if (ll.descriptor(r, seq) != descriptor || ll.count(r, seq) != count) {
            throw failures.mismatch(waiter.op, r, OpContext.describe(seq, ll.descriptor(r, seq), ll.count(r, seq)), null);
        }
    }

    /** Spins, yields, then parks, checking the awaited peer now and then, until the operation's deadline. */
    private final class Waiter {
        final OpContext op;
        final long deadlineNanos;
        final Backoff backoff = new Backoff();
        long lastCheck;

        Waiter(OpContext op, long deadlineNanos) {
            this.op = op;
            this.deadlineNanos = deadlineNanos;
        }

        void reset() {
            backoff.reset();
        }

        /** One idle round while waiting for {@code peer} (-1: for every peer; {@code what} says for what). */
        void idle(int peer, String what) {
            if (ll.closed()) throw new JcclException("rank " + rank + ": " + op.describe() + " stopped: the communicator was closed or aborted");
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
                Set<Integer> waitingFor = new LinkedHashSet<>();
                if (peer >= 0) waitingFor.add(peer);
                throw failures.timeout(op, "in the low-latency exchange", waitingFor, what == null ? "waiting for" : "waiting " + what,
                        p -> ll.published(p, op.sequence()) ? "published" : "has not published its slot");
            }
            LockSupport.parkNanos(PARK_NANOS);
        }

        private void check(int peer) {
            for (int r = 0; r < size; r++) {
                if (r == rank || peer >= 0 && r != peer) continue;
                try {
                    ll.checkPeer(r);
                    ll.checkSameOperation(r, op.sequence(), op.descriptor(), op.count());
                } catch (PeerLostException | OperationMismatchException e) {
                    throw failures.translate(op, e, "in the low-latency exchange");
                }
            }
        }
    }
}
