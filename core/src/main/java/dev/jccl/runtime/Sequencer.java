package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.plan.Collective;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private volatile ProgressThread progressThread;
    private boolean closed;
    // Touched only by the operation holding the turn; the turns' futures order those accesses.
    private long collectiveSequence;
    private final long[] sendSequence;
    private final long[] recvSequence;

    Sequencer(int rank, int size, Duration timeout) {
        this.rank = rank;
        this.timeout = timeout;
        this.sendSequence = new long[size];
        this.recvSequence = new long[size];
    }

    Turn take() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        synchronized (lock) {
            CompletableFuture<Void> previous = tail;
            tail = mine;
            return new Turn(previous, mine);
        }
    }

    /** The last turn taken: done once every operation called so far has let the next start. */
    CompletableFuture<Void> last() {
        synchronized (lock) {
            return tail;
        }
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
    OpContext number(Operation op) {
        long sequence = switch (op.collective()) {
            case SEND, SEND_RECV -> sendSequence[op.root()]++;
            case RECV -> recvSequence[op.root()]++;
            default -> collectiveSequence++;
        };
        long recvSequenceNumber = op.collective() == Collective.SEND_RECV ? recvSequence[op.recvPeer()]++ : -1;
        return new OpContext(
                op.collective(),
                op.count(),
                op.type(),
                op.op(),
                op.root(),
                op.recvPeer(),
                sequence,
                recvSequenceNumber,
                System.nanoTime());
    }

    /** Runs {@code task} on the progress thread, after the tasks submitted before it. */
    void submit(Runnable task) {
        progress().submit(task);
    }

    /**
     * Before an async call takes its turn: waits (up to the communicator's timeout) while the progress thread has
     * {@link ProgressThread#MAX_QUEUED} tasks waiting, so that a loop of async calls cannot queue without bound.
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
