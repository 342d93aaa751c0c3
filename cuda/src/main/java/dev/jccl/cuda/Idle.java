package dev.jccl.cuda;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread that polls copies and collectives waits when nothing moved: spin briefly (a copy
 * of a small chunk finishes within microseconds), then yield, then park for growing intervals up to
 * half a millisecond, so that a rank that waits on a slow peer gives its core away (on a machine
 * with fewer cores than ranks the peer needs it).
 */
final class Idle {
    private static final int SPIN_ROUNDS = 200;
    private static final long YIELD_NANOS = 100_000;
    private static final long MAX_PARK_NANOS = 500_000;

    private int rounds;
    private long idleSince;
    private long park = 10_000;

    void reset() {
        rounds = 0;
        park = 10_000;
    }

    void idle() {
        if (rounds == 0) idleSince = System.nanoTime();
        rounds++;
        if (rounds < SPIN_ROUNDS) {
            Thread.onSpinWait();
        } else if (System.nanoTime() - idleSince < YIELD_NANOS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(park);
            park = Math.min(MAX_PARK_NANOS, park * 2);
        }
    }
}
