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
        try {
            if (schedule.pacing() == Schedule.Pacing.PER_DIRECTION) {
                runPerDirection(op, schedule, buffers, deadlineNanos);
            } else {
                runLockstep(op, schedule, buffers, deadlineNanos);
            }
        } catch (StepFailure f) {
            throw translate(op, f.io, f.where.describe());
        }
    }

    /** Where in its schedule an operation is, for error messages; evaluated only when one is needed. */
    @FunctionalInterface
    private interface Where {
        String describe();
    }

    /** An I/O failure and where in the schedule it happened, on its way to {@link #translate}. */
    private static final class StepFailure extends Exception {
        final IOException io;
        final Where where;

        StepFailure(Exception e, Where where) {
            super(null, null, false, false);
            // ClosedSelectorException / CancelledKeyException (IllegalStateExceptions): the transport was closed under us (abort).
            this.io = e instanceof IOException io ? io : new IOException("transport closed: " + e, e);
            this.where = where;
        }
    }

    private void runLockstep(OpContext op, Schedule schedule, Buffers buffers, long deadlineNanos) throws StepFailure {
        int elem = op.type().byteSize();
        ReduceKernel kernel = op.op() == null ? null : ReduceKernels.of(op.type(), op.op());
        List<Step> steps = schedule.steps();
        List<TransferHandle> handles = new ArrayList<>();
        for (int k = 0; k < steps.size(); k++) {
            handles.clear();
            Set<Integer> stepPeers = new LinkedHashSet<>();
            for (Action a : steps.get(k).actions()) {
                switch (a) {
                    case Action.Send s -> stepPeers.add(s.peer());
                    case Action.Receive r -> stepPeers.add(r.peer());
                    default -> runLocal(op, a, buffers, elem);
                }
            }
            if (stepPeers.isEmpty()) continue;
            int step = k;
            Where where = () -> "at step " + (step + 1) + " of " + steps.size();
            try {
                connect(op, stepPeers, where, deadlineNanos);
                for (Action a : steps.get(k).actions()) {
                    if (a instanceof Action.Send s) {
                        handles.add(postSend(op, k, s, buffers, elem));
                    } else if (a instanceof Action.Receive r) {
                        handles.add(postReceive(op, k, r, buffers, elem, kernel));
                    }
                }
                await(op, handles, where, deadlineNanos);
            } catch (IOException | IllegalStateException e) {
                throw new StepFailure(e, where);
            }
        }
    }

    /**
     * {@link Schedule.Pacing#PER_DIRECTION}: the sends and the receives each walk the steps on
     * their own, and a step's local actions wait for both to have finished the step before. One
     * step's transfers per direction are in flight at a time, so memory stays bounded as in
     * lockstep; what changes is that neither direction waits for the other direction's peer.
     */
    private void runPerDirection(OpContext op, Schedule schedule, Buffers buffers, long deadlineNanos) throws StepFailure {
        int elem = op.type().byteSize();
        ReduceKernel kernel = op.op() == null ? null : ReduceKernels.of(op.type(), op.op());
        List<Step> steps = schedule.steps();
        int n = steps.size();
        Direction sends = new Direction();
        Direction receives = new Direction();
        boolean[] hasLocals = new boolean[n];
        for (int k = 0; k < n; k++) {
            for (Action a : steps.get(k).actions()) hasLocals[k] |= !(a instanceof Action.Send) && !(a instanceof Action.Receive);
        }
        int localsRun = 0;
        int idle = 0;
        Where where = () -> "with the sends of " + sends.done + " and the receives of " + receives.done + " of " + n + " steps done";
        try {
            while (true) {
                sends.settle();
                receives.settle();
                boolean moved = false;
                // A step without local actions holds nothing up; one with them waits for both directions.
                while (localsRun < n && (!hasLocals[localsRun] || sends.done >= localsRun && receives.done >= localsRun)) {
                    for (Action a : steps.get(localsRun).actions()) {
                        if (!(a instanceof Action.Send) && !(a instanceof Action.Receive)) runLocal(op, a, buffers, elem);
                    }
                    localsRun++;
                    moved = true;
                }
                if (sends.posted < n && sends.done == sends.posted && connected(steps.get(sends.posted), Action.Send.class)) {
                    int k = sends.posted++;
                    for (Action a : steps.get(k).actions()) {
                        if (a instanceof Action.Send s) sends.handles.add(postSend(op, k, s, buffers, elem));
                    }
                    moved = true;
                }
                if (receives.posted < n && receives.done == receives.posted && localsRun > receives.posted
                        && connected(steps.get(receives.posted), Action.Receive.class)) {
                    int k = receives.posted++;
                    for (Action a : steps.get(k).actions()) {
                        if (a instanceof Action.Receive r) receives.handles.add(postReceive(op, k, r, buffers, elem, kernel));
                    }
                    moved = true;
                }
                if (localsRun == n && sends.done == n && receives.done == n) return;
                if (moved || transport.progress() > 0) {
                    idle = 0;
                    continue;
                }
                Set<Integer> waiting = new LinkedHashSet<>();
                String doing = "waiting for";
                if (idle >= SPIN_ROUNDS + YIELD_ROUNDS) {
                    sends.addPendingPeers(waiting);
                    receives.addPendingPeers(waiting);
                    if (waiting.isEmpty()) {
                        doing = "connecting to";
                        if (sends.posted < n) peersOf(steps.get(sends.posted), Action.Send.class, waiting);
                        if (receives.posted < n) peersOf(steps.get(receives.posted), Action.Receive.class, waiting);
                    }
                }
                idle = idle(op, idle, where, deadlineNanos, waiting, doing);
            }
        } catch (IOException | IllegalStateException e) {
            throw new StepFailure(e, where);
        }
    }

    /** One direction of a per-direction schedule: how many steps' transfers it has posted, and how many are done. */
    private static final class Direction {
        int posted;
        int done;
        final List<TransferHandle> handles = new ArrayList<>();

        /** Counts the posted step as done once all its transfers are. */
        void settle() {
            if (done == posted) return;
            for (TransferHandle h : handles) if (!h.isDone()) return;
            handles.clear();
            done = posted;
        }

        void addPendingPeers(Set<Integer> peers) {
            for (TransferHandle h : handles) if (!h.isDone()) peers.add(h.peer());
        }
    }

    private void runLocal(OpContext op, Action a, Buffers buffers, int elem) {
        switch (a) {
            case Action.LocalCopy c -> copy(buffers, c, elem);
            case Action.DivideBySize d -> ReduceKernels.divideBySize(buffers.of(d.region().buffer()),
                    d.region().offset() * elem, d.region().count(), op.type(), size);
            default -> throw new IllegalArgumentException("not a local action: " + a);
        }
    }

    /** True once this rank is connected to every peer of {@code step}'s transfers of one kind; makes progress on connecting. */
    private boolean connected(Step step, Class<? extends Action> kind) throws IOException {
        Set<Integer> peers = new LinkedHashSet<>();
        peersOf(step, kind, peers);
        return peers.isEmpty() || transport.tryConnect(peers);
    }

    private static void peersOf(Step step, Class<? extends Action> kind, Set<Integer> into) {
        for (Action a : step.actions()) {
            if (kind.isInstance(a)) into.add(a instanceof Action.Send s ? s.peer() : ((Action.Receive) a).peer());
        }
    }

    private TransferHandle postSend(OpContext op, int step, Action.Send s, Buffers buffers, int elem) {
        MemorySegment from = slice(buffers, s.from(), elem);
        return transport.postSend(s.peer(), op.sendHeader(step, from.byteSize()), from);
    }

    private TransferHandle postReceive(OpContext op, int step, Action.Receive r, Buffers buffers, int elem, ReduceKernel kernel) {
        MemorySegment into = slice(buffers, r.into(), elem);
        if (r.combineWith() == null) {
            return transport.postRecv(r.peer(), op.recvHeader(step, into.byteSize()), elem,
                    (piece, offset) -> MemorySegment.copy(piece, 0, into, offset, piece.byteSize()));
        }
        MemorySegment with = slice(buffers, r.combineWith(), elem);
        return transport.postRecv(r.peer(), op.recvHeader(step, into.byteSize()), elem,
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

    private void connect(OpContext op, Set<Integer> stepPeers, Where where, long deadlineNanos) throws IOException {
        int idle = 0;
        while (!transport.tryConnect(stepPeers)) {
            idle = idle(op, idle, where, deadlineNanos, stepPeers, "connecting to");
        }
    }

    private void await(OpContext op, List<TransferHandle> handles, Where where, long deadlineNanos) throws IOException {
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
            idle = idle(op, idle, where, deadlineNanos, waiting, "waiting for");
        }
    }

    private int idle(OpContext op, int idle, Where where, long deadlineNanos, Set<Integer> waitingFor, String doing)
            throws IOException {
        if (idle < SPIN_ROUNDS) {
            Thread.onSpinWait();
        } else if (idle < SPIN_ROUNDS + YIELD_ROUNDS) {
            Thread.yield();
        } else {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) throw timeout(op, where.describe(), waitingFor, doing);
            transport.awaitIo(Math.min(left, MAX_BLOCK_NANOS));
        }
        return idle + 1;
    }

    private JcclTimeoutException timeout(OpContext op, String where, Set<Integer> waitingFor, String doing) {
        StringBuilder who = new StringBuilder();
        for (int p : waitingFor) {
            if (!who.isEmpty()) who.append("; ");
            who.append("rank ").append(p).append(" (").append(peers.get(p).where()).append("): ").append(transport.describePending(p));
        }
        return new JcclTimeoutException(String.format("rank %d: %s timed out after %.1f s %s, %s %s. "
                        + "Are those ranks alive and calling the same collectives in the same order? (bound set by JCCL_TIMEOUT)",
                rank, op.describe(), op.elapsedSeconds(), where, doing, who));
    }

    private JcclException translate(OpContext op, IOException e, String where) {
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
        return new JcclException("rank " + rank + ": " + op.describe() + " failed " + where + ": " + e.getMessage(), e);
    }
}
