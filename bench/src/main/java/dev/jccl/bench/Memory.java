package dev.jccl.bench;

import dev.jccl.bench.Buffers.Kind;

/**
 * Where the three operands of {@code kernel.apply(a, …, b, …, dst, …)} live. MIXED is what the runtime does for a user
 * with heap arrays: {@code a} and {@code dst} are the user's buffers, {@code b} is the transport's native staging
 * buffer (ScheduleExecutor's {@code with}, {@code piece}, {@code into}).
 */
public enum Memory {
    NATIVE(Kind.NATIVE, Kind.NATIVE, Kind.NATIVE),
    HEAP(Kind.HEAP, Kind.HEAP, Kind.HEAP),
    MIXED(Kind.HEAP, Kind.NATIVE, Kind.HEAP);

    final Kind a;
    final Kind b;
    final Kind dst;

    Memory(Kind a, Kind b, Kind dst) {
        this.a = a;
        this.b = b;
        this.dst = dst;
    }
}
