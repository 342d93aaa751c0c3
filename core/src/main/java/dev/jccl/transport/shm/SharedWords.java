package dev.jccl.transport.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Ordered access to the 64-bit words that processes use to signal each other through shared memory: a writer fills data
 * with plain stores and then releases a word; a reader that acquires the new value sees the data. On x86 both compile
 * to plain moves; the ordering is the compiler's.
 */
final class SharedWords {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

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

    static int acquireInt(MemorySegment s, long offset) {
        return (int) INT.getAcquire(s, offset);
    }

    /** A store that no later load may pass: the writer's half of a "set my flag, then look at yours" handshake. */
    static void setIntVolatile(MemorySegment s, long offset, int value) {
        INT.setVolatile(s, offset, value);
    }

    static void releaseInt(MemorySegment s, long offset, int value) {
        INT.setRelease(s, offset, value);
    }

    static boolean compareAndSetInt(MemorySegment s, long offset, int expected, int value) {
        return INT.compareAndSet(s, offset, expected, value);
    }

    static int getAndAddInt(MemorySegment s, long offset, int delta) {
        return (int) INT.getAndAdd(s, offset, delta);
    }
}
