package dev.jccl.runtime;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.FailureVerdict;
import dev.jccl.JcclException;
import dev.jccl.debug.Log;
import dev.jccl.plan.Collective;
import dev.jccl.plan.OpRequest;
import dev.jccl.plan.Schedule;
import dev.jccl.plan.Tuner;
import dev.jccl.transport.OperationBoard;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Runs operations on host memory, once the {@link Sequencer} gives them the turn: the LL protocol's one-shot
 * collectives where every rank shares memory and the tuner picks them, else the planned schedule on the transports.
 * Announces each operation on the operation board to the peers that share this rank's memory, and turns a failure into
 * the communicator's failure.
 *
 * <p>Small async LL operations that find nothing before them may start on the caller's thread and, if the peers are
 * there too, finish there before the call returns ({@link #tryInline}), which costs less than waking the progress
 * thread.
 */
final class HostExecutor {
    /** Per-rank bytes up to which an async LL operation may start on the caller's thread. */
    static final long INLINE_MAX_BYTES = 64 * 1024;
    /**
     * How long the caller's thread waits for its peers before it hands an async operation it started to the progress
     * thread: long enough for peers that run in step (a few round trips between cores), short enough that an async call
     * still returns at once.
     */
    static final long INLINE_SPIN_NANOS = 20_000;
    /**
     * The same where ranks share CPUs, where the caller yields its CPU between looks instead of spinning. A caller that
     * handed over at once (as it did) left each rank two threads to schedule: 4 ranks on 2 CPUs, async loops of 8
     * bytes, Broadcast 0.52-0.53 µs a call, AllReduce 3.8-4.1. Yielding 20 µs: 0.25-0.42 and 3.6-4.9; 50 µs: 0.24-0.42
     * and 3.7-4.5; 100 µs: 0.24-0.30 and 3.0-3.8; 200 µs: 0.24-0.31 and 3.0-3.4 (2026-11-28). Yielding, the caller
     * takes no CPU that a peer needs, so the longer wait only delays the call's return, by as long as it gives its
     * peers.
     */
    static final long INLINE_YIELD_NANOS = 100_000;

    private final int rank;
    private final int size;
    private final Config config;
    private final Log log;
    private final Transport transport;
    /**
     * Where this rank posts its operations for the peers that can read it (those sharing its memory); null if none can.
     */
    private final OperationBoard board;

    private final Failures failures;
    /** Where this rank is, and how the ranks agree on a failure's cause; see {@link FailureAgreement}. */
    private final FailureAgreement agreement;

    private final RankActivity activity;
    /** This rank's last operations (JCCL_TRACE_BUFFER), or null when that is 0. */
    private final FlightRecorder recorder;
    /**
     * Whether this JVM has the jdk.jfr module. A runtime trimmed with jlink may not (seen on a GPU machine's bundle:
     * every collective failed with NoClassDefFoundError: jdk/jfr/Event), and on the class path nothing checks that
     * before {@link CollectiveEvent} loads; without it there are simply no events.
     */
    private static final boolean FLIGHT_RECORDER_PRESENT =
            ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    /** The operation's flight-recorder event, while a recording wants one; operations never overlap. */
    private CollectiveEvent event;

    private final ScheduleExecutor schedules;
    /** Schedules planned lately, for the next calls of the same shape (most programs repeat a few shapes). */
    private final ScheduleCache plans;

    private final Tuner tuner;
    /** The LL protocol's one-shot collectives, when every rank shares memory; null otherwise. */
    private final LowLatencyCollectives lowLatency;

    private final WaitPolicy waiting;
    private final Sequencer sequencer;
    private final Lifecycle lifecycle;
    /** The tuner's last answer, for the next call of the same shape. */
    private volatile ChoiceFor lastChoice;

    private Arena scratchArena;
    private MemorySegment scratch = MemorySegment.NULL;

    /**
     * The host executor of the communicator {@code s} describes: its schedules run on the wired transport, one-shot LL
     * collectives on the wiring's outbox where there is one, and a flight recorder keeps its last operations where
     * JCCL_TRACE_BUFFER asks for one.
     */
    HostExecutor(
            CommunicatorInit.Setup s,
            Failures failures,
            Sequencer sequencer,
            Lifecycle lifecycle,
            FailureAgreement agreement) {
        this.rank = s.rank();
        this.size = s.size();
        this.config = s.config();
        this.log = s.log();
        this.transport = s.wiring().transport();
        this.board = s.wiring().board();
        this.failures = failures;
        this.schedules = new ScheduleExecutor(transport, rank, size, s.peers(), s.waiting());
        this.plans = new ScheduleCache(CommunicatorInit.hostsOf(s.peers()));
        this.tuner = s.tuner();
        this.lowLatency = s.wiring().outbox() == null
                ? null
                : new LowLatencyCollectives(
                        s.wiring().outbox(),
                        rank,
                        size,
                        failures,
                        s.waiting(),
                        this::restamp,
                        s.config().timeout().toNanos());
        this.waiting = s.waiting();
        this.sequencer = sequencer;
        this.lifecycle = lifecycle;
        this.agreement = agreement;
        this.activity = agreement.activity();
        this.recorder = config.traceBuffer() == 0
                ? null
                : new FlightRecorder(
                        config.traceBuffer(), rank, size, s.peers().get(rank).where(), s.commId());
    }

    /** Runs {@code op} (whose turn it is) on this thread, then completes {@code done} as it ended. */
    void runInto(CompletableFuture<Void> done, Operation op, Tuner.Choice choice) {
        try {
            execute(op, choice);
            done.complete(null);
        } catch (Throwable t) {
            done.completeExceptionally(t);
        }
    }

    /** The tuner's choice for a collective of this shape (null for point-to-point and single ranks). */
    Tuner.Choice choose(Operation op) {
        if (!op.isCollective()) return null;
        ChoiceFor last = lastChoice;
        if (last != null && last.collective == op.collective() && last.count == op.count() && last.type == op.type()) {
            return last.choice;
        }
        Tuner.Choice choice = size == 1 ? null : tuner.choose(op.collective(), op.count(), op.type());
        lastChoice = new ChoiceFor(op.collective(), op.count(), op.type(), choice);
        return choice;
    }

    private record ChoiceFor(Collective collective, long count, DataType type, Tuner.Choice choice) {}

    /**
     * How {@code collective} on {@code count} elements of {@code type} would run: {@code Ring/Simple},
     * {@code OneShot/LL}…
     */
    String algorithmFor(Collective collective, long count, DataType type) {
        if (collective.isPointToPoint()) {
            return size == 1 ? "local" : "p2p";
        }
        if (size == 1) return "local";
        return tuner.choose(collective, count, type).describe();
    }

    /** Whether {@code choice} runs on the LL protocol here. */
    private boolean isLowLatency(Tuner.Choice choice) {
        return lowLatency != null && choice != null && choice.protocol() == Tuner.Protocol.LL;
    }

    /**
     * An LL operation that started with an earlier operation's start time waits, and has read the clock: from now on it
     * is {@code ctx} started at {@code nowNanos}, for the flight recorder and the failure agreement too.
     */
    private OpContext restamp(OpContext ctx, long nowNanos) {
        OpContext restamped = ctx.startedAt(nowNanos);
        activity.started(restamped);
        if (recorder != null) recorder.restamped(nowNanos);
        return restamped;
    }

    /** Whether an async call of {@code op} may start on the caller's thread ({@link #tryInline}). */
    boolean inlineable(Operation op, Tuner.Choice choice) {
        return isLowLatency(choice) && op.bytesPerRank(size) <= INLINE_MAX_BYTES;
    }

    /**
     * Starts an LL operation on the caller's thread and finishes it there if the peers' parts arrive within
     * {@link #INLINE_SPIN_NANOS} ({@link #INLINE_YIELD_NANOS} where ranks share CPUs); otherwise the progress thread
     * finishes it. Either way {@code done} completes when the result is in place.
     */
    void tryInline(CompletableFuture<Void> done, Operation op, Tuner.Choice choice) {
        OpContext ctx;
        try {
            ctx = begin(op, choice);
        } catch (Throwable t) {
            done.completeExceptionally(t);
            return;
        }
        boolean startReused = sequencer.startReused();
        LowLatencyCollectives.Operation started;
        long deadline;
        try {
            started = lowLatency.start(ctx, op.send(), op.recv(), startReused);
            if (lowLatency.tryInline(started, waiting.oversubscribed() ? INLINE_YIELD_NANOS : INLINE_SPIN_NANOS)) {
                end(ctx, started.endedAtOnce());
                done.complete(null);
                return;
            }
            // It waited, so its start time is its own now (see Sequencer.CLOCK_REUSE_MAX).
            deadline = started.context().startNanos() + config.timeout().toNanos();
        } catch (JcclException | IllegalStateException e) {
            done.completeExceptionally(failed(ctx, e));
            return;
        } catch (Throwable t) {
            done.completeExceptionally(t);
            return;
        }
        sequencer.submit(() -> {
            try {
                try {
                    lowLatency.finish(started, deadline);
                    end(ctx, false);
                } catch (JcclException | IllegalStateException e) {
                    throw failed(ctx, e);
                }
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
    }

    /** Runs {@code op}, whose turn it is, to the end on this thread. */
    void execute(Operation op, Tuner.Choice choice) {
        OpContext ctx = begin(op, choice);
        long deadline = ctx.startNanos() + config.timeout().toNanos();
        boolean atOnce = false;
        try {
            if (choice != null && choice.protocol() == Tuner.Protocol.LL && lowLatency != null) {
                if (log.enabled(Config.DebugLevel.TRACE, Log.Subsys.COLL)) {
                    log.trace(Log.Subsys.COLL, ctx.describe() + " OneShot/LL");
                }
                atOnce = lowLatency.run(ctx, op.send(), op.recv(), deadline, sequencer.startReused());
            } else {
                long chunk = Math.max(1, tuner.chunkBytes() / op.type().byteSize());
                Schedule schedule = plans.plan(new OpRequest(
                        op.collective(),
                        rank,
                        size,
                        op.count(),
                        op.op(),
                        op.root(),
                        op.recvPeer(),
                        op.inPlace(),
                        chunk,
                        choice == null ? Tuner.Algorithm.RING : choice.algorithm()));
                if (log.enabled(Config.DebugLevel.TRACE, Log.Subsys.COLL)) {
                    log.trace(
                            Log.Subsys.COLL,
                            ctx.describe() + " algorithm " + schedule.algorithm() + ", "
                                    + schedule.steps().size() + " steps");
                }
                MemorySegment scratchSegment =
                        scratch(schedule.scratchCount() * op.type().byteSize());
                schedules.run(
                        ctx, schedule, new ScheduleExecutor.Buffers(op.send(), op.recv(), scratchSegment), deadline);
            }
            end(ctx, atOnce);
        } catch (JcclException | IllegalStateException e) {
            throw failed(ctx, e);
        }
    }

    /**
     * What every operation does before it moves data: takes its numbers, refuses to run on a failed or closed
     * communicator, and tells local peers which operation this rank is in (checking first that none of those it needs
     * has failed).
     */
    private OpContext begin(Operation op, Tuner.Choice choice) {
        OpContext ctx = sequencer.number(op, isLowLatency(choice));
        lifecycle.checkUsable(op.collective().displayName());
        activity.started(ctx);
        if (recorder != null) recorder.started(ctx, choice);
        if (FLIGHT_RECORDER_PRESENT && CollectiveEvent.enabled()) {
            event = new CollectiveEvent();
            event.begin();
        }
        try {
            if (board != null) {
                boolean collective = op.isCollective();
                checkLocalPeersRunning(op, collective, ctx);
                if (collective) board.announce(ctx.sequence(), ctx.descriptor(), op.count());
                else board.announcePointToPoint(ctx.descriptor(), op.count());
            }
        } catch (JcclException | IllegalStateException e) {
            throw failed(ctx, e);
        }
        return ctx;
    }

    /**
     * Tells local peers that this rank has finished the operation; {@code atOnce}: a small LL operation that never
     * waited, whose end the flight recorder need not time.
     */
    private void end(OpContext ctx, boolean atOnce) {
        if (atOnce) sequencer.endedAtOnce();
        activity.completed(ctx);
        if (recorder != null) {
            if (atOnce) recorder.endedAtOnce();
            else recorder.ended(true);
        }
        if (event != null) commitEvent(ctx, "completed");
        if (board == null) return;
        if (ctx.isCollective()) {
            board.finished(ctx.sequence() + 1);
        } else {
            board.finishedPointToPoint();
        }
    }

    private void commitEvent(OpContext ctx, String outcome) {
        CollectiveEvent e = event;
        event = null;
        e.end();
        if (!e.shouldCommit()) return;
        e.operation = ctx.collective().displayName();
        e.sequence = ctx.sequence();
        e.bytes = ctx.count() * ctx.type().byteSize();
        e.rank = rank;
        e.size = size;
        e.peer = ctx.root();
        e.algorithm = algorithmFor(ctx.collective(), ctx.count(), ctx.type());
        e.transport = transport.name();
        e.outcome = outcome;
        e.commit();
    }

    /**
     * A failed operation fails the communicator: records why, tells local peers and closes the connections, so that
     * peers waiting on this rank fail at once instead of at their deadline. Returns the exception to throw.
     */
    private JcclException failed(OpContext ctx, RuntimeException e) {
        boolean aborted = lifecycle.aborted();
        JcclException reported = aborted || e instanceof IllegalStateException
                ? new JcclException(
                        "rank " + rank + ": " + ctx.describe() + " stopped: communicator "
                                + (aborted ? "aborted" : "closed"),
                        e)
                : (JcclException) e;
        lifecycle.fail(reported);
        activity.failed(reported.getMessage());
        if (recorder != null) recorder.ended(false);
        if (event != null) commitEvent(ctx, "failed");
        if (!aborted) transport.abandon(reported.getMessage());
        transport.close();
        if (!aborted && !(e instanceof IllegalStateException)) reported.withVerdict(agreement.agree());
        log.warn(Log.Subsys.COLL, reported.getMessage());
        if (recorder != null && !aborted) dumpAfterFailure(reported);
        return reported;
    }

    /** Writes the flight recorder where JCCL_TRACE_DIR says (else the temp dir) and says where, once. */
    private void dumpAfterFailure(JcclException reported) {
        dumpToTraceDir(reported.verdict(), "");
    }

    /** On SIGUSR1 ({@link TraceSignal}): the same dump, while the rank may be stuck in an operation. */
    void dumpOnSignal() {
        if (recorder == null) return;
        JcclException failure = lifecycle.failure();
        dumpToTraceDir(failure == null ? null : failure.verdict(), " on SIGUSR1");
    }

    private void dumpToTraceDir(FailureVerdict verdict, String when) {
        Path dir = Path.of(config.traceDir() == null ? System.getProperty("java.io.tmpdir") : config.traceDir());
        try {
            Path file = recorder.write(recorder.fileIn(dir), verdict);
            log.warn(
                    Log.Subsys.COLL,
                    "flight recorder (last " + recorder.held() + " operations) written to " + file + when + "; `jccl "
                            + "trace " + dir + "` merges every rank's");
        } catch (IOException | RuntimeException io) {
            log.warn(Log.Subsys.COLL, "could not write the flight recorder to " + dir + ": " + io.getMessage());
        }
    }

    /** Writes the flight recorder to {@code file}; see {@code Communicator.dumpTrace}. */
    Path dumpTrace(Path file) throws IOException {
        if (recorder == null) {
            throw new IllegalStateException(
                    "rank " + rank + " keeps no flight recorder (JCCL_TRACE_BUFFER=0); set it above 0 to keep one");
        }
        JcclException failure = lifecycle.failure();
        return recorder.write(file, failure == null ? null : failure.verdict());
    }

    /**
     * A device operation failed: the communicator fails as it does for a host failure, and its connections close, so
     * that peers waiting on this rank in host operations fail at once too. Returns the exception to report.
     */
    Throwable failedOnDevice(Throwable e) {
        Throwable cause =
                e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        if (!(cause instanceof JcclException reported)) return cause;
        boolean first = !lifecycle.failed();
        lifecycle.fail(reported);
        if (first) {
            log.warn(Log.Subsys.COLL, reported.getMessage());
            if (!lifecycle.aborted()) transport.abandon(reported.getMessage());
            transport.close();
        }
        return reported;
    }

    /** Fails at once if a peer on this host that the operation needs has failed, aborted or closed. */
    private void checkLocalPeersRunning(Operation op, boolean collective, OpContext ctx) {
        try {
            if (collective) {
                for (int r = 0; r < size; r++) board.checkPeerStopped(r);
            } else {
                board.checkPeerStopped(op.root());
                if (op.recvPeer() >= 0) board.checkPeerStopped(op.recvPeer());
            }
        } catch (PeerLostException e) {
            throw failures.translate(ctx, e, "before it started");
        }
    }

    private MemorySegment scratch(long bytes) {
        if (bytes == 0) return MemorySegment.NULL;
        if (scratch.byteSize() < bytes) {
            if (scratchArena != null) scratchArena.close();
            scratchArena = Arena.ofShared();
            scratch = scratchArena.allocate(bytes, 64);
        }
        return scratch.asSlice(0, bytes);
    }

    /**
     * Frees the scratch memory; only when no operation runs (closed, or aborted with nothing in flight). Synchronized:
     * an abort from a watchdog thread and the owner's close may both get here.
     */
    synchronized void freeScratch() {
        if (scratchArena != null) {
            scratchArena.close();
            scratchArena = null;
            scratch = MemorySegment.NULL;
        }
    }
}
