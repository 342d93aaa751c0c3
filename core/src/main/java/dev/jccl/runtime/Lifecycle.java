package dev.jccl.runtime;

import dev.jccl.JcclException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether a communicator may still run operations: open, failed (the first failure is kept and named in every later
 * refusal), aborted or closed. Shared by the communicator and its executors, so that a failure on any kind of memory
 * fails the whole communicator.
 */
final class Lifecycle {
    private final int rank;
    private volatile JcclException failure;
    // Each is set once; compareAndSet tells the first of any racing threads that it was the first.
    private final AtomicBoolean aborted = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * Set once any of the three above is: every operation's check reads this one word (twice a call), not three, two of
     * them behind a reference.
     */
    private volatile boolean unusable;

    Lifecycle(int rank) {
        this.rank = rank;
    }

    /** Throws if no operation may start now: the communicator is closed, aborted or failed. */
    void checkUsable(String what) {
        if (unusable) refuse(what);
    }

    private void refuse(String what) {
        if (closed.get()) throw new JcclException("rank " + rank + ": " + what + " on a closed communicator");
        if (aborted.get()) throw new JcclException("rank " + rank + ": " + what + " on an aborted communicator");
        JcclException f = failure;
        if (f != null) throw refusal(what, f);
    }

    JcclException refusal(String what, JcclException f) {
        return new JcclException(
                "rank " + rank + ": " + what + " refused: this communicator failed earlier (" + f.getMessage()
                        + "). Close it, or call shrink() to go on with the surviving ranks.",
                f);
    }

    /** Records the first failure; later ones are consequences of it. */
    void fail(JcclException e) {
        if (failure == null) failure = e;
        unusable = true;
    }

    JcclException failure() {
        return failure;
    }

    boolean failed() {
        return failure != null;
    }

    /** Marks the communicator aborted; true the first time only, also when threads race to it. */
    boolean abort() {
        boolean first = aborted.compareAndSet(false, true);
        unusable = true;
        return first;
    }

    boolean aborted() {
        return aborted.get();
    }

    /** Marks the communicator closed; true the first time only, also when threads race to it. */
    boolean close() {
        boolean first = closed.compareAndSet(false, true);
        unusable = true;
        return first;
    }

    boolean closed() {
        return closed.get();
    }
}
