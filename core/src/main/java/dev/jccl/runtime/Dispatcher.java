package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.concurrent.Futures;
import dev.jccl.plan.Tuner;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * The operation path after the checks: takes the operation's turn from the {@link Sequencer} and hands it, when the
 * turn comes, to the executor for its memory. Blocking calls run on the caller's thread, so that they can use confined
 * memory and pay no thread hand-off (Gloo's small-message cost is mostly that hand-off); async calls run on the
 * progress thread, except small LL ones that find nothing before them ({@link HostExecutor#tryInline}).
 */
final class Dispatcher {
    /**
     * Async operations of at most this many bytes per rank wait for room in the progress thread's queue
     * ({@link Sequencer#awaitRoomForAsync}); larger ones queue without bound. Holding a queued operation costs the same
     * whatever its size, which matters only where the operation itself is short: bounded, a 2-rank 8-byte async
     * AllReduce loop went from 1.32-1.36 µs a call to 0.61-0.64, but a 64 KiB async ReduceScatter loop went from a
     * median of 8.8 µs to 16.1 (the bound's cost there is not understood yet: the caller's burst of issues after each
     * wake-up is the suspect).
     */
    static final long BOUNDED_ASYNC_BYTES = 4096;

    private final int rank;
    private final int size;
    private final Lifecycle lifecycle;
    private final Sequencer sequencer;
    private final OperationChecks checks;
    private final HostExecutor host;
    private final HostPath hostPath;
    private volatile DeviceExecutor device;

    Dispatcher(
            int rank, int size, Lifecycle lifecycle, Sequencer sequencer, OperationChecks checks, HostExecutor host) {
        this.rank = rank;
        this.size = size;
        this.lifecycle = lifecycle;
        this.sequencer = sequencer;
        this.checks = checks;
        this.host = host;
        this.hostPath = new TurnHolder(rank, size, checks, host);
    }

    synchronized void attach(DeviceExecutor executor) {
        if (device != null) {
            throw new IllegalStateException(
                    "rank " + rank + ": a device executor is already attached (" + device.describe() + ")");
        }
        lifecycle.checkUsable("attaching " + executor.describe());
        device = executor;
        checks.classifyWith(executor);
    }

    DeviceExecutor device() {
        return device;
    }

    void run(Operation op) {
        Futures.join(issue(op, false));
    }

    /** {@code send}/{@code recv} are the caller's segments, checked on every rank whatever its role. */
    CompletableFuture<Void> runAsync(Operation op, MemorySegment send, MemorySegment recv) {
        checks.accessibleFrom(op, send, recv, sequencer.progressThread());
        return issue(op, true);
    }

    private CompletableFuture<Void> issue(Operation op, boolean async) {
        lifecycle.checkUsable(op.collective().displayName());
        if (async && op.bytesPerRank(size) <= BOUNDED_ASYNC_BYTES) sequencer.awaitRoomForAsync();
        if (op.kind() == MemoryKind.DEVICE) return issueOnDevice(op, async);
        Sequencer.Turn turn = sequencer.take();
        Tuner.Choice choice = host.choose(op);
        CompletableFuture<Void> mine = turn.mine();
        if (!async) {
            sequencer.awaitTurn(turn, op);
            host.runInto(mine, op, choice);
        } else if (turn.previous().isDone() && host.inlineable(op, choice)) {
            host.tryInline(mine, op, choice);
        } else {
            // Queued outside the sequencer's lock: the progress thread waits for each operation's
            // predecessor, so the queue's order cannot break the call order.
            sequencer.submit(() -> {
                try {
                    sequencer.awaitTurn(turn, op);
                } catch (RuntimeException e) {
                    mine.completeExceptionally(e);
                    return;
                }
                host.runInto(mine, op, choice);
            });
        }
        return mine;
    }

    /**
     * A device operation gives up the turn once its executor has started it (NCCL queues it on a stream, the staged
     * path runs it to the end), and completes when the executor says its result is in place. Its failure fails the
     * communicator, as a host operation's does.
     */
    private CompletableFuture<Void> issueOnDevice(Operation op, boolean async) {
        DeviceExecutor d = device;
        d.check(op, new ArgumentChecks(op.collective().displayName(), rank));
        Sequencer.Turn turn = sequencer.take();
        CompletableFuture<Void> result = new CompletableFuture<>();
        Runnable start = () -> {
            try {
                sequencer.awaitTurn(turn, op);
                OpContext ctx = sequencer.number(op, false);
                lifecycle.checkUsable(op.collective().displayName());
                d.start(op, op.collective().displayName() + " #" + ctx.sequence(), hostPath)
                        .whenComplete((v, e) -> {
                            if (e == null) result.complete(null);
                            else result.completeExceptionally(host.failedOnDevice(e));
                        });
            } catch (Throwable t) {
                result.completeExceptionally(t instanceof JcclException ? host.failedOnDevice(t) : t);
            } finally {
                turn.mine().complete(null);
            }
        };
        if (async) sequencer.submit(start);
        else start.run();
        return result;
    }
}
