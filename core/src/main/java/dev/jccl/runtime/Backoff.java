package dev.jccl.runtime;

/**
 * How a rank waits for its peers: spin for a few microseconds (a reply between cores is often
 * that close), then keep polling but yield between polls, then block until woken (a socket
 * selector, a futex on the shared-memory doorbell, a park). Phases are measured in time, not
 * rounds, since a poll costs 20 ns on shared memory and a microsecond on a socket.
 *
 * <p>Two regimes, measured on the project's 2-core VM:
 * <ul>
 *   <li>Each rank has a core ({@link #forRanks} with ranks ≤ cores): blocking is a trap. A core
 *       that goes idle is halted by the hypervisor and may take milliseconds to wake, so a rank
 *       that sleeps waiting for a 1 MiB AllReduce's next piece made the operation ten times
 *       slower. It polls, yielding to any other thread of its process, for up to
 *       {@link #YIELD_NANOS}, and only then blocks.</li>
 *   <li>Ranks outnumber cores: polling only delays the peer that needs the core, and under
 *       Linux's CFS a yield does not reliably hand the core over, while a woken sleeper may wait a
 *       scheduler slice (about a millisecond) for a core. Measured with a 1 MiB Broadcast of four
 *       ranks on two cores: yielding for good, 1.7 to 4 ms per call; sleeping at once, 1.0 to
 *       1.3 ms; yielding for 100 µs and then sleeping, 0.8 to 1.0 ms. So: a short spin, a short
 *       yield, then the rank sleeps, and its peer's signal wakes it.</li>
 * </ul>
 */
final class Backoff {
    static final long SPIN_NANOS = 20_000;
    static final long YIELD_NANOS = 10_000_000;
    static final long OVERSUBSCRIBED_SPIN_NANOS = 2_000;
    static final long OVERSUBSCRIBED_YIELD_NANOS = 100_000;

    enum Phase { SPIN, YIELD, BLOCK }

    /** How long each phase lasts, for one process. */
    record Policy(long spinNanos, long yieldNanos) {
        /** True if a waiting rank blocks within a fraction of a millisecond (ranks outnumber cores). */
        boolean sleepsSoon() {
            return spinNanos + yieldNanos < 1_000_000;
        }

        /** The policy for a process with {@code localRanks} ranks of its job on this host. */
        static Policy forRanks(int localRanks) {
            return localRanks > Runtime.getRuntime().availableProcessors() ? new Policy(OVERSUBSCRIBED_SPIN_NANOS, OVERSUBSCRIBED_YIELD_NANOS)
                    : new Policy(SPIN_NANOS, YIELD_NANOS);
        }
    }

    static final Policy DEFAULT = new Policy(SPIN_NANOS, YIELD_NANOS);

    private final long spinNanos;
    private final long yieldUntilNanos;
    private boolean idle;
    private long idleSince;

    Backoff() {
        this(DEFAULT);
    }

    Backoff(Policy policy) {
        this.spinNanos = policy.spinNanos();
        this.yieldUntilNanos = policy.spinNanos() + policy.yieldNanos();
    }

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
        if (waited < spinNanos) return Phase.SPIN;
        return waited < yieldUntilNanos ? Phase.YIELD : Phase.BLOCK;
    }

    /** Spends a SPIN or YIELD round; BLOCK rounds are the caller's. */
    static void pause(Phase phase) {
        if (phase == Phase.SPIN) Thread.onSpinWait();
        else Thread.yield();
    }
}
