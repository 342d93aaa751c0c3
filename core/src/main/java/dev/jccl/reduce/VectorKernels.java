package dev.jccl.reduce;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The reduce kernels written with the Vector API ({@code jdk.incubator.vector}): one pass over the segments, a whole
 * vector register of elements per step, read and written in place, heap or native. Only {@link ReduceKernels} touches
 * this class, and only when the JVM has the module ({@code --add-modules jdk.incubator.vector}, which {@code ./jccl}
 * passes); elsewhere the scalar kernels run, with the same results.
 *
 * <p>Why: C2 vectorises plain loops over Java arrays but not over {@code MemorySegment}s, so the scalar kernels copy
 * each operand into L1 scratch arrays first ({@link ChunkedKernel}); and it vectorises no loop whose 16-bit values are
 * widened, computed on and narrowed again, which left BFLOAT16 at about 1 ns per element. Measured on the project's
 * 2-vCPU Zen 5 VM (GB/s of one operand, a prototype of these loops against the scalar kernels, a copy of the same bytes
 * beside): BFLOAT16 SUM 16-18 against 0.9 at 1 MiB, 10 against 0.9 at 64 MiB; FLOAT32 SUM 20-22 against 20 at 1 MiB,
 * 10-11 against 6.6 at 64 MiB; a copy 41-47 and 17-20.
 *
 * <p>Semantics are {@link ReduceKernels}': the float MIN and MAX are the Vector API's, which are {@link Math#min(float,
 * float)}'s; BFLOAT16 widens each half of a 32-bit lane to a float, computes there and rounds back to nearest even,
 * quieting NaNs, exactly as {@link BFloat16} does; FLOAT16 MIN and MAX compare bit patterns mapped to ordered integers
 * (the values never leave their 16 bits), NaN winning and made quiet; FLOAT16 SUM and PROD stay scalar (see
 * {@link Fp16}). AVG's division by the number of ranks is vectorised for FLOAT32, FLOAT64 and BFLOAT16.
 *
 * <p>Each kernel is its own method with its operator written out, so that C2 compiles each with constant vector
 * operations; the elements left after the last whole vector go through the scalar kernel of the same type and op.
 */
final class VectorKernels {
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Short> S = ShortVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;

    private VectorKernels() {}

    /** What {@link ReduceKernels} reaches through reflection: only it decides whether this class may load. */
    static final class Family implements ReduceKernels.VectorFamily {
        @Override
        public ReduceKernel of(DataType type, ReduceOp op) {
            return VectorKernels.of(type, op);
        }

        @Override
        public boolean divide(MemorySegment seg, long offset, long count, DataType type, int size) {
            return VectorKernels.divide(seg, offset, count, type, size);
        }
    }

    /** The vector kernel for {@code type} × {@code op} (AVG: SUM's), or null where there is none. */
    static ReduceKernel of(DataType type, ReduceOp op) {
        ReduceOp o = op == ReduceOp.AVG ? ReduceOp.SUM : op;
        return switch (type) {
            case INT8 -> pick(o, Int8::sum, Int8::prod, Int8::min, Int8::max);
            case UINT8 -> pick(o, Int8::sum, Int8::prod, Int8::umin, Int8::umax);
            case INT32 -> pick(o, Int32::sum, Int32::prod, Int32::min, Int32::max);
            case UINT32 -> pick(o, Int32::sum, Int32::prod, Int32::umin, Int32::umax);
            case INT64 -> pick(o, Int64::sum, Int64::prod, Int64::min, Int64::max);
            case UINT64 -> pick(o, Int64::sum, Int64::prod, Int64::umin, Int64::umax);
            case FLOAT32 -> pick(o, Fp32::sum, Fp32::prod, Fp32::min, Fp32::max);
            case FLOAT64 -> pick(o, Fp64::sum, Fp64::prod, Fp64::min, Fp64::max);
            case BFLOAT16 -> pick(o, Bf16::sum, Bf16::prod, Bf16::min, Bf16::max);
            case FLOAT16 -> pick(o, null, null, Fp16::min, Fp16::max); // SUM and PROD stay scalar, see Fp16
        };
    }

