package dev.jccl.reduce;

import static dev.jccl.reduce.Layouts.F32;
import static dev.jccl.reduce.Layouts.F64;
import static dev.jccl.reduce.Layouts.I32;
import static dev.jccl.reduce.Layouts.I64;
import static dev.jccl.reduce.Layouts.I8;

import java.lang.foreign.MemorySegment;

/**
 * The reduce loops for operands that come from memory rather than cache: one plain pass over the segments,
 * {@code dst[i] = a[i] op b[i]}, that reads both operands and writes the result as three streams. {@link ChunkedKernel}
 * instead stages each operand through L1 scratch arrays so that C2 vectorises the arithmetic, which wins while the
 * operands are in cache and loses once memory is the limit: measured on the project's 2-core Zen 4 VM, FLOAT32 SUM over
 * 64 MiB buffers in 64 KiB pieces ran at 6.4 GB/s this way against 3.3 GB/s staged (and 10 against 15 GB/s at 1 MiB, in
 * cache). The runtime picks these for operations too large for the caches ({@link ReduceKernels#forOperationBytes}).
 *
 * <p>Same semantics as {@link IntegerKernels} and {@link FloatKernels}, expression for expression; the 16-bit float
 * types have none here (their conversions, not memory, are their limit).
 */
final class StreamingKernels {
    private StreamingKernels() {}

    static final class Int8 {
        private Int8() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte) (x + y));
            }
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte) (x * y));
            }
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte) Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte) Math.min(x, y));
            }
        }
    }

    static final class Uint8 {
        private Uint8() {}

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte)
                        (Math.max((byte) (x ^ Byte.MIN_VALUE), (byte) (y ^ Byte.MIN_VALUE)) ^ Byte.MIN_VALUE));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                byte x = a.get(I8, ao + i);
                byte y = b.get(I8, bo + i);
                d.set(I8, dOff + i, (byte)
                        (Math.min((byte) (x ^ Byte.MIN_VALUE), (byte) (y ^ Byte.MIN_VALUE)) ^ Byte.MIN_VALUE));
            }
        }
    }

    static final class Int32 {
        private Int32() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, x + y);
            }
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, x * y);
            }
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, Math.min(x, y));
            }
        }
    }

    static final class Uint32 {
        private Uint32() {}

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, Math.max(x ^ Integer.MIN_VALUE, y ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE);
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                int x = a.get(I32, ao + i * 4);
                int y = b.get(I32, bo + i * 4);
                d.set(I32, dOff + i * 4, Math.min(x ^ Integer.MIN_VALUE, y ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE);
            }
        }
    }

    static final class Int64 {
        private Int64() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, x + y);
            }
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, x * y);
            }
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, Math.min(x, y));
            }
        }
    }

    static final class Uint64 {
        private Uint64() {}

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, Math.max(x ^ Long.MIN_VALUE, y ^ Long.MIN_VALUE) ^ Long.MIN_VALUE);
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                long x = a.get(I64, ao + i * 8);
                long y = b.get(I64, bo + i * 8);
                d.set(I64, dOff + i * 8, Math.min(x ^ Long.MIN_VALUE, y ^ Long.MIN_VALUE) ^ Long.MIN_VALUE);
            }
        }
    }

    static final class Fp32 {
        private Fp32() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                float x = a.get(F32, ao + i * 4);
                float y = b.get(F32, bo + i * 4);
                d.set(F32, dOff + i * 4, x + y);
            }
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                float x = a.get(F32, ao + i * 4);
                float y = b.get(F32, bo + i * 4);
                d.set(F32, dOff + i * 4, x * y);
            }
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                float x = a.get(F32, ao + i * 4);
                float y = b.get(F32, bo + i * 4);
                d.set(F32, dOff + i * 4, Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                float x = a.get(F32, ao + i * 4);
                float y = b.get(F32, bo + i * 4);
                d.set(F32, dOff + i * 4, Math.min(x, y));
            }
        }
    }

    static final class Fp64 {
        private Fp64() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                double x = a.get(F64, ao + i * 8);
                double y = b.get(F64, bo + i * 8);
                d.set(F64, dOff + i * 8, x + y);
            }
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                double x = a.get(F64, ao + i * 8);
                double y = b.get(F64, bo + i * 8);
                d.set(F64, dOff + i * 8, x * y);
            }
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                double x = a.get(F64, ao + i * 8);
                double y = b.get(F64, bo + i * 8);
                d.set(F64, dOff + i * 8, Math.max(x, y));
            }
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            for (long i = 0; i < n; i++) {
                double x = a.get(F64, ao + i * 8);
                double y = b.get(F64, bo + i * 8);
                d.set(F64, dOff + i * 8, Math.min(x, y));
            }
        }
    }
}
