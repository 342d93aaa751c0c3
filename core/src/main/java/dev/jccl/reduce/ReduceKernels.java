package dev.jccl.reduce;

import static dev.jccl.reduce.Layouts.F32;
import static dev.jccl.reduce.Layouts.F64;
import static dev.jccl.reduce.Layouts.I16;
import static dev.jccl.reduce.Layouts.I32;
import static dev.jccl.reduce.Layouts.I64;
import static dev.jccl.reduce.Layouts.I8;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The element-wise reduce kernels for every {@link DataType} × {@link ReduceOp}, and the division that finishes
 * {@link ReduceOp#AVG}.
 *
 * <p>Semantics (NCCL's, spelled out in Java terms):
 *
 * <ul>
 *   <li><b>Integer SUM and PROD wrap</b> on overflow, as Java's {@code int}/{@code long} arithmetic does; the result is
 *       the low bits of the exact result, for signed and unsigned types alike.
 *   <li><b>UINT8, UINT32 and UINT64 compare as unsigned</b> in MIN and MAX ({@code 0xff > 0x01} for UINT8, while INT8
 *       says {@code -1 < 1}).
 *   <li><b>Float MIN and MAX are {@link Math#min(float, float)} and {@link Math#max(float, float)}</b>: a NaN in either
 *       operand gives NaN, and {@code -0.0} is smaller than {@code +0.0}. This differs from C's
 *       {@code fminf}/{@code fmaxf}, which CUDA and NCCL use, and which return the other operand when one is NaN; we
 *       propagate NaN so that a bad value is never hidden by a reduction.
 *   <li><b>FLOAT16 and BFLOAT16</b> are widened to {@code float}, reduced there and rounded back to nearest even
 *       ({@link Float16}, {@link BFloat16}); NaN results are quiet NaNs. Which NaN bits a float NaN result carries is
 *       not specified.
 *   <li><b>AVG</b> is SUM followed by {@link #divideBySize}; {@code of(t, AVG)} is the SUM kernel. (NCCL pre-multiplies
 *       float inputs by {@code 1/size} instead; dividing the sum once is simpler and rounds once.)
 * </ul>
 *
 * <p>Two families of kernels compute these. Where the JVM has the Vector API ({@code --add-modules
 * jdk.incubator.vector}; {@code ./jccl} and the tests pass it), {@link VectorKernels} run one pass over the segments a
 * vector register at a time, for every type and op but FLOAT16 SUM and PROD, which {@link NativeFloat16Kernel} runs
 * where either operand is native. Elsewhere, and for those, each kernel is a plain counted loop over two Java arrays,
 * one compiled method per type × op with its operator inlined, so that C2 vectorises it; {@link ChunkedKernel} streams
 * the operands through per-thread scratch arrays with bulk copies, because C2 on JDK 25 does not vectorise loops over
 * {@code MemorySegment}s (see there for the measurements), and {@link StreamingKernels} serve operands too big for the
 * caches. Both families give the same results; {@code -Djccl.vectorKernels=false} turns the first off. There is no
 * per-element dispatch. Segments may be heap (over any primitive array) or native, at any byte offset, in any mix.
 */
public final class ReduceKernels {

    /** The scalar kernels staged through L1: what {@link #of} gives without the Vector API. */
    private static final ReduceKernel[][] KERNELS =
            new ReduceKernel[DataType.values().length][ReduceOp.values().length];
    /** The scalar kernels for operands from memory: what {@link #streaming} gives without the Vector API. */
    private static final ReduceKernel[][] STREAMING =
            new ReduceKernel[DataType.values().length][ReduceOp.values().length];
    /** The Vector API kernels, null where there is none (or no Vector API in this JVM). */
    private static final ReduceKernel[][] VECTOR = new ReduceKernel[DataType.values().length][ReduceOp.values().length];
    /** {@link VectorKernels}, where this JVM runs them; null otherwise. */
    private static final VectorFamily VECTORS;

    /** What {@link VectorKernels} offers, seen through an interface so that only it names the Vector API's types. */
    interface VectorFamily {
        /** The kernel, or null where the family has none. */
        ReduceKernel of(DataType type, ReduceOp op);

        /** {@link #divideBySize}, or false where the family leaves it to the scalar loops. */
        boolean divide(MemorySegment seg, long offset, long count, DataType type, int size);
    }

    /**
     * Operations of at least this many bytes per rank take the {@link StreamingKernels}: their operands no longer fit
     * the caches (a 1 MiB L2 per core, and a few operands per rank).
     */
    public static final long STREAMING_BYTES = 8L << 20;

    /**
     * Operations of fewer bytes per rank than this, one AVX-512 register, take {@link #plain}: a vector kernel would
     * run only its scalar tail.
     */
    public static final long SMALL_BYTES = 64;

    static {
        staged(
                DataType.INT8,
                ChunkedKernel.BYTES,
                IntegerKernels.Int8::sum,
                IntegerKernels.Int8::prod,
                IntegerKernels.Int8::max,
                IntegerKernels.Int8::min);
        unsigned(
                KERNELS,
                DataType.UINT8,
                DataType.INT8,
                new ChunkedKernel<>(ChunkedKernel.BYTES, IntegerKernels.Uint8::max),
                new ChunkedKernel<>(ChunkedKernel.BYTES, IntegerKernels.Uint8::min));
        staged(
                DataType.INT32,
                ChunkedKernel.INTS,
                IntegerKernels.Int32::sum,
                IntegerKernels.Int32::prod,
                IntegerKernels.Int32::max,
                IntegerKernels.Int32::min);
        unsigned(
                KERNELS,
                DataType.UINT32,
                DataType.INT32,
                new ChunkedKernel<>(ChunkedKernel.INTS, IntegerKernels.Uint32::max),
                new ChunkedKernel<>(ChunkedKernel.INTS, IntegerKernels.Uint32::min));
        staged(
                DataType.INT64,
                ChunkedKernel.LONGS,
                IntegerKernels.Int64::sum,
                IntegerKernels.Int64::prod,
                IntegerKernels.Int64::max,
                IntegerKernels.Int64::min);
        unsigned(
                KERNELS,
                DataType.UINT64,
                DataType.INT64,
                new ChunkedKernel<>(ChunkedKernel.LONGS, IntegerKernels.Uint64::max),
                new ChunkedKernel<>(ChunkedKernel.LONGS, IntegerKernels.Uint64::min));
        fill(
                KERNELS,
                DataType.FLOAT16,
                NativeFloat16Kernel.SUM,
                NativeFloat16Kernel.PROD,
                new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::max),
                new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::min));
        fill(
                KERNELS,
                DataType.BFLOAT16,
                new BFloat16PairKernel(FloatKernels.Fp32::sum),
                new BFloat16PairKernel(FloatKernels.Fp32::prod),
                new BFloat16PairKernel(FloatKernels.Fp32::max),
                new BFloat16PairKernel(FloatKernels.Fp32::min));
        staged(
                DataType.FLOAT32,
                ChunkedKernel.FLOATS,
                FloatKernels.Fp32::sum,
                FloatKernels.Fp32::prod,
                FloatKernels.Fp32::max,
                FloatKernels.Fp32::min);
        staged(
                DataType.FLOAT64,
                ChunkedKernel.DOUBLES,
                FloatKernels.Fp64::sum,
                FloatKernels.Fp64::prod,
                FloatKernels.Fp64::max,
                FloatKernels.Fp64::min);
    }

    static {
        streaming(
                DataType.INT8,
                StreamingKernels.Int8::sum,
                StreamingKernels.Int8::prod,
                StreamingKernels.Int8::max,
                StreamingKernels.Int8::min);
        unsigned(STREAMING, DataType.UINT8, DataType.INT8, StreamingKernels.Uint8::max, StreamingKernels.Uint8::min);
        streaming(
                DataType.INT32,
                StreamingKernels.Int32::sum,
                StreamingKernels.Int32::prod,
                StreamingKernels.Int32::max,
                StreamingKernels.Int32::min);
        unsigned(
                STREAMING, DataType.UINT32, DataType.INT32, StreamingKernels.Uint32::max, StreamingKernels.Uint32::min);
        streaming(
                DataType.INT64,
                StreamingKernels.Int64::sum,
                StreamingKernels.Int64::prod,
                StreamingKernels.Int64::max,
                StreamingKernels.Int64::min);
        unsigned(
                STREAMING, DataType.UINT64, DataType.INT64, StreamingKernels.Uint64::max, StreamingKernels.Uint64::min);
        streaming(
                DataType.FLOAT32,
                StreamingKernels.Fp32::sum,
                StreamingKernels.Fp32::prod,
                StreamingKernels.Fp32::max,
                StreamingKernels.Fp32::min);
        streaming(
                DataType.FLOAT64,
                StreamingKernels.Fp64::sum,
                StreamingKernels.Fp64::prod,
                StreamingKernels.Fp64::max,
                StreamingKernels.Fp64::min);
        // FLOAT16 and BFLOAT16: their conversions bound them, so they keep their in-cache kernels; only FLOAT16 SUM and
        // PROD change, to smaller pieces that leave room in L1 for the operands streaming through it.
        STREAMING[DataType.BFLOAT16.ordinal()] = KERNELS[DataType.BFLOAT16.ordinal()].clone();
        ReduceKernel[] float16 = KERNELS[DataType.FLOAT16.ordinal()];
        fill(
                STREAMING,
                DataType.FLOAT16,
                NativeFloat16Kernel.STREAMING_SUM,
                NativeFloat16Kernel.STREAMING_PROD,
                float16[ReduceOp.MAX.ordinal()],
                float16[ReduceOp.MIN.ordinal()]);
    }

    static {
        VectorFamily vectors = null;
        if (Boolean.parseBoolean(System.getProperty("jccl.vectorKernels", "true"))
                && ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            try {
                // Through reflection, so that a JVM without the module never links the class that names its types.
                vectors = (VectorFamily) Class.forName("dev.jccl.reduce.VectorKernels$Family")
                        .getDeclaredConstructor()
                        .newInstance();
                for (DataType t : DataType.values()) {
                    for (ReduceOp o : ReduceOp.values()) VECTOR[t.ordinal()][o.ordinal()] = vectors.of(t, o);
                }
            } catch (ReflectiveOperationException | LinkageError e) {
                vectors = null;
                java.util.Arrays.stream(VECTOR).forEach(row -> java.util.Arrays.fill(row, null));
            }
        }
        VECTORS = vectors;
    }

    private ReduceKernels() {}

    /** Which kernels this JVM runs, for {@code jccl info} and debug lines: {@code "Vector API, 512-bit"} or why not. */
    public static String describe() {
        if (VECTORS != null) return "Vector API (" + vectorBits() + "-bit vectors)";
        if (!Boolean.parseBoolean(System.getProperty("jccl.vectorKernels", "true"))) {
            return "scalar (-Djccl.vectorKernels=false)";
        }
        return "scalar (the JVM lacks --add-modules jdk.incubator.vector, which makes "
                + "reductions of 16-bit floats up to 18x faster)";
    }

    private static int vectorBits() {
        try {
            return (int) Class.forName("jdk.incubator.vector.VectorShape")
                    .getMethod("vectorBitSize")
                    .invoke(Class.forName("jdk.incubator.vector.VectorShape")
                            .getMethod("preferredShape")
                            .invoke(null));
        } catch (ReflectiveOperationException e) {
            return 0;
        }
    }

    /** True if the Vector API kernels run in this JVM. */
    public static boolean vectorKernels() {
        return VECTORS != null;
    }

    /**
     * The scalar kernel that makes one pass over the segments (the 16-bit floats': staged through L1), whatever this
     * JVM has: what a vector kernel uses for its last elements, and {@link #forOperationBytes} for the smallest
     * operations. Staging a handful of elements costs more than reducing them: a thread-local lookup and three bulk
     * copies, which were 5% of an 8-byte AllReduce loop's samples (perf, 2 ranks on this project's VM).
     */
    static ReduceKernel plain(DataType type, ReduceOp op) {
        return STREAMING[type.ordinal()][op.ordinal()];
    }

    private static void streaming(
            DataType type, ReduceKernel sum, ReduceKernel prod, ReduceKernel max, ReduceKernel min) {
        fill(STREAMING, type, sum, prod, max, min);
    }

    /** The kernel that streams its operands from memory (see {@link StreamingKernels}); AVG gives SUM's. */
    public static ReduceKernel streaming(DataType type, ReduceOp op) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        ReduceKernel v = VECTOR[type.ordinal()][op.ordinal()];
        return v != null ? v : STREAMING[type.ordinal()][op.ordinal()];
    }

    /**
     * The best kernel for an operation of {@code bytes} per rank: one plain pass for less than a vector register's
     * worth, vectorised or staged through cache for the rest, streamed from memory once the operands outgrow the
     * caches.
     */
    public static ReduceKernel forOperationBytes(DataType type, ReduceOp op, long bytes) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        if (bytes < SMALL_BYTES) return plain(type, op);
        return bytes >= STREAMING_BYTES ? streaming(type, op) : of(type, op);
    }

    /** The row of {@code type} in {@link #KERNELS}: its four loops, each staged through {@code family}'s scratch. */
    private static <A> void staged(
            DataType type,
            ChunkedKernel.Family<A> family,
            ChunkedKernel.Loop<A> sum,
            ChunkedKernel.Loop<A> prod,
            ChunkedKernel.Loop<A> max,
            ChunkedKernel.Loop<A> min) {
        fill(
                KERNELS,
                type,
                new ChunkedKernel<>(family, sum),
                new ChunkedKernel<>(family, prod),
                new ChunkedKernel<>(family, max),
                new ChunkedKernel<>(family, min));
    }

    /**
     * The row of an unsigned {@code type} in {@code table}: the {@code signed} type's SUM and PROD, which give the same
     * bits, and its own MAX and MIN.
     */
    private static void unsigned(
            ReduceKernel[][] table, DataType type, DataType signed, ReduceKernel max, ReduceKernel min) {
        ReduceKernel[] bySignedOp = table[signed.ordinal()];
        fill(table, type, bySignedOp[ReduceOp.SUM.ordinal()], bySignedOp[ReduceOp.PROD.ordinal()], max, min);
    }

    private static void fill(
            ReduceKernel[][] table,
            DataType type,
            ReduceKernel sum,
            ReduceKernel prod,
            ReduceKernel max,
            ReduceKernel min) {
        ReduceKernel[] byOp = table[type.ordinal()];
        byOp[ReduceOp.SUM.ordinal()] = sum;
        byOp[ReduceOp.PROD.ordinal()] = prod;
        byOp[ReduceOp.MAX.ordinal()] = max;
        byOp[ReduceOp.MIN.ordinal()] = min;
        byOp[ReduceOp.AVG.ordinal()] = sum; // the division by the number of ranks is divideBySize
    }

    /** The kernel for {@code type} × {@code op}; {@link ReduceOp#AVG} gives the SUM kernel. */
    public static ReduceKernel of(DataType type, ReduceOp op) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(op, "op");
        ReduceKernel v = VECTOR[type.ordinal()][op.ordinal()];
        return v != null ? v : KERNELS[type.ordinal()][op.ordinal()];
    }

    /**
     * Finishes {@link ReduceOp#AVG} in place: divides {@code count} elements of {@code type}, starting
     * {@code byteOffset} bytes into {@code seg}, by {@code size} (the number of ranks).
     *
     * <p>Float types divide in their own arithmetic: FLOAT32 as {@code float}, FLOAT64 as {@code double}, FLOAT16 and
     * BFLOAT16 as {@code float} rounded back to nearest even. Integer types truncate toward zero: a signed division for
     * INT8/INT32/INT64 and an unsigned one for UINT8/UINT32/UINT64, of the (wrapped) sum. For the float types
     * {@code size} is converted to the type first, which is exact up to 2<sup>24</sup> ranks for the float-computed
     * types.
     *
     * @throws IllegalArgumentException if {@code size < 1} or {@code count < 0}
     */
    public static void divideBySize(MemorySegment seg, long byteOffset, long count, DataType type, int size) {
        Objects.requireNonNull(seg, "seg");
        Objects.requireNonNull(type, "type");
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, was " + size);
        }
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, was " + count);
        }
        if (VECTORS == null || !VECTORS.divide(seg, byteOffset, count, type, size)) {
            scalarDivide(seg, byteOffset, count, type, size);
        }
    }

    /**
     * {@link #divideBySize} in scalar loops, whatever this JVM has: what the vector division uses for its last
     * elements.
     */
    static void scalarDivide(MemorySegment seg, long byteOffset, long count, DataType type, int size) {
        switch (type) {
            case INT8 -> AverageLoops.int8(seg, byteOffset, count, size);
            case UINT8 -> AverageLoops.uint8(seg, byteOffset, count, size);
            case INT32 -> AverageLoops.int32(seg, byteOffset, count, size);
            case UINT32 -> AverageLoops.uint32(seg, byteOffset, count, size);
            case INT64 -> AverageLoops.int64(seg, byteOffset, count, size);
            case UINT64 -> AverageLoops.uint64(seg, byteOffset, count, size);
            case FLOAT16 -> AverageLoops.float16(seg, byteOffset, count, size);
            case BFLOAT16 -> AverageLoops.bfloat16(seg, byteOffset, count, size);
            case FLOAT32 -> AverageLoops.float32(seg, byteOffset, count, size);
            case FLOAT64 -> AverageLoops.float64(seg, byteOffset, count, size);
        }
    }

    /** One in-place division loop per type, for the same reason as the kernels: no per-element switch. */
    private static final class AverageLoops {
        private AverageLoops() {}

        static void int8(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                seg.set(I8, off + i, (byte) (seg.get(I8, off + i) / size));
            }
        }

        static void uint8(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                seg.set(I8, off + i, (byte) (Byte.toUnsignedInt(seg.get(I8, off + i)) / size));
            }
        }

        static void int32(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                long at = off + i * Integer.BYTES;
                seg.set(I32, at, seg.get(I32, at) / size);
            }
        }

        static void uint32(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                long at = off + i * Integer.BYTES;
                seg.set(I32, at, Integer.divideUnsigned(seg.get(I32, at), size));
            }
        }

        static void int64(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                long at = off + i * Long.BYTES;
                seg.set(I64, at, seg.get(I64, at) / size);
            }
        }

        static void uint64(MemorySegment seg, long off, long count, int size) {
            for (long i = 0; i < count; i++) {
                long at = off + i * Long.BYTES;
                seg.set(I64, at, Long.divideUnsigned(seg.get(I64, at), size));
            }
        }

        static void float16(MemorySegment seg, long off, long count, int size) {
            float divisor = size;
            for (long i = 0; i < count; i++) {
                long at = off + i * Short.BYTES;
                seg.set(I16, at, Float16.fromFloat(Float16.toFloatForReduction(seg.get(I16, at)) / divisor));
            }
        }

        static void bfloat16(MemorySegment seg, long off, long count, int size) {
            float divisor = size;
            for (long i = 0; i < count; i++) {
                long at = off + i * Short.BYTES;
                seg.set(I16, at, BFloat16.fromFloat(BFloat16.toFloatForReduction(seg.get(I16, at)) / divisor));
            }
        }

        static void float32(MemorySegment seg, long off, long count, int size) {
            float divisor = size;
            for (long i = 0; i < count; i++) {
                long at = off + i * Float.BYTES;
                seg.set(F32, at, seg.get(F32, at) / divisor);
            }
        }

        static void float64(MemorySegment seg, long off, long count, int size) {
            double divisor = size;
            for (long i = 0; i < count; i++) {
                long at = off + i * Double.BYTES;
                seg.set(F64, at, seg.get(F64, at) / divisor);
            }
        }
    }
}