    /** The one of a type's kernels that computes {@code op}; null for an op it has none for. */
    private static ReduceKernel pick(
            ReduceOp op, ReduceKernel sum, ReduceKernel prod, ReduceKernel min, ReduceKernel max) {
        return switch (op) {
            case SUM -> sum;
            case PROD -> prod;
            case MIN -> min;
            case MAX -> max;
            default -> null;
        };
    }

    /**
     * AVG's division of {@code count} elements by {@code size}, in place, for FLOAT32, FLOAT64 and BFLOAT16, with the
     * scalar division's results; false for the others (left to the scalar loops).
     */
    static boolean divide(MemorySegment seg, long off, long count, DataType type, int size) {
        long bytes = count * type.byteSize();
        long i = 0;
        switch (type) {
            case FLOAT32 -> {
                float divisor = size;
                for (long step = F.vectorByteSize(); i + step <= bytes; i += step) {
                    FloatVector.fromMemorySegment(F, seg, off + i, ORDER)
                            .div(divisor)
                            .intoMemorySegment(seg, off + i, ORDER);
                }
            }
            case FLOAT64 -> {
                double divisor = size;
                for (long step = D.vectorByteSize(); i + step <= bytes; i += step) {
                    DoubleVector.fromMemorySegment(D, seg, off + i, ORDER)
                            .div(divisor)
                            .intoMemorySegment(seg, off + i, ORDER);
                }
            }
            case BFLOAT16 -> {
                float divisor = size;
                for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                    IntVector x = IntVector.fromMemorySegment(I, seg, off + i, ORDER);
                    Bf16.pack(Bf16.low(x).div(divisor), Bf16.high(x).div(divisor))
                            .intoMemorySegment(seg, off + i, ORDER);
                }
            }
            default -> {
                return false;
            }
        }
        if (i < bytes) ReduceKernels.scalarDivide(seg, off + i, (bytes - i) / type.byteSize(), type, size);
        return true;
    }

    /** The elements from byte {@code done} on, fewer than a vector's, through the scalar kernel. */
    private static void tail(
            DataType type,
            ReduceOp op,
            MemorySegment a,
            long ao,
            MemorySegment b,
            long bo,
            MemorySegment d,
            long dOff,
            long done,
            long bytes) {
        if (done < bytes) {
            ReduceKernels.plain(type, op)
                    .apply(a, ao + done, b, bo + done, d, dOff + done, (bytes - done) / type.byteSize());
        }
    }

    static final class Int8 {
        private Int8() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .add(ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT8, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, n);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .mul(ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT8, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, n);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .min(ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT8, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, n);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .max(ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT8, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, n);
        }

        static void umin(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMIN, ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT8, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, n);
        }

        static void umax(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long i = 0;
            for (long step = B.vectorByteSize(); i + step <= n; i += step) {
                ByteVector.fromMemorySegment(B, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMAX, ByteVector.fromMemorySegment(B, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT8, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, n);
        }
    }

    static final class Int32 {
        private Int32() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .add(IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT32, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .mul(IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT32, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .min(IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT32, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .max(IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT32, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void umin(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMIN, IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT32, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void umax(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Integer.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector.fromMemorySegment(I, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMAX, IntVector.fromMemorySegment(I, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT32, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }

    static final class Int64 {
        private Int64() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .add(LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT64, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .mul(LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT64, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .min(LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT64, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .max(LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.INT64, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void umin(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMIN, LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT64, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void umax(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Long.BYTES;
            long i = 0;
            for (long step = L.vectorByteSize(); i + step <= bytes; i += step) {
                LongVector.fromMemorySegment(L, a, ao + i, ORDER)
                        .lanewise(VectorOperators.UMAX, LongVector.fromMemorySegment(L, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.UINT64, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }

    static final class Fp32 {
        private Fp32() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Float.BYTES;
            long i = 0;
            for (long step = F.vectorByteSize(); i + step <= bytes; i += step) {
                FloatVector.fromMemorySegment(F, a, ao + i, ORDER)
                        .add(FloatVector.fromMemorySegment(F, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT32, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Float.BYTES;
            long i = 0;
            for (long step = F.vectorByteSize(); i + step <= bytes; i += step) {
                FloatVector.fromMemorySegment(F, a, ao + i, ORDER)
                        .mul(FloatVector.fromMemorySegment(F, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT32, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Float.BYTES;
            long i = 0;
            for (long step = F.vectorByteSize(); i + step <= bytes; i += step) {
                FloatVector.fromMemorySegment(F, a, ao + i, ORDER)
                        .min(FloatVector.fromMemorySegment(F, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT32, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Float.BYTES;
            long i = 0;
            for (long step = F.vectorByteSize(); i + step <= bytes; i += step) {
                FloatVector.fromMemorySegment(F, a, ao + i, ORDER)
                        .max(FloatVector.fromMemorySegment(F, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT32, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }

    static final class Fp64 {
        private Fp64() {}

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Double.BYTES;
            long i = 0;
            for (long step = D.vectorByteSize(); i + step <= bytes; i += step) {
                DoubleVector.fromMemorySegment(D, a, ao + i, ORDER)
                        .add(DoubleVector.fromMemorySegment(D, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT64, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Double.BYTES;
            long i = 0;
            for (long step = D.vectorByteSize(); i + step <= bytes; i += step) {
                DoubleVector.fromMemorySegment(D, a, ao + i, ORDER)
                        .mul(DoubleVector.fromMemorySegment(D, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT64, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Double.BYTES;
            long i = 0;
            for (long step = D.vectorByteSize(); i + step <= bytes; i += step) {
                DoubleVector.fromMemorySegment(D, a, ao + i, ORDER)
                        .min(DoubleVector.fromMemorySegment(D, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT64, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Double.BYTES;
            long i = 0;
            for (long step = D.vectorByteSize(); i + step <= bytes; i += step) {
                DoubleVector.fromMemorySegment(D, a, ao + i, ORDER)
                        .max(DoubleVector.fromMemorySegment(D, b, bo + i, ORDER))
                        .intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT64, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }

    /**
     * BFLOAT16 two elements at a time, each 32-bit lane holding a pair: the low half widens to a float by a shift, the
     * high half by a mask (a bfloat16 is a float's upper half), each is computed as a float and rounded back, and the
     * two halves are packed again. Element-wise, so which half is which element does not matter.
     *
     * <p>What bounds it is the passage of the lanes between int and float, not the arithmetic. JMH, SUM, native memory,
     * GB/s at 4 KiB and 1 MiB, variants of this loop interleaved (2026-12-08): this loop 13.2-14.2 (one run 5.4) and
     * 11.3-12.0; the same loop with integer adds in place of the float adds and no rounding (wrong results, timed only)
     * 35-42 and 24-30; float adds but no rounding 14-18 and 14-17; only the low halves' chain, one float add, 17.6 and
     * 12-14; without the NaN mask 13-16 and 12.3-12.6; {@code viewAsFloatingLanes} instead of
     * {@code reinterpretAsFloats} 16-17 and 13-15; 256-bit vectors 7.4-8.5 (the cost is per vector, whatever its
     * width); staged through a scratch segment in L1 instead of reinterpreted, 8-9. The CPU has AVX512_BF16, whose
     * conversion the Vector API does not reach.
     */
    static final class Bf16 {
        private static final int HIGH = 0xffff0000;

        private Bf16() {}

        static FloatVector low(IntVector pairs) {
            return pairs.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        }

        static FloatVector high(IntVector pairs) {
            return pairs.and(HIGH).reinterpretAsFloats();
        }

        /** {@link BFloat16#fromFloat} on every lane, the result in the upper half of the lane's bits. */
        private static IntVector rounded(FloatVector f) {
            IntVector bits = f.reinterpretAsInts();
            IntVector nan = IntVector.broadcast(I, 0x7f80_0000)
                    .sub(bits.and(0x7fff_ffff))
                    .lanewise(VectorOperators.ASHR, 31);
            IntVector bias =
                    bits.lanewise(VectorOperators.LSHR, 16).and(1).add(0x7fff).and(nan.not());
            return bits.add(bias).or(nan.and(0x0040_0000));
        }

        static IntVector pack(FloatVector lo, FloatVector hi) {
            return rounded(hi).and(HIGH).or(rounded(lo).lanewise(VectorOperators.LSHR, 16));
        }

        static void sum(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector x = IntVector.fromMemorySegment(I, a, ao + i, ORDER);
                IntVector y = IntVector.fromMemorySegment(I, b, bo + i, ORDER);
                pack(low(x).add(low(y)), high(x).add(high(y))).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.BFLOAT16, ReduceOp.SUM, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void prod(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector x = IntVector.fromMemorySegment(I, a, ao + i, ORDER);
                IntVector y = IntVector.fromMemorySegment(I, b, bo + i, ORDER);
                pack(low(x).mul(low(y)), high(x).mul(high(y))).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.BFLOAT16, ReduceOp.PROD, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector x = IntVector.fromMemorySegment(I, a, ao + i, ORDER);
                IntVector y = IntVector.fromMemorySegment(I, b, bo + i, ORDER);
                pack(low(x).min(low(y)), high(x).min(high(y))).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.BFLOAT16, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = I.vectorByteSize(); i + step <= bytes; i += step) {
                IntVector x = IntVector.fromMemorySegment(I, a, ao + i, ORDER);
                IntVector y = IntVector.fromMemorySegment(I, b, bo + i, ORDER);
                pack(low(x).max(low(y)), high(x).max(high(y))).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.BFLOAT16, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }

    /**
     * FLOAT16 MIN and MAX on the bit patterns: flipping the magnitude bits of negative values makes the 16-bit patterns
     * order as signed integers exactly as the values do (-0 below +0), so a compare and a blend pick the operand; a NaN
     * operand wins and is made quiet.
     *
     * <p>SUM and PROD are not here. The Vector API has no binary16 conversions, and written out in integer lanes (F.
     * Giesen's branch-free conversions, a dozen operations each way) they made a loop too big for C2 to inline the
     * Vector API's methods into (NodeCountInliningCutoff): every vector was then boxed, and the loop ran at 0.1 GB/s.
     * The scalar loops, which C2 vectorises with the CPU's own conversion instructions, run at 10.5 GB/s at 1 MiB.
     */
    static final class Fp16 {
        private static final short MAGNITUDE = 0x7fff;
        private static final short INFINITY = 0x7c00;
        private static final short QUIET = 0x0200;

        private Fp16() {}

        private static ShortVector ordered(ShortVector bits) {
            return bits.lanewise(
                    VectorOperators.XOR, bits.lanewise(VectorOperators.ASHR, 15).and(MAGNITUDE));
        }

        private static ShortVector withNaNs(ShortVector picked, ShortVector x, ShortVector y) {
            VectorMask<Short> yNaN = y.and(MAGNITUDE).compare(VectorOperators.GT, INFINITY);
            VectorMask<Short> xNaN = x.and(MAGNITUDE).compare(VectorOperators.GT, INFINITY);
            return picked.blend(y.or(QUIET), yNaN).blend(x.or(QUIET), xNaN);
        }

        static void min(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = S.vectorByteSize(); i + step <= bytes; i += step) {
                ShortVector x = ShortVector.fromMemorySegment(S, a, ao + i, ORDER);
                ShortVector y = ShortVector.fromMemorySegment(S, b, bo + i, ORDER);
                ShortVector picked = y.blend(x, ordered(x).compare(VectorOperators.LE, ordered(y)));
                withNaNs(picked, x, y).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT16, ReduceOp.MIN, a, ao, b, bo, d, dOff, i, bytes);
        }

        static void max(MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment d, long dOff, long n) {
            long bytes = n * Short.BYTES;
            long i = 0;
            for (long step = S.vectorByteSize(); i + step <= bytes; i += step) {
                ShortVector x = ShortVector.fromMemorySegment(S, a, ao + i, ORDER);
                ShortVector y = ShortVector.fromMemorySegment(S, b, bo + i, ORDER);
                ShortVector picked = y.blend(x, ordered(x).compare(VectorOperators.GE, ordered(y)));
                withNaNs(picked, x, y).intoMemorySegment(d, dOff + i, ORDER);
            }
            tail(DataType.FLOAT16, ReduceOp.MAX, a, ao, b, bo, d, dOff, i, bytes);
        }
    }
}
