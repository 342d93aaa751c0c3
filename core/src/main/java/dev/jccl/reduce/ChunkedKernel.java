package dev.jccl.reduce;

import java.lang.foreign.MemorySegment;

/**
 * A {@link ReduceKernel} that streams its operands through two per-thread scratch arrays: it copies a chunk of
 * {@code a} into {@code x} and of {@code b} into {@code y}, runs the type's loop {@code x[i] = x[i] op y[i]} over plain
 * Java arrays, and copies {@code x} out to {@code dst}.
 *
 * <p>Why not a loop over the segments themselves: on JDK 25, C2 vectorises a counted loop over arrays indexed from 0,
 * but not a loop over {@code MemorySegment}s (native, heap or mixed), nor one over arrays at invariant offsets: it
 * cannot prove that three operands do not overlap at a shift, and has no runtime aliasing check for it until a later
 * JDK. Measured on this project's 2-core Zen 3 machine (JMH, bench/kernels.sh), FLOAT32 SUM over 1 MiB went from about
 * 0.27 ns per element with a segment loop to about 0.14 through the arrays; the three bulk copies are {@code memcpy}s
 * of L1-resident chunks (8 KiB per array measured faster than 2, 4, 16 or 32 KiB). Over 64 MiB, where memory bandwidth
 * is the limit, the runs on that shared, heavily loaded machine were too noisy to show a difference either way (some
 * showed the segment loop ahead): rerun bench/kernels.sh on a quiet machine before relying on either.
 *
 * <p>The copies also keep every array loop's profile clean: it only ever sees its two scratch arrays, whatever mix of
 * heap and native segments the callers pass, so no call can send it into the deoptimise/recompile cycle that an earlier
 * probe saw in the segment loops (compiled on native segments, then given heap ones). bench's PollutedProfileBench did
 * not reproduce that cycle for the old loops, so this is a precaution, not a measured gain.
 *
 * <p>The whole chunk of {@code a} and of {@code b} is read before any of {@code dst} is written, so {@code dst} may be
 * exactly {@code a} or {@code b} (ReduceKernel's contract); one kernel may run on many threads at once, each with its
 * own scratch. Scratch is {@value #CHUNK_BYTES} bytes per array, two arrays per element family (byte, short, int, long,
 * float, double) a thread has used.
 */
abstract sealed class ChunkedKernel<A> implements ReduceKernel {

    /** Bytes per scratch array: two of them fit in a 32 KiB L1 data cache with room to spare. */
    static final int CHUNK_BYTES = 8 * 1024;

    /** The two scratch arrays of one thread, and heap segments over them for the bulk copies. */
    record Scratch<A>(A x, A y, MemorySegment xSegment, MemorySegment ySegment) {}

    private final int elementBytes;
    private final ThreadLocal<Scratch<A>> scratch;

    private ChunkedKernel(int elementBytes, ThreadLocal<Scratch<A>> scratch) {
        this.elementBytes = elementBytes;
        this.scratch = scratch;
    }

    /** {@code x[i] = x[i] op y[i]} for {@code i < n}. */
    abstract void combine(A x, A y, int n);

    @Override
    public final void apply(
            MemorySegment a,
            long aOffset,
            MemorySegment b,
            long bOffset,
            MemorySegment dst,
            long dstOffset,
            long count) {
        if (count <= 0) {
            return;
        }
        Scratch<A> s = scratch.get();
        long bytes = count * elementBytes;
        for (long done = 0; done < bytes; done += CHUNK_BYTES) {
            int chunk = (int) Math.min(CHUNK_BYTES, bytes - done);
            MemorySegment.copy(a, aOffset + done, s.xSegment(), 0, chunk);
            MemorySegment.copy(b, bOffset + done, s.ySegment(), 0, chunk);
            combine(s.x(), s.y(), chunk / elementBytes);
            MemorySegment.copy(s.xSegment(), 0, dst, dstOffset + done, chunk);
        }
    }

    static final class OfByte extends ChunkedKernel<byte[]> {
        @FunctionalInterface
        interface Loop {
            void apply(byte[] x, byte[] y, int n);
        }

        private static final ThreadLocal<Scratch<byte[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            byte[] x = new byte[CHUNK_BYTES];
            byte[] y = new byte[CHUNK_BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfByte(Loop loop) {
            super(Byte.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(byte[] x, byte[] y, int n) {
            loop.apply(x, y, n);
        }
    }

    static final class OfShort extends ChunkedKernel<short[]> {
        @FunctionalInterface
        interface Loop {
            void apply(short[] x, short[] y, int n);
        }

        private static final ThreadLocal<Scratch<short[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            short[] x = new short[CHUNK_BYTES / Short.BYTES];
            short[] y = new short[CHUNK_BYTES / Short.BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfShort(Loop loop) {
            super(Short.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(short[] x, short[] y, int n) {
            loop.apply(x, y, n);
        }
    }

    static final class OfInt extends ChunkedKernel<int[]> {
        @FunctionalInterface
        interface Loop {
            void apply(int[] x, int[] y, int n);
        }

        private static final ThreadLocal<Scratch<int[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            int[] x = new int[CHUNK_BYTES / Integer.BYTES];
            int[] y = new int[CHUNK_BYTES / Integer.BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfInt(Loop loop) {
            super(Integer.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(int[] x, int[] y, int n) {
            loop.apply(x, y, n);
        }
    }

    static final class OfLong extends ChunkedKernel<long[]> {
        @FunctionalInterface
        interface Loop {
            void apply(long[] x, long[] y, int n);
        }

        private static final ThreadLocal<Scratch<long[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            long[] x = new long[CHUNK_BYTES / Long.BYTES];
            long[] y = new long[CHUNK_BYTES / Long.BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfLong(Loop loop) {
            super(Long.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(long[] x, long[] y, int n) {
            loop.apply(x, y, n);
        }
    }

    static final class OfFloat extends ChunkedKernel<float[]> {
        @FunctionalInterface
        interface Loop {
            void apply(float[] x, float[] y, int n);
        }

        private static final ThreadLocal<Scratch<float[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            float[] x = new float[CHUNK_BYTES / Float.BYTES];
            float[] y = new float[CHUNK_BYTES / Float.BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfFloat(Loop loop) {
            super(Float.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(float[] x, float[] y, int n) {
            loop.apply(x, y, n);
        }
    }

    static final class OfDouble extends ChunkedKernel<double[]> {
        @FunctionalInterface
        interface Loop {
            void apply(double[] x, double[] y, int n);
        }

        private static final ThreadLocal<Scratch<double[]>> SCRATCH = ThreadLocal.withInitial(() -> {
            double[] x = new double[CHUNK_BYTES / Double.BYTES];
            double[] y = new double[CHUNK_BYTES / Double.BYTES];
            return new Scratch<>(x, y, MemorySegment.ofArray(x), MemorySegment.ofArray(y));
        });

        private final Loop loop;

        OfDouble(Loop loop) {
            super(Double.BYTES, SCRATCH);
            this.loop = loop;
        }

        @Override
        void combine(double[] x, double[] y, int n) {
            loop.apply(x, y, n);
        }
    }
}
