package dev.jccl.runtime;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** Questions about where segments lie, for in-place detection and argument checks. */
final class Memory {
    private Memory() {}

    /** True if both segments start at the same place in the same memory and have the same size. */
    static boolean same(MemorySegment a, MemorySegment b) {
        return a.byteSize() == b.byteSize() && sameStart(a, b);
    }

    static boolean sameStart(MemorySegment a, MemorySegment b) {
        if (a.isNative() != b.isNative() || a.address() != b.address()) return false;
        if (a.isNative()) return true;
        Optional<Object> ha = a.heapBase();
        Optional<Object> hb = b.heapBase();
        return ha.isPresent() && hb.isPresent() && ha.get() == hb.get();
    }

    /** True if the two segments share at least one byte. */
    static boolean overlap(MemorySegment a, MemorySegment b) {
        if (a.byteSize() == 0 || b.byteSize() == 0) return false;
        return a.asOverlappingSlice(b).isPresent();
    }
}
