package dev.jccl.reduce;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The floating-point reduce loops, one static method per type × op so that each loop is compiled
 * on its own with its operator inlined (see {@link ReduceKernels} for the semantics).
 *
 * <p>The 16-bit types widen both operands to {@code float}, compute there and round back to nearest
 * even. For SUM and PROD that gives the correctly rounded 16-bit result (a float has at least
 * twice the bits of either format plus two, so rounding twice never differs from rounding once);
 * MIN and MAX return one of the operands unchanged, or a quiet NaN. Operands are widened without
 * quieting NaNs ({@code toFloatForReduction}): rounding back quiets any NaN result anyway.
 */
final class FloatKernels {

    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private FloatKernels() {
    }

    static final class Fp16 {
        private Fp16() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = Float16.toFloatForReduction(a.get(F16, aOff + at));
                float y = Float16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, Float16.fromFloat(x + y));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = Float16.toFloatForReduction(a.get(F16, aOff + at));
                float y = Float16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, Float16.fromFloat(x * y));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = Float16.toFloatForReduction(a.get(F16, aOff + at));
                float y = Float16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, Float16.fromFloat(Math.max(x, y)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = Float16.toFloatForReduction(a.get(F16, aOff + at));
                float y = Float16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, Float16.fromFloat(Math.min(x, y)));
            }
        }
    }

    static final class Bf16 {
        private Bf16() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = BFloat16.toFloatForReduction(a.get(F16, aOff + at));
                float y = BFloat16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, BFloat16.fromFloat(x + y));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = BFloat16.toFloatForReduction(a.get(F16, aOff + at));
                float y = BFloat16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, BFloat16.fromFloat(x * y));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = BFloat16.toFloatForReduction(a.get(F16, aOff + at));
                float y = BFloat16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, BFloat16.fromFloat(Math.max(x, y)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Short.BYTES;
                float x = BFloat16.toFloatForReduction(a.get(F16, aOff + at));
                float y = BFloat16.toFloatForReduction(b.get(F16, bOff + at));
                dst.set(F16, dstOff + at, BFloat16.fromFloat(Math.min(x, y)));
            }
        }
    }

    static final class Fp32 {
        private Fp32() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Float.BYTES;
                dst.set(F32, dstOff + at, a.get(F32, aOff + at) + b.get(F32, bOff + at));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Float.BYTES;
                dst.set(F32, dstOff + at, a.get(F32, aOff + at) * b.get(F32, bOff + at));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Float.BYTES;
                dst.set(F32, dstOff + at, Math.max(a.get(F32, aOff + at), b.get(F32, bOff + at)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Float.BYTES;
                dst.set(F32, dstOff + at, Math.min(a.get(F32, aOff + at), b.get(F32, bOff + at)));
            }
        }
    }

    static final class Fp64 {
        private Fp64() {
        }

        static void sum(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Double.BYTES;
                dst.set(F64, dstOff + at, a.get(F64, aOff + at) + b.get(F64, bOff + at));
            }
        }

        static void prod(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Double.BYTES;
                dst.set(F64, dstOff + at, a.get(F64, aOff + at) * b.get(F64, bOff + at));
            }
        }

        static void max(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Double.BYTES;
                dst.set(F64, dstOff + at, Math.max(a.get(F64, aOff + at), b.get(F64, bOff + at)));
            }
        }

        static void min(MemorySegment a, long aOff, MemorySegment b, long bOff, MemorySegment dst, long dstOff, long count) {
            for (long i = 0; i < count; i++) {
                long at = i * Double.BYTES;
                dst.set(F64, dstOff + at, Math.min(a.get(F64, aOff + at), b.get(F64, bOff + at)));
            }
        }
    }
}
