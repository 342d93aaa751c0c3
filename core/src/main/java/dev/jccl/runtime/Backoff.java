package dev.jccl.runtime;

/**
 * How a rank waits for its peers: spin for a few microseconds (a reply between cores is often
 * that close), then keep polling but yield the CPU between polls for a few milliseconds (a yield
 * costs nearly nothing when no one else wants the core, and hands it over when ranks outnumber
 * cores, as Open MPI does when oversubscribed), and only then block or park. Phases are measured
 * in time, not rounds, because a round of polling costs 20 ns on shared memory and a microsecond
 * on sockets.
 */
final class Backoff {
    static final long SPIN_NANOS = 20_000;
    static final long YIELD_NANOS = 2_000_000;

    enum Phase { SPIN, YIELD, BLOCK }

    private boolean idle;
    private long idleSince;

    /** Work was done: the next idle round starts a fresh wait. */
    void reset() {
        idle = false;
    }

    /** Called once per idle round; says how to spend it. */
    Phase next() {
        long now = System.nanoTime();
        if (!idle) {
            idle = true;
            idleSince = now;
            return Phase.SPIN;
        }
        long waited = now - idleSince;
        if (waited < SPIN_NANOS) return Phase.SPIN;
        return waited < YIELD_NANOS ? Phase.YIELD : Phase.BLOCK;
    }

    /** Spends a SPIN or YIELD round; BLOCK rounds are the caller's. */
    static void pause(Phase phase) {
        if (phase == Phase.SPIN) Thread.onSpinWait();
        else if (phase == Phase.YIELD) Thread.yield();
    }
}
