package dev.jccl.bench;

import dev.jccl.bench.Buffers.Kind;

/**
 * Where the three operands of {@code kernel.apply(a, …, b, …, dst, …)} live. {@code a} and {@code dst} are the user's
 * buffers, {@code b} the transport's staging buffer (ScheduleExecutor's {@code with}, {@code piece}, {@code into}).
 * MIXED is what the runtime does for a user with heap arrays: the user's operands on the heap, staging native.
 */
public enum Memory {
    NATIVE,
    HEAP,
    MIXED;

    /** Where {@code a} and {@code dst}, the user's buffers, live. */
    Kind user() {
        return this == NATIVE ? Kind.NATIVE : Kind.HEAP;
    }

    /** Where {@code b}, the transport's staging buffer, lives. */
    Kind staging() {
        return this == HEAP ? Kind.HEAP : Kind.NATIVE;
    }
}
