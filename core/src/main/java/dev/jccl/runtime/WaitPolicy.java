package dev.jccl.runtime;

import dev.jccl.concurrent.IdleStrategy;

/**
 * How long a rank that waits for its peers spins, then yields, before it blocks (a futex on the shared-memory doorbell,
 * a selector, a park): one policy per communicator, chosen by whether its ranks on this host outnumber the CPUs this
 * process may use.
 *
 * <p>Two regimes, measured on the project's 2-vCPU VM (kernel 6.18, EEVDF scheduler, PTI on and no PCID, so every
 * switch between processes flushes the TLB):
 *
 * <ul>
 *   <li><b>A core per rank.</b> Polling costs nothing anyone else needs, and blocking is a trap: a vCPU that goes idle
 *       is halted by the hypervisor and takes tens of microseconds to wake (a futex ping-pong round trip costs ~57 µs).
 *       So a waiter polls, checking the clock only now and then, for {@link #DEDICATED_SPIN_NANOS}; then it polls and
 *       yields (to other threads of its process) for {@link #DEDICATED_YIELD_NANOS}; only then it blocks.
 *   <li><b>Ranks outnumber CPUs.</b> A waiter holds a CPU that a peer needs to produce what it waits for. Measured with
 *       4 ranks on 2 CPUs (8-byte AllReduce, µs per call, 3 runs): yielding on every empty poll and never sleeping
 *       58-71; a 2 µs spin then 100 µs of yields then a sleep 60-80; a 20 µs yield phase then a sleep 70-113; sleeping
 *       at once 177-243. A sleep costs a futex wait, a futex wake by the peer and, more often than not, an
 *       inter-processor interrupt; a yield costs one system call and hands the CPU over when the scheduler has anyone
 *       else to run. So a waiter yields on every empty poll (Open MPI's {@code mpi_yield_when_idle} does the same) and
 *       blocks only after {@link #SHARED_YIELD_NANOS} without work, so that a rank left waiting long (its peer
 *       computes) stops taking time slices from it.
 * </ul>
 *
 * @param oversubscribed ranks of this host share its CPUs (see {@code topology.CpuSharing})
 * @param spinNanos how long a waiter polls without giving up its CPU
 * @param yieldNanos how long it then polls, yielding between polls, before it blocks
 */
record WaitPolicy(boolean oversubscribed, long spinNanos, long yieldNanos) {
    static final long DEDICATED_SPIN_NANOS = 20_000;
    static final long DEDICATED_YIELD_NANOS = 10_000_000;
    static final long SHARED_SPIN_NANOS = 0;
    static final long SHARED_YIELD_NANOS = 2_000_000;

    /** Ranks with a CPU each. */
    static final WaitPolicy DEDICATED = new WaitPolicy(false, DEDICATED_SPIN_NANOS, DEDICATED_YIELD_NANOS);
    /** Ranks that share CPUs. */
    static final WaitPolicy SHARED = new WaitPolicy(true, SHARED_SPIN_NANOS, SHARED_YIELD_NANOS);

    /** The policy for ranks that share CPUs with others ({@code oversubscribed}), or have one each. */
    static WaitPolicy of(boolean oversubscribed) {
        return oversubscribed ? SHARED : DEDICATED;
    }

    /** A fresh idle strategy with this policy's phases, for one waiting thread. */
    IdleStrategy newIdleStrategy() {
        return new IdleStrategy(spinNanos, yieldNanos);
    }
}
