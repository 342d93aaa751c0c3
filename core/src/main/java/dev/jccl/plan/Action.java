package dev.jccl.plan;

/**
 * One thing a rank does in a {@link Step}. These few kinds are the primitives every collective is written in; a
 * transport only ever sees the bytes of a {@link Send} or a {@link Receive}.
 */
public sealed interface Action
        permits Action.Send, Action.Receive, Action.LocalCopy, Action.LocalReduce, Action.DivideBySize {

    /** Send the elements of {@code from} to {@code peer}. */
    record Send(int peer, Region from) implements Action {}

    /**
     * Receive {@code into.count()} elements from {@code peer}. With {@code combineWith == null} they are copied into
     * {@code into}; otherwise {@code into[i] = combineWith[i] op incoming[i]} ({@code combineWith} may be {@code into}
     * itself, or the same memory through another role).
     */
    record Receive(int peer, Region into, Region combineWith) implements Action {
        public Receive {
            if (combineWith != null && combineWith.count() != into.count()) {
                throw new IllegalArgumentException(
                        "combineWith count " + combineWith.count() + " != into count " + into.count());
            }
        }
    }

    /** Copy {@code from} into {@code to} (same count); skipped when both are the same memory. */
    record LocalCopy(Region from, Region to) implements Action {
        public LocalCopy {
            if (from.count() != to.count()) {
                throw new IllegalArgumentException("copy counts differ: " + from.count() + " vs " + to.count());
            }
        }
    }

    /**
     * {@code into[i] = a[i] op b[i]}, on this rank's own memory ({@code into} may be {@code a} or {@code b} itself).
     * One-shot schedules combine what every rank sent with these, in rank order, so that every rank computes the same
     * bits.
     */
    record LocalReduce(Region a, Region b, Region into) implements Action {
        public LocalReduce {
            if (a.count() != into.count() || b.count() != into.count()) {
                throw new IllegalArgumentException(
                        "reduce counts differ: " + a.count() + ", " + b.count() + " → " + into.count());
            }
        }
    }

    /** AVG's last step: {@code region[i] /= size}. Emitted only for {@code ReduceOp.AVG}. */
    record DivideBySize(Region region) implements Action {}
}
