package dev.jccl.runtime;

import dev.jccl.concurrent.IdleStrategy;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread that runs a communicator's asynchronous operations, one at a time, in the order they were issued. Started
 * on the first async call.
 *
 * <p>Why not an executor: chaining each operation onto the previous one's future hands every operation to the pool's
 * queue and back, and wakes the pool thread through a lock each time. This thread instead polls a lock-free queue,
 * keeps spinning for a while after the queue runs dry, since a program that issues one async operation usually issues
 * the next within microseconds, and only then parks; a caller unparks it only when it is parked.
 */
final class ProgressThread implements AutoCloseable {
    private static final long PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long IDLE_SPIN_NANOS = 50_000;

    /**
     * How many tasks may be unfinished before a caller of {@link #awaitRoom} waits until every one of them has run.
     * Each waiting operation holds its future, its closure and its checked arguments: a tight loop of 3 million 8-byte
     * async AllReduces once queued them nearly all, and copying them through young collections took a third of the CPU
     * (perf: the JVM's Serial GC, 2 ranks on this project's 2-vCPU VM). CUDA's launch queue is bounded alike.
     */
    static final int MAX_QUEUED = 1024;

    /**
     * The longest a caller waiting for room parks before it looks again, should the progress thread's wake-up miss it
     * (another caller waiting too).
     */
    private static final long ROOM_PARK_NANOS = 1_000_000;

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** Tasks submitted and not yet finished (queued, or the one running). */
    private final AtomicInteger unfinished = new AtomicInteger();
    /** A caller parked in {@link #awaitRoom}, woken once every task has run; null if none. */
    private volatile Thread waitingForRoom;

    private final Thread thread;
    private volatile boolean parked;
    private volatile boolean stopping;

    ProgressThread(String name) {
        thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** Queues {@code task}; tasks run in the order they were submitted. */
    void submit(Runnable task) {
        unfinished.incrementAndGet();
        queue.add(task);
        if (parked) LockSupport.unpark(thread);
    }

    /**
     * If {@link #MAX_QUEUED} tasks are unfinished, parks the caller until all of them have run, or for
     * {@code maxWaitNanos} at most. Callers ask before they take their operation's turn, so no queued task can be
     * waiting for theirs; the progress thread itself (a task that issues another) never waits.
     *
     * <p>Why all and not half, as this once waited for: a small async call runs on its caller's thread when nothing is
     * before it ({@code HostExecutor.tryInline}), and hands its end to this thread only when its peers are late, about
     * 750 times in 20 million 8-byte AllReduces on 2 ranks (a peer descheduled for more than 20 µs). Every call after
     * such a hand-off finds one before it and queues too, and a caller woken at half kept the queue from ever running
     * dry: three quarters of the CPU samples were this thread's (async-profiler), every call paid the hand-off, and the
     * caller's issuing took CPU from the ranks at work. Woken once the queue has run dry, the caller's next call runs
     * inline again; 3.5% of the calls queued, and the 2-rank async loops went from 0.22-0.24 µs to 0.18-0.21 (AllReduce
     * 8 B), 0.11-0.13 to 0.09-0.10 (Broadcast 8 B), 0.23-0.26 to 0.19-0.20 (ReduceScatter 16 B), in the VM's fast phase
     * (2026-11-28).
     */
    void awaitRoom(long maxWaitNanos) {
        if (unfinished.get() < MAX_QUEUED || Thread.currentThread() == thread) return;
        // Woken by the progress thread when the queue has run dry, not by a timer, so that the parked caller takes no
        // CPU from the ranks at work.
        long start = System.nanoTime();
        waitingForRoom = Thread.currentThread();
        try {
            while (unfinished.get() > 0 && !stopping && System.nanoTime() - start < maxWaitNanos) {
                if (parked) LockSupport.unpark(thread);
                LockSupport.parkNanos(this, ROOM_PARK_NANOS);
            }
        } finally {
            waitingForRoom = null;
        }
    }

    private void loop() {
        // A queue that ran dry is watched for a short spin only: yielding here would take the core
        // from the threads issuing the next operations, and from the peer ranks' progress threads.
        IdleStrategy idle = new IdleStrategy(IDLE_SPIN_NANOS, 0);
        while (!stopping) {
            Runnable task = queue.poll();
            if (task != null) {
                try {
                    task.run();
                } finally {
                    if (unfinished.decrementAndGet() == 0) {
                        Thread caller = waitingForRoom;
                        if (caller != null) LockSupport.unpark(caller);
                    }
                }
                idle.reset();
                continue;
            }
            if (idle.idle()) continue;
            parked = true;
            // Checked again after announcing the park, so a task queued meanwhile is never missed.
            if (queue.isEmpty() && !stopping) LockSupport.parkNanos(this, PARK_NANOS);
            parked = false;
        }
    }

    /**
     * Stops the thread once the task it runs (if any) returns, waiting up to five seconds for that, then runs what is
     * still queued on the caller's thread: on a closed communicator each such task fails at once, so no caller is left
     * waiting on a future that never completes.
     */
    @Override
    public void close() {
        stopping = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread) return;
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) return;
        Runnable task;
        while ((task = queue.poll()) != null) task.run();
    }
}
