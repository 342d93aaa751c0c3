package dev.jccl.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The integer reduce loops, one static method per type × op so that each loop is compiled on its
 * own with its operator inlined (see {@link ReduceKernels} for the semantics).
 *
 * <p>SUM and PROD produce the same bits for a signed and an unsigned type of one width, so the
 * unsigned types reuse the signed loops for those; only MIN and MAX differ.
 */
final class IntegerKernels {

    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private IntegerKernels() {
    }

    static final class Int8 {
        private Int8() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                dst.set(I8, dstOff + i, (byte) (a.get(I8, aOff + i) + b.get(I8, bOff + i)));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                dst.set(I8, dstOff + i, (byte) (a.get(I8, aOff + i) * b.get(I8, bOff + i)));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                dst.set(I8, dstOff + i, (byte) Math.max(a.get(I8, aOff + i), b.get(I8, bOff + i)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                dst.set(I8, dstOff + i, (byte) Math.min(a.get(I8, aOff + i), b.get(I8, bOff + i)));
            }
        }
    }

    static final class Uint8 {
        private Uint8() {
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                int x = Byte.toUnsignedInt(a.get(I8, aOff + i));
                int y = Byte.toUnsignedInt(b.get(I8, bOff + i));
                dst.set(I8, dstOff + i, (byte) Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                int x = Byte.toUnsignedInt(a.get(I8, aOff + i));
                int y = Byte.toUnsignedInt(b.get(I8, bOff + i));
                dst.set(I8, dstOff + i, (byte) Math.min(x, y));
            }
        }
    }

    static final class Int32 {
        private Int32() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                dst.set(I32, dstOff + at, a.get(I32, aOff + at) + b.get(I32, bOff + at));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                dst.set(I32, dstOff + at, a.get(I32, aOff + at) * b.get(I32, bOff + at));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                dst.set(I32, dstOff + at, Math.max(a.get(I32, aOff + at), b.get(I32, bOff + at)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                dst.set(I32, dstOff + at, Math.min(a.get(I32, aOff + at), b.get(I32, bOff + at)));
            }
        }
    }

    /**
     * Flipping the sign bit maps unsigned order onto signed order, so a signed Math.max/min (one
     * vector instruction, no branch) of the flipped values, flipped back, is the unsigned max/min.
     */
    static final class Uint32 {
        private Uint32() {
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                int x = a.get(I32, aOff + at) ^ Integer.MIN_VALUE;
                int y = b.get(I32, bOff + at) ^ Integer.MIN_VALUE;
                dst.set(I32, dstOff + at, Math.max(x, y) ^ Integer.MIN_VALUE);
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Integer.BYTES;
                int x = a.get(I32, aOff + at) ^ Integer.MIN_VALUE;
                int y = b.get(I32, bOff + at) ^ Integer.MIN_VALUE;
                dst.set(I32, dstOff + at, Math.min(x, y) ^ Integer.MIN_VALUE);
            }
        }
    }

    static final class Int64 {
        private Int64() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                dst.set(I64, dstOff + at, a.get(I64, aOff + at) + b.get(I64, bOff + at));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                dst.set(I64, dstOff + at, a.get(I64, aOff + at) * b.get(I64, bOff + at));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                dst.set(I64, dstOff + at, Math.max(a.get(I64, aOff + at), b.get(I64, bOff + at)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                dst.set(I64, dstOff + at, Math.min(a.get(I64, aOff + at), b.get(I64, bOff + at)));
            }
        }
    }

    /** Unsigned order by flipping the sign bit, as in {@link Uint32}. */
    static final class Uint64 {
        private Uint64() {
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                long x = a.get(I64, aOff + at) ^ Long.MIN_VALUE;
                long y = b.get(I64, bOff + at) ^ Long.MIN_VALUE;
                dst.set(I64, dstOff + at, Math.max(x, y) ^ Long.MIN_VALUE);
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Long.BYTES;
                long x = a.get(I64, aOff + at) ^ Long.MIN_VALUE;
                long y = b.get(I64, bOff + at) ^ Long.MIN_VALUE;
                dst.set(I64, dstOff + at, Math.min(x, y) ^ Long.MIN_VALUE);
            }
        }
    }
}
