package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.plan.Collective;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Puts a communicator's operations in one order, whichever thread calls them and whatever memory they are on. Each call
 * takes a {@link Turn} when it is made: the previous call's turn, which it waits for, and its own, which it releases
 * when the next operation may start. The operation that holds the turn numbers itself ({@link #number}): collectives
 * among collectives, a Send or Recv among the messages of its ordered pair of ranks; ranks that call the same
 * operations in the same order therefore give them the same numbers, which frame headers and the operation board
 * compare.
 *
 * <p>Numbers are taken when an operation starts rather than when it is called, so that an operation holding the turn
 * may run host operations of its own (the staged device path's chunks, see {@link HostPath}) and number them before
 * anything called after it.
 */
final class Sequencer implements AutoCloseable {
    /** A call's place in the order: wait for {@code previous}, complete {@code mine} to let the next call start. */
    record Turn(CompletableFuture<Void> previous, CompletableFuture<Void> mine) {}

    private final int rank;
    private final Duration timeout;
    private final Object lock = new Object();
    /**
     * The last turn taken. Swapped with one atomic exchange: a monitor took two locked instructions per call (enter and
     * exit), each of which waits for this core's pending stores, and cost 13% of a 2-rank 8-byte Broadcast's CPU time
     * (async-profiler, 2026-11-28).
     */
    private final AtomicReference<CompletableFuture<Void>> tail =
            new AtomicReference<>(CompletableFuture.completedFuture(null));

    private volatile ProgressThread progressThread;
    private boolean closed;
    // Touched only by the operation holding the turn; the turns' futures order those accesses.
    private long collectiveSequence;
    private final long[] sendSequence;
    private final long[] recvSequence;
    /** The last clock reading an operation started with, and how many operations started with it since. */
    private long lastStartNanos;

    private int startsSinceClockRead = CLOCK_REUSE_MAX;
    private boolean lastEndedAtOnce;
    private boolean lastStartReused;

    /**
     * How many LL operations in a row may take their start time from an earlier operation instead of the clock, as long
     * as each one before them ended at once (a short call that never waited). Such a start time is early by the time
     * the program spent between calls, which has no bound, so the LL protocol reads the clock as soon as an operation
     * waits, and takes its deadline, its flight-recorder entry and what the failure agreement reports from that reading
     * ({@code LowLatencyCollectives}); an operation that never waits is recorded as lasting 0 µs from the earlier
     * start. Reading the clock cost 21 ns here in the VM's fast phase and more in its slow one: 9% of a 2-rank 8-byte
     * Broadcast's CPU time (async-profiler), and reusing it took that Broadcast from 0.19-0.23 µs to 0.12-0.15 and the
     * AllReduce from 0.67 to 0.55-0.60 in the slow phase (2026-11-28).
     */
    static final int CLOCK_REUSE_MAX = 64;

    Sequencer(int rank, int size, Duration timeout) {
        this.rank = rank;
        this.timeout = timeout;
        this.sendSequence = new long[size];
        this.recvSequence = new long[size];
    }

    Turn take() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        return new Turn(tail.getAndSet(mine), mine);
    }

    /** The last turn taken: done once every operation called so far has let the next start. */
    CompletableFuture<Void> last() {
        return tail.get();
    }

    /** Waits (within the deadline) for the previous operation to let this one start. */
    void awaitTurn(Turn turn, Operation op) {
        CompletableFuture<Void> previous = turn.previous();
        if (previous.isDone()) return;
        try {
            previous.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            // The earlier operation's caller sees its error; ours is decided when it starts.
        } catch (TimeoutException e) {
            throw new JcclTimeoutException(
                    "rank " + rank + ": " + op.collective().displayName() + " waited " + timeout.toSeconds()
                            + " s for earlier async operations of this communicator to finish (JCCL_TIMEOUT)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("rank " + rank + ": interrupted while waiting for earlier operations");
        }
    }

    /**
     * The numbers of the operation starting now, which holds the turn. Point-to-point numbers count messages per
     * ordered pair, so that each half of a SendRecv takes the number a plain Send or Recv to that peer would have
     * taken.
     */
    OpContext number(Operation op, boolean mayReuseClock) {
        long sequence = switch (op.collective()) {
            case SEND, SEND_RECV -> sendSequence[op.root()]++;
            case RECV -> recvSequence[op.root()]++;
            default -> collectiveSequence++;
        };
        long recvSequenceNumber = op.collective() == Collective.SEND_RECV ? recvSequence[op.recvPeer()]++ : -1;
        lastStartReused = mayReuseClock && lastEndedAtOnce && startsSinceClockRead < CLOCK_REUSE_MAX;
        if (!lastStartReused) {
            lastStartNanos = System.nanoTime();
            startsSinceClockRead = 0;
        }
        startsSinceClockRead++;
        lastEndedAtOnce = false;
        return new OpContext(
                op.collective(),
                op.count(),
                op.type(),
                op.op(),
                op.root(),
                op.recvPeer(),
                sequence,
                recvSequenceNumber,
                lastStartNanos);
    }

    /**
     * The operation holding the turn ended at once (see {@code LowLatencyCollectives.endedAtOnce}): the next one may
     * start with its start time (see {@link #CLOCK_REUSE_MAX}).
     */
    void endedAtOnce() {
        lastEndedAtOnce = true;
    }

    /** Whether the operation {@link #number} numbered last took an earlier operation's start time. */
    boolean startReused() {
        return lastStartReused;
    }

    /** Runs {@code task} on the progress thread, after the tasks submitted before it. */
    void submit(Runnable task) {
        progress().submit(task);
    }

    /**
     * Before an async call takes its turn: if the progress thread has {@link ProgressThread#MAX_QUEUED} tasks
     * unfinished, waits (up to the communicator's timeout) until they have all run, so that a loop of async calls
     * cannot queue without bound, and its next call may run on the caller's thread again.
     */
    void awaitRoomForAsync() {
        ProgressThread t = progressThread;
        if (t != null) t.awaitRoom(timeout.toNanos());
    }

    /** The progress thread, started on first use (its identity is needed to check memory is accessible from it). */
    Thread progressThread() {
        return progress().thread();
    }

    private ProgressThread progress() {
        ProgressThread t = progressThread;
        if (t != null) return t;
        synchronized (lock) {
            if (progressThread == null) {
                if (closed) throw new JcclException("rank " + rank + ": async operation on a closed communicator");
                progressThread = new ProgressThread("jccl-progress-rank" + rank);
            }
            return progressThread;
        }
    }

    /** Stops the progress thread; what is still queued runs (and fails at once, the communicator being closed). */
    @Override
    public void close() {
        ProgressThread t;
        synchronized (lock) {
            closed = true;
            t = progressThread;
        }
        if (t != null) t.close();
    }
}
