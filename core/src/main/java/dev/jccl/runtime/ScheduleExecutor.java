package dev.jccl.runtime;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.concurrent.IdleStrategy;
import dev.jccl.plan.Action;
import dev.jccl.plan.BufferRole;
import dev.jccl.plan.Region;
import dev.jccl.plan.Schedule;
import dev.jccl.plan.Step;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import dev.jccl.transport.Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs one rank's {@link Schedule} against real memory and a {@link Transport}: local actions, then the step's
 * transfers, progressed until done or the deadline. Transport failures become the errors users see through
 * {@link Failures}.
 *
 * <p>Forwarding: when a receive of step k writes exactly the region that step k+1 sends on (the ring's
 * reduce-then-pass-on, the chain's receive-then-forward), the send is posted as soon as the receive is, and each piece
 * leaves as soon as it has been reduced, while it is still in cache, instead of after the whole step: NCCL's
 * recvReduceSend. Only where step k+1 has no local actions (which could change the region, like AVG's division) and the
 * send is the first to its peer in that step (so frames stay in order).
 *
 * <p>Waiting follows the communicator's {@link WaitPolicy} through an {@link IdleStrategy}: spin on
 * {@link Transport#progress()}, then poll and yield, then wait in {@link Transport#awaitIo}, so oversubscribed ranks
 * (more ranks than cores) do not burn the time slices their peers need.
 */
final class ScheduleExecutor {
    private static final long MAX_BLOCK_NANOS = 10_000_000;

    private final Transport transport;
    private final int size;
    private final Failures failures;
    private final WaitPolicy waiting;

    ScheduleExecutor(Transport transport, int rank, int size, List<PeerInfo> peers, WaitPolicy waiting) {
        this.transport = transport;
        this.size = size;
        this.failures = new Failures(rank, peers);
        this.waiting = waiting;
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
            throw failures.translate(op, f.io, f.where.describe());
        }
    }

    /** Where in its schedule an operation is, for error messages; evaluated only when one is needed. */
    @FunctionalInterface
    private interface Where {
        String describe();
    }

    /** An I/O failure and where in the schedule it happened, on its way to {@link Failures#translate}. */
    private static final class StepFailure extends Exception {
        final IOException io;
        final Where where;

        StepFailure(Exception e, Where where) {
            super(null, null, false, false);
            // ClosedSelectorException / CancelledKeyException / a closed arena (IllegalStateExceptions): closed under
            // us (abort).
            this.io = e instanceof IOException io ? io : new IOException("transport closed: " + e, e);
            this.where = where;
        }
    }

    private void runLockstep(OpContext op, Schedule schedule, Buffers buffers, long deadlineNanos) throws StepFailure {
        int elem = op.type().byteSize();
        ReduceKernel kernel = kernelFor(op, buffers);
        List<Step> steps = schedule.steps();
        List<TransferHandle> handles = new ArrayList<>();
        boolean outOfPlace = !Memory.overlap(buffers.send(), buffers.recv());
        Map<Action.Send, TransferHandle> postedEarly = new IdentityHashMap<>();
        Map<Action.Send, TransferHandle> postingEarly = new IdentityHashMap<>();
        for (int k = 0; k < steps.size(); k++) {
            handles.clear();
            Set<Integer> stepPeers = new LinkedHashSet<>();
            for (Action a : steps.get(k).actions()) {
                switch (a) {
                    case Action.Send s -> stepPeers.add(s.peer());
                    case Action.Receive r -> stepPeers.add(r.peer());
                    default -> runLocal(op, a, buffers, elem, kernel);
                }
            }
            if (stepPeers.isEmpty()) continue;
            int step = k;
            Where where = () -> "at step " + (step + 1) + " of " + steps.size();
            try {
                connect(op, stepPeers, where, deadlineNanos);
                Step next = k + 1 < steps.size() ? steps.get(k + 1) : null;
                boolean forward = next != null && hasNoLocals(next);
                for (Action a : steps.get(k).actions()) {
                    if (!(a instanceof Action.Send s)) continue;
                    TransferHandle early = postedEarly.remove(s);
                    handles.add(early != null ? early : postSend(op, k, s, buffers, elem));
                }
                for (Action a : steps.get(k).actions()) {
                    if (!(a instanceof Action.Receive r)) continue;
                    Action.Send onward = forward ? forwardOf(r, next) : null;
                    TransferHandle early = null;
                    if (onward != null
                            && !postingEarly.containsKey(onward)
                            && transport.tryConnect(List.of(onward.peer()))) {
                        MemorySegment from = slice(buffers, onward.from(), elem);
                        early = transport.postSend(onward.peer(), op.sendHeader(k + 1, from.byteSize()), from, 0);
                        postingEarly.put(onward, early);
                    }
                    handles.add(postReceive(op, k, r, buffers, elem, kernel, early));
                }
                if (next != null && outOfPlace) postReadySendsEarly(op, k + 1, next, buffers, elem, postingEarly);
                await(op, handles, where, deadlineNanos);
                postedEarly.putAll(postingEarly);
                postingEarly.clear();
            } catch (IOException | IllegalStateException e) {
                throw new StepFailure(e, where);
            }
        }
    }

    /**
     * Posts, during step {@code step - 1}, the sends of {@code step} whose data is the caller's SEND buffer, which
     * nothing in the operation writes when it is out of place: the next slice of a ring then leaves while this step's
     * data is still arriving, and a socket never waits for the step to end before it has something to carry. Only the
     * first send to each peer, so that frames to a peer stay in the order of the schedule.
     */
    private void postReadySendsEarly(
            OpContext op, int step, Step next, Buffers buffers, int elem, Map<Action.Send, TransferHandle> postingEarly)
            throws IOException {
        Set<Integer> firstToPeer = new java.util.HashSet<>();
        for (Action a : next.actions()) {
            if (!(a instanceof Action.Send s) || !firstToPeer.add(s.peer())) continue;
            if (postingEarly.containsKey(s)
                    || s.from().buffer() != BufferRole.SEND
                    || !transport.tryConnect(List.of(s.peer()))) {
                continue;
            }
            postingEarly.put(s, postSend(op, step, s, buffers, elem));
        }
    }

    /**
     * The reduce kernel for the operation, chosen by how much memory it touches (see
     * {@link ReduceKernels#forOperationBytes}).
     */
    private static ReduceKernel kernelFor(OpContext op, Buffers buffers) {
        if (op.op() == null) return null;
        return ReduceKernels.forOperationBytes(
                op.type(),
                op.op(),
                Math.max(buffers.send().byteSize(), buffers.recv().byteSize()));
    }

    private static boolean hasNoLocals(Step step) {
        for (Action a : step.actions()) {
            if (!(a instanceof Action.Send) && !(a instanceof Action.Receive)) return false;
        }
        return true;
    }

    /**
     * The Send of {@code next} that passes on exactly what {@code r} receives, if it is the first Send to its peer
     * there.
     */
    private static Action.Send forwardOf(Action.Receive r, Step next) {
        Set<Integer> seen = new java.util.HashSet<>();
        for (Action a : next.actions()) {
            if (a instanceof Action.Send s) {
                if (s.from().equals(r.into()) && !seen.contains(s.peer())) return s;
                seen.add(s.peer());
            }
        }
        return null;
    }

    /**
     * {@link Schedule.Pacing#PER_DIRECTION}: the sends and the receives each walk the steps on their own, and a step's
     * local actions wait for both to have finished the step before. One step's transfers per direction are in flight at
     * a time, so memory stays bounded as in lockstep; what changes is that neither direction waits for the other
     * direction's peer.
     */
    private void runPerDirection(OpContext op, Schedule schedule, Buffers buffers, long deadlineNanos)
            throws StepFailure {
        int elem = op.type().byteSize();
        ReduceKernel kernel = kernelFor(op, buffers);
        List<Step> steps = schedule.steps();
        int n = steps.size();
        Direction sends = new Direction();
        Direction receives = new Direction();
        boolean[] hasLocals = new boolean[n];
        for (int k = 0; k < n; k++) hasLocals[k] = !hasNoLocals(steps.get(k));
        int localsRun = 0;
        IdleStrategy idle = waiting.newIdleStrategy();
        Where where = () -> "with the sends of " + sends.done + " and the receives of " + receives.done + " of " + n
                + " steps done";
        try {
            while (true) {
                sends.settle();
                receives.settle();
                boolean moved = false;
                // A step without local actions holds nothing up; one with them waits for both directions.
                while (localsRun < n
                        && (!hasLocals[localsRun] || sends.done >= localsRun && receives.done >= localsRun)) {
                    for (Action a : steps.get(localsRun).actions()) {
                        if (!(a instanceof Action.Send) && !(a instanceof Action.Receive)) {
                            runLocal(op, a, buffers, elem, kernel);
                        }
                    }
                    localsRun++;
                    moved = true;
                }
                if (sends.posted < n
                        && sends.done == sends.posted
                        && connected(steps.get(sends.posted), Action.Send.class)) {
                    int k = sends.posted++;
                    for (Action a : steps.get(k).actions()) {
                        if (a instanceof Action.Send s) sends.handles.add(postSend(op, k, s, buffers, elem));
                    }
                    moved = true;
                }
                if (receives.posted < n
                        && receives.done == receives.posted
                        && localsRun > receives.posted
                        && connected(steps.get(receives.posted), Action.Receive.class)) {
                    int k = receives.posted++;
                    for (Action a : steps.get(k).actions()) {
                        if (a instanceof Action.Receive r) {
                            receives.handles.add(postReceive(op, k, r, buffers, elem, kernel, null));
                        }
                    }
                    moved = true;
                }
                if (localsRun == n && sends.done == n && receives.done == n) return;
                if (moved || transport.progress() > 0) {
                    idle.reset();
                    continue;
                }
                if (idle.idle()) continue;
                Set<Integer> waiting = new LinkedHashSet<>();
                String doing = "waiting for";
                {
                    sends.addPendingPeers(waiting);
                    receives.addPendingPeers(waiting);
                    if (waiting.isEmpty()) {
                        doing = "connecting to";
                        if (sends.posted < n) peersOf(steps.get(sends.posted), Action.Send.class, waiting);
                        if (receives.posted < n) peersOf(steps.get(receives.posted), Action.Receive.class, waiting);
                    }
                }
                block(op, where, deadlineNanos, waiting, doing);
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
            for (TransferHandle h : handles) {
                if (!h.isDone()) return;
            }
            handles.clear();
            done = posted;
        }

        void addPendingPeers(Set<Integer> peers) {
            for (TransferHandle h : handles) {
                if (!h.isDone()) peers.add(h.peer());
            }
        }
    }

    private void runLocal(OpContext op, Action a, Buffers buffers, int elem, ReduceKernel kernel) {
        switch (a) {
            case Action.LocalCopy c -> copy(buffers, c, elem);
            case Action.LocalReduce x ->
                kernel.apply(
                        buffers.of(x.a().buffer()),
                        x.a().offset() * elem,
                        buffers.of(x.b().buffer()),
                        x.b().offset() * elem,
                        buffers.of(x.into().buffer()),
                        x.into().offset() * elem,
                        x.into().count());
            case Action.DivideBySize d ->
                ReduceKernels.divideBySize(
                        buffers.of(d.region().buffer()),
                        d.region().offset() * elem,
                        d.region().count(),
                        op.type(),
                        size);
            default -> throw new IllegalArgumentException("not a local action: " + a);
        }
    }

    /**
     * True once this rank is connected to every peer of {@code step}'s transfers of one kind; makes progress on
     * connecting.
     */
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

    /** Posts a receive; with {@code onward}, each piece it delivers is released to that early-posted send. */
    private TransferHandle postReceive(
            OpContext op,
            int step,
            Action.Receive r,
            Buffers buffers,
            int elem,
            ReduceKernel kernel,
            TransferHandle onward) {
        MemorySegment into = slice(buffers, r.into(), elem);
        RecvSink sink;
        if (r.combineWith() == null) {
            sink = new CopyingSink(into, onward);
        } else {
            MemorySegment with = slice(buffers, r.combineWith(), elem);
            sink = onward == null
                    ? (piece, offset) -> kernel.apply(with, offset, piece, 0, into, offset, piece.byteSize() / elem)
                    : (piece, offset) -> {
                        kernel.apply(with, offset, piece, 0, into, offset, piece.byteSize() / elem);
                        onward.ready(offset + piece.byteSize());
                    };
        }
        return transport.postRecv(r.peer(), op.recvHeader(step, into.byteSize()), elem, sink);
    }

    /** A plain receive: pieces are copied into {@code into}, or written there directly by transports that can. */
    private record CopyingSink(MemorySegment into, TransferHandle onward) implements RecvSink {
        @Override
        public void accept(MemorySegment piece, long byteOffset) {
            MemorySegment.copy(piece, 0, into, byteOffset, piece.byteSize());
            if (onward != null) onward.ready(byteOffset + piece.byteSize());
        }

        @Override
        public MemorySegment directTarget() {
            return into.isNative() ? into : null;
        }

        @Override
        public void delivered(long bytes) {
            if (onward != null) onward.ready(bytes);
        }
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
        IdleStrategy idle = waiting.newIdleStrategy();
        while (!transport.tryConnect(stepPeers)) {
            if (!idle.idle()) block(op, where, deadlineNanos, stepPeers, "connecting to");
        }
    }

    private void await(OpContext op, List<TransferHandle> handles, Where where, long deadlineNanos) throws IOException {
        IdleStrategy idle = waiting.newIdleStrategy();
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
                idle.reset();
                continue;
            }
            if (idle.idle()) continue;
            Set<Integer> waiting = new LinkedHashSet<>();
            for (TransferHandle h : handles) {
                if (!h.isDone()) waiting.add(h.peer());
            }
            block(op, where, deadlineNanos, waiting, "waiting for");
        }
    }

    /** A wait past the spin and yield phases: the transport's own, bounded by the deadline. */
    private void block(OpContext op, Where where, long deadlineNanos, Set<Integer> waitingFor, String doing)
            throws IOException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) throw failures.timeout(op, where.describe(), waitingFor, doing, transport::describePending);
        transport.awaitIo(Math.min(left, MAX_BLOCK_NANOS));
    }
}
