package dev.jccl.cuda;

import dev.jccl.concurrent.IdleStrategy;

/**
 * How a thread that polls copies and collectives on a device waits when nothing moved: Jccl's one {@link IdleStrategy},
 * with phases for device work. It spins briefly (a copy of a small chunk finishes within microseconds), yields for 100
 * µs, then parks for doubling intervals up to half a millisecond, so that a rank waiting on a slow peer or a long
 * kernel gives its core away (on a machine with fewer cores than ranks the peer needs it).
 */
final class Idle {
    private static final long SPIN_NANOS = 5_000;
    private static final long YIELD_NANOS = 100_000;
    /** The longest park between two looks at a stream or a peer. */
    static final long MAX_PARK_NANOS = 500_000;

    private Idle() {}

    /** A fresh strategy for one polling thread; call {@code idleOrPark(MAX_PARK_NANOS)} on it. */
    static IdleStrategy strategy() {
        return new IdleStrategy(SPIN_NANOS, YIELD_NANOS);
    }
}
