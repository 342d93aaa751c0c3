package dev.jccl.concurrent;

import java.util.concurrent.locks.LockSupport;

/**
 * What a polling loop does with a round in which it found no work, as Agrona's {@code BackoffIdleStrategy}: spin, then
 * yield, then block. Every waiter of Jccl uses one: the schedule executor, the low-latency collectives and the progress
 * thread (with the phases of the communicator's {@code WaitPolicy}), shared-memory set-up, and the device paths'
 * pollers.
 *
 * <p>Blocking is the caller's where only it knows what to block on (the shared-memory doorbell, a selector):
 * {@link #idle()} returns false when the time has come. Waiters with nothing to block on call {@link #idleOrPark},
 * which parks for doubling intervals up to a bound. The clock is read once every {@value #ROUNDS_PER_CLOCK_READ} rounds
 * of the spin phase only, the first time at the end of the first such stretch: reading it costs about as much as a poll
 * of shared memory, and a spinning waiter should notice its data within nanoseconds.
 *
 * <p>Not thread-safe: one per waiting thread.
 */
public final class IdleStrategy {
    private static final int ROUNDS_PER_CLOCK_READ = 64;
    private static final int SPIN = 0;
    private static final int YIELD = 1;
    private static final int BLOCK = 2;
    private static final long FIRST_PARK_NANOS = 10_000;

    private final long spinNanos;
    private final long yieldUntilNanos;
    private int rounds;
    private int phase;
    private long idleSince;
    private long parkNanos = FIRST_PARK_NANOS;

    /** Spins for {@code spinNanos}, then yields until {@code spinNanos + yieldNanos} have passed. */
    public IdleStrategy(long spinNanos, long yieldNanos) {
        this.spinNanos = spinNanos;
        this.yieldUntilNanos = spinNanos + yieldNanos;
    }

    /** Work was done: the next idle round starts a fresh wait. */
    public void reset() {
        rounds = 0;
        parkNanos = FIRST_PARK_NANOS;
    }

    /**
     * Spends one idle round spinning or yielding and returns true, or returns false without spending it once the spin
     * and yield phases are over: the caller should block (and call again after blocking; it keeps returning false until
     * {@link #reset}).
     */
    public boolean idle() {
        if (rounds++ == 0) {
            phase = spinNanos > 0 ? SPIN : YIELD;
            // A spin starts its clock at its first reading, ROUNDS_PER_CLOCK_READ rounds in: most waits of a small
            // collective end before that, and then read no clock at all: on this project's VM a read costs about
            // 30 ns, and clock reads were 8.5% of an 8-byte AllReduce loop's samples (perf, 2 ranks). The spin phase
            // runs those rounds longer, a few µs.
            if (phase == YIELD) idleSince = System.nanoTime();
        }
        if (phase == SPIN) {
            if (rounds % ROUNDS_PER_CLOCK_READ != 0) {
                Thread.onSpinWait();
                return true;
            }
            long now = System.nanoTime();
            if (rounds == ROUNDS_PER_CLOCK_READ) idleSince = now;
            if (now - idleSince < spinNanos) {
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

    /**
     * Spends one idle round: spinning or yielding while {@link #idle()} would, then parking for 10 µs, 20 µs, … up to
     * {@code maxParkNanos}, so that a long wait gives the CPU away (a peer that shares it needs it) without
     * oversleeping a short one by much.
     */
    public void idleOrPark(long maxParkNanos) {
        if (idle()) return;
        LockSupport.parkNanos(parkNanos);
        parkNanos = Math.min(maxParkNanos, parkNanos * 2);
    }
}
