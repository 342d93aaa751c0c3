package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.FailureVerdict;
import dev.jccl.JcclException;
import dev.jccl.debug.Log;
import java.util.Set;
import java.util.TreeSet;

/**
 * A communicator's {@link Communicator#shrink}: refuses a shrink that cannot be right (closed, healthy, called twice,
 * or this rank the culprit), takes the verdict every rank agrees on, and regroups the survivors without its culprits.
 */
final class Shrink {
    private final CommunicatorInit.Setup setup;
    private final Lifecycle lifecycle;
    private final FailureAgreement agreement;
    /** Set by the first call: a communicator is shrunk once; the next failure shrinks its child. */
    private boolean called;

    Shrink(CommunicatorInit.Setup setup, Lifecycle lifecycle, FailureAgreement agreement) {
        this.setup = setup;
        this.lifecycle = lifecycle;
        this.agreement = agreement;
    }

    Communicator shrink() {
        int rank = setup.rank();
        if (lifecycle.closed()) {
            throw new JcclException("rank " + rank + ": shrink() on a closed communicator. Call shrink() after the "
                    + "failure and before close(): the survivors find each other through the failed communicator.");
        }
        JcclException failure = lifecycle.failure();
        if (failure == null && !lifecycle.aborted()) {
            throw new JcclException("rank " + rank + ": shrink() needs a communicator that has failed or been aborted, "
                    + "and nothing has failed here. To leave ranks out of a healthy communicator, use "
                    + "split(color, key).");
        }
        synchronized (this) {
            if (called) {
                throw new JcclException("rank " + rank + ": shrink() was already called on this communicator. After "
                        + "another failure, shrink the communicator that shrink() returned.");
            }
            called = true;
        }
        // The failed operation's thread may still be agreeing on the verdict (a caller that was refused a later call
        // gets here first): ask for it; every rank gets the same one, whoever asks first.
        FailureVerdict verdict = failure != null && failure.verdict() != null ? failure.verdict() : agreement.agree();
        if (failure != null && verdict != null) failure.withVerdict(verdict); // refusals carry it as their cause's
        Set<Integer> excluded = verdict == null ? Set.of() : new TreeSet<>(verdict.culprits());
        if (excluded.contains(rank)) {
            throw new JcclException("rank " + rank + ": shrink(): this rank is named as the cause of the failure, so "
                    + "the survivors go on without it; close this communicator. " + verdict.describe());
        }
        return excluding(excluded);
    }

    /** Regroups without the ranks in {@code excluded}, whatever the verdict (tests choose them). */
    Communicator excluding(Set<Integer> excluded) {
        Communicator survivors = Regroup.shrink(setup, excluded);
        setup.log()
                .warn(
                        Log.Subsys.INIT,
                        String.format(
                                "comm 0x%016x shrunk: rank %d of %d is now rank %d of %d (left out: %s)",
                                setup.commId(),
                                setup.rank(),
                                setup.size(),
                                survivors.rank(),
                                survivors.size(),
                                excluded));
        return survivors;
    }
}
