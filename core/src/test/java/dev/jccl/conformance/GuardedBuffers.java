package dev.jccl.conformance;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Buffers for the conformance cases: every one is {@link #GUARD} bytes longer than the counted region and filled with
 * {@link #SENTINEL} first, so that a missing write (a sentinel left where data belongs) and an overrun (a guard byte
 * changed) are both caught. The whole segment, guard included, is what the collective is given.
 */
final class GuardedBuffers {
    private GuardedBuffers() {}

    /** Bytes after the counted region that must stay untouched. Odd, so it never lines up with an element size. */
    static final int GUARD = 67;

    /**
     * 0xA5 in every byte: as FLOAT16 −0.0257, as BFLOAT16/FLOAT32/FLOAT64 a tiny negative number — never one of the
     * exact test values (small integers, ±0.5, ±1, ±2).
     */
    static final byte SENTINEL = (byte) 0xA5;

    /** Where a buffer lives; every blocking case runs on both HEAP and NATIVE. */
    enum Mem {
        /** {@code MemorySegment.ofArray(byte[])}: heap, byte-aligned only. */
        HEAP("heap"),
        /** {@code Arena.ofConfined()}: native, accessible only by the calling thread. */
        NATIVE("native-confined"),
        /** {@code Arena.ofShared()}: native, any thread (what async calls need). */
        SHARED("native-shared");

        final String label;

        Mem(String label) {
            this.label = label;
        }
    }

    /**
     * Where a thread's NATIVE and SHARED buffers come from instead of the arena: the device path runs this battery on
     * (stand-in) device memory this way. The segment must live as long as {@code arena}, and be readable by host code
     * (a stand-in's device memory is host memory).
     */
    @FunctionalInterface
    interface NativeSource {
        MemorySegment allocate(long bytes, Arena arena);
    }

    private static final ThreadLocal<NativeSource> NATIVE_SOURCE = new ThreadLocal<>();

    /** From now on this thread's NATIVE and SHARED buffers come from {@code source} (null: from the arena again). */
    static void nativeBuffersFrom(NativeSource source) {
        NATIVE_SOURCE.set(source);
    }

    /** A sentinel-filled buffer of {@code bytes + GUARD}; {@code arena} is ignored for HEAP. */
    static MemorySegment allocate(Mem mem, Arena arena, long bytes) {
        long total = bytes + GUARD;
        NativeSource source = NATIVE_SOURCE.get();
        MemorySegment s = mem == Mem.HEAP
                ? MemorySegment.ofArray(new byte[Math.toIntExact(total)])
                : source != null ? source.allocate(total, arena) : arena.allocate(total, 16);
        s.fill(SENTINEL);
        return s;
    }

    /** First offset in {@code [from, to)} whose byte is not the sentinel, or -1. */
    static long firstNonSentinel(MemorySegment s, long from, long to) {
        for (long i = from; i < to; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != SENTINEL) return i;
        }
        return -1;
    }
}
