package dev.jccl.runtime;

/**
 * What a polling loop does with a round in which it found no work, as Agrona's
 * {@code BackoffIdleStrategy}: spin, then yield, then block, the phases' lengths set by a
 * {@link WaitPolicy}. Every waiter of the runtime uses one: the schedule executor, the
 * low-latency collectives, the progress thread.
 *
 * <p>Blocking is the caller's, because only it knows what to block on (the shared-memory
 * doorbell, a selector, a park): {@link #idle()} returns false when the time has come. The clock
 * is read once every {@value #ROUNDS_PER_CLOCK_READ} rounds of the spin phase only: reading it
 * costs about as much as a poll of shared memory, and a spinning waiter should notice its data
 * within nanoseconds.
 *
 * <p>Not thread-safe: one per waiting thread.
 */
final class IdleStrategy {
    private static final int ROUNDS_PER_CLOCK_READ = 64;
    private static final int SPIN = 0;
    private static final int YIELD = 1;
    private static final int BLOCK = 2;

    private final long spinNanos;
    private final long yieldUntilNanos;
    private int rounds;
    private int phase;
    private long idleSince;

    IdleStrategy(WaitPolicy policy) {
        this(policy.spinNanos(), policy.yieldNanos());
    }

    IdleStrategy(long spinNanos, long yieldNanos) {
        this.spinNanos = spinNanos;
        this.yieldUntilNanos = spinNanos + yieldNanos;
    }

    /** Work was done: the next idle round starts a fresh wait. */
    void reset() {
        rounds = 0;
    }

    /**
     * Spends one idle round spinning or yielding and returns true, or returns false without
     * spending it once the spin and yield phases are over: the caller should block (and call
     * again after blocking; it keeps returning false until {@link #reset}).
     */
    boolean idle() {
        if (rounds++ == 0) {
            idleSince = System.nanoTime();
            phase = spinNanos > 0 ? SPIN : YIELD;
        }
        if (phase == SPIN) {
            if (rounds % ROUNDS_PER_CLOCK_READ != 0 || System.nanoTime() - idleSince < spinNanos) {
                Thread.onSpinWait();
                return true;
            }
            phase = YIELD;
        }
        if (phase == YIELD) {
            // A yield is a system call: reading the clock beside it costs nothing that matters.
            if (System.nanoTime() - idleSince < yieldUntilNanos) {
                Thread.yield();
                return true;
            }
            phase = BLOCK;
        }
        return false;
    }

    /** True once the spin phase is over (the waiter yields or blocks). */
    boolean pastSpinning() {
        return rounds > 0 && phase != SPIN;
    }
}
