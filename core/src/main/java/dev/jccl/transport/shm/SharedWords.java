package dev.jccl.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Ordered access to the 64-bit words that processes use to signal each other through shared
 * memory: a writer fills data with plain stores and then releases a word; a reader that acquires
 * the new value sees the data. On x86 both compile to plain moves; the ordering is the compiler's.
 */
final class SharedWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private SharedWords() {}

    static long acquire(MemorySegment s, long offset) {
        return (long) LONG.getAcquire(s, offset);
    }

    static void release(MemorySegment s, long offset, long value) {
        LONG.setRelease(s, offset, value);
    }

    static long getAndAdd(MemorySegment s, long offset, long delta) {
        return (long) LONG.getAndAdd(s, offset, delta);
    }

    static long plain(MemorySegment s, long offset) {
        return (long) LONG.get(s, offset);
    }

    static void setPlain(MemorySegment s, long offset, long value) {
        LONG.set(s, offset, value);
    }
}
