package dev.jccl.reduce;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import java.util.function.IntFunction;

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
final class ChunkedKernel<A> implements ReduceKernel {

    /** Bytes per scratch array: two of them fit in a 32 KiB L1 data cache with room to spare. */
    static final int CHUNK_BYTES = 8 * 1024;

    /**
     * {@code x[i] = x[i] op y[i]} for {@code i < n}: one of the loops of {@link IntegerKernels} or
     * {@link FloatKernels}.
     */
    @FunctionalInterface
    interface Loop<A> {
        void apply(A x, A y, int n);
    }

    /** The two scratch arrays of one thread, and heap segments over them for the bulk copies. */
    record Scratch<A>(A x, A y, MemorySegment xSegment, MemorySegment ySegment) {}

    /** An element family: the bytes of one element, and each thread's scratch arrays of that element type. */
    record Family<A>(int elementBytes, ThreadLocal<Scratch<A>> scratch) {
        Family(int elementBytes, IntFunction<A> newArray, Function<A, MemorySegment> segmentOf) {
            this(elementBytes, ThreadLocal.withInitial(() -> {
                A x = newArray.apply(CHUNK_BYTES / elementBytes);
                A y = newArray.apply(CHUNK_BYTES / elementBytes);
                return new Scratch<>(x, y, segmentOf.apply(x), segmentOf.apply(y));
            }));
        }
    }

    static final Family<byte[]> BYTES = new Family<>(Byte.BYTES, byte[]::new, MemorySegment::ofArray);
    static final Family<short[]> SHORTS = new Family<>(Short.BYTES, short[]::new, MemorySegment::ofArray);
    static final Family<int[]> INTS = new Family<>(Integer.BYTES, int[]::new, MemorySegment::ofArray);
    static final Family<long[]> LONGS = new Family<>(Long.BYTES, long[]::new, MemorySegment::ofArray);
    static final Family<float[]> FLOATS = new Family<>(Float.BYTES, float[]::new, MemorySegment::ofArray);
    static final Family<double[]> DOUBLES = new Family<>(Double.BYTES, double[]::new, MemorySegment::ofArray);

    private final int elementBytes;
    private final ThreadLocal<Scratch<A>> scratch;
    private final Loop<A> loop;

    ChunkedKernel(Family<A> family, Loop<A> loop) {
        this.elementBytes = family.elementBytes();
        this.scratch = family.scratch();
        this.loop = loop;
    }

    @Override
    public void apply(
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
            loop.apply(s.x(), s.y(), chunk / elementBytes);
            MemorySegment.copy(s.xSegment(), 0, dst, dstOffset + done, chunk);
        }
    }
}
