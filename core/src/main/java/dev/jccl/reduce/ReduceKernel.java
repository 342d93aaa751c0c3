package dev.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * {@code dst[i] = a[i] op b[i]} for {@code i < count}, for one DataType × ReduceOp. Offsets are in bytes; {@code dst}
 * may be exactly the same memory as {@code a} or {@code b} (not a shifted overlap). Segments may be heap or native, of
 * any alignment.
 */
@FunctionalInterface
public interface ReduceKernel {
    void apply(
            MemorySegment a,
            long aOffset,
            MemorySegment b,
            long bOffset,
            MemorySegment dst,
            long dstOffset,
            long count);
}
