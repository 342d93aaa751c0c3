package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.PeerFailedException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.plan.Action;
import dev.jccl.plan.BufferRole;
import dev.jccl.plan.Region;
import dev.jccl.plan.Schedule;
import dev.jccl.plan.Step;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.transport.FrameMismatchException;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.TransferHandle;
import dev.jccl.transport.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs one rank's {@link Schedule} against real memory and a {@link Transport}: local actions,
 * then the step's transfers, progressed until done or the deadline. This is the only place that
 * turns transport failures into the errors users see.
 *
 * <p>Waiting: spin on {@link Transport#progress()} briefly (a reply is often microseconds away),
 * then yield, then block in {@link Transport#awaitIo}, so oversubscribed ranks (more ranks than
 * cores) do not burn the time slices their peers need.
 */
final class ScheduleExecutor {
    private static final int SPIN_ROUNDS = 200;
    private static final int YIELD_ROUNDS = 50;
    private static final long MAX_BLOCK_NANOS = 10_000_000;

    private final Transport transport;
    private final int rank;
    private final int size;
    private final List<PeerInfo> peers;

    ScheduleExecutor(Transport transport, int rank, int size, List<PeerInfo> peers) {
        this.transport = transport;
        this.rank = rank;
        this.size = size;
        this.peers = peers;
    }

    /** The operation's memory, by role. */
    record Buffers(MemorySegment send, MemorySegment recv, MemorySegment scratch) {
        MemorySegment of(BufferRole role) {
            return switch (role) {
                case SEND -> send;
                case RECV -> recv;
                case SCRATCH -> scratch;
            };
        }
    }

    void run(OpContext op, Schedule schedule, Buffers buffers, long deadlineNanos) {
        int elem = op.type().byteSize();
        ReduceKernel kernel = op.op() == null ? null : ReduceKernels.of(op.type(), op.op());
        List<Step> steps = schedule.steps();
        List<TransferHandle> handles = new ArrayList<>();
        for (int k = 0; k < steps.size(); k++) {
            handles.clear();
            Set<Integer> stepPeers = new LinkedHashSet<>();
            for (Action a : steps.get(k).actions()) {
                switch (a) {
                    case Action.LocalCopy c -> copy(buffers, c, elem);
                    case Action.DivideBySize d -> ReduceKernels.divideBySize(buffers.of(d.region().buffer()),
                            d.region().offset() * elem, d.region().count(), op.type(), size);
                    case Action.Send s -> stepPeers.add(s.peer());
                    case Action.Receive r -> stepPeers.add(r.peer());
                }
            }
            if (stepPeers.isEmpty()) continue;
            try {
                connect(op, stepPeers, k, steps.size(), deadlineNanos);
                for (Action a : steps.get(k).actions()) {
                    if (a instanceof Action.Send s) {
                        MemorySegment from = slice(buffers, s.from(), elem);
                        handles.add(transport.postSend(s.peer(), op.header(k, from.byteSize()), from));
                    } else if (a instanceof Action.Receive r) {
                        handles.add(postReceive(op, k, r, buffers, elem, kernel));
                    }
                }
                await(op, handles, k, steps.size(), deadlineNanos);
            } catch (IOException e) {
                throw translate(op, e, k);
            } catch (IllegalStateException e) {
                // ClosedSelectorException / CancelledKeyException: the transport was closed under us (abort).
                throw translate(op, new IOException("transport closed: " + e, e), k);
            }
        }
    }

    private TransferHandle postReceive(OpContext op, int step, Action.Receive r, Buffers buffers, int elem, ReduceKernel kernel) {
        MemorySegment into = slice(buffers, r.into(), elem);
        if (r.combineWith() == null) {
            return transport.postRecv(r.peer(), op.header(step, into.byteSize()), elem,
                    (piece, offset) -> MemorySegment.copy(piece, 0, into, offset, piece.byteSize()));
        }
        MemorySegment with = slice(buffers, r.combineWith(), elem);
        return transport.postRecv(r.peer(), op.header(step, into.byteSize()), elem,
                (piece, offset) -> kernel.apply(with, offset, piece, 0, into, offset, piece.byteSize() / elem));
    }

    private static MemorySegment slice(Buffers buffers, Region region, int elem) {
        return buffers.of(region.buffer()).asSlice(region.offset() * elem, region.count() * elem);
    }

    private static void copy(Buffers buffers, Action.LocalCopy c, int elem) {
        MemorySegment from = slice(buffers, c.from(), elem);
        MemorySegment to = slice(buffers, c.to(), elem);
        if (!Memory.same(from, to)) MemorySegment.copy(from, 0, to, 0, from.byteSize());
    }

    private void connect(OpContext op, Set<Integer> stepPeers, int step, int steps, long deadlineNanos) throws IOException {
        int idle = 0;
        while (!transport.tryConnect(stepPeers)) {
            idle = idle(op, idle, step, steps, deadlineNanos, stepPeers, "connecting to");
        }
    }

    private void await(OpContext op, List<TransferHandle> handles, int step, int steps, long deadlineNanos) throws IOException {
        int idle = 0;
        while (true) {
            boolean done = true;
            for (TransferHandle h : handles) {
                if (!h.isDone()) {
                    done = false;
                    break;
                }
            }
            if (done) return;
            if (transport.progress() > 0) {
                idle = 0;
                continue;
            }
            Set<Integer> waiting = new LinkedHashSet<>();
            if (idle >= SPIN_ROUNDS + YIELD_ROUNDS) for (TransferHandle h : handles) if (!h.isDone()) waiting.add(h.peer());
            idle = idle(op, idle, step, steps, deadlineNanos, waiting, "waiting for");
        }
    }

    private int idle(OpContext op, int idle, int step, int steps, long deadlineNanos, Set<Integer> waitingFor, String doing)
            throws IOException {
        if (idle < SPIN_ROUNDS) {
            Thread.onSpinWait();
        } else if (idle < SPIN_ROUNDS + YIELD_ROUNDS) {
            Thread.yield();
        } else {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) throw timeout(op, step, steps, waitingFor, doing);
            transport.awaitIo(Math.min(left, MAX_BLOCK_NANOS));
        }
        return idle + 1;
    }

    private JcclTimeoutException timeout(OpContext op, int step, int steps, Set<Integer> waitingFor, String doing) {
        StringBuilder who = new StringBuilder();
        for (int p : waitingFor) {
            if (!who.isEmpty()) who.append("; ");
            who.append("rank ").append(p).append(" (").append(peers.get(p).where()).append("): ").append(transport.describePending(p));
        }
        return new JcclTimeoutException(String.format("rank %d: %s timed out after %.1f s at step %d of %d, %s %s. "
                        + "Are those ranks alive and calling the same collectives in the same order? (bound set by JCCL_TIMEOUT)",
                rank, op.describe(), op.elapsedSeconds(), step + 1, steps, doing, who));
    }

    private JcclException translate(OpContext op, IOException e, int step) {
        if (e instanceof PeerLostException lost) {
            PeerInfo p = peers.get(lost.peer());
            return new PeerFailedException(lost.peer(), String.format("rank %d lost peer %d (%s) during %s after %.1f s: %s",
                    rank, lost.peer(), p.where(), op.describe(), op.elapsedSeconds(), lost.getMessage()), e);
        }
        if (e instanceof FrameMismatchException m) {
            return new JcclException(String.format("rank %d and rank %d called different operations: rank %d is in %s and expected "
                            + "%s from rank %d, but rank %d sent %s. Every rank must call the same collectives with the same count, "
                            + "type, op and root, in the same order.",
                    rank, m.peer(), rank, op.describe(), OpContext.describe(m.expected()), m.peer(), m.peer(),
                    OpContext.describe(m.actual())), e);
        }
        return new JcclException("rank " + rank + ": " + op.describe() + " failed at step " + (step + 1) + ": " + e.getMessage(), e);
    }
}
