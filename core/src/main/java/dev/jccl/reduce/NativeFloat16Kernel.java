package dev.jccl.reduce;

import static dev.jccl.reduce.Layouts.I16;

import java.lang.foreign.MemorySegment;

/**
 * FLOAT16 SUM or PROD over native operands, the case the collectives meet (shared-memory slots, mapped files and native
 * buffers): one loop reads both segments, converts, computes and rounds back into an L1 scratch array, and one bulk
 * copy writes the chunk to {@code dst}. Heap operands take {@code staged}, the {@link ChunkedKernel} of the same op.
 *
 * <p>Why: C2 on JDK 25 vectorises a loop that reads native segments and stores into a Java array (the array cannot be
 * native memory, so nothing aliases), with the CPU's binary16 conversions (x86 F16C), though not one that stores into a
 * segment. The {@link ChunkedKernel} copies both operands into arrays first, and those two copies cost as much as the
 * loop itself. Measured on this project's 2-vCPU Zen 4 VM (a standalone loop, 1 MiB operands, GB/s of one operand):
 * 12-15 through this kernel, 6.7-7.0 through the chunked one, whose loop alone runs 13 in L1 and whose three copies
 * alone run 14; a loop that stores into a segment is not vectorised and runs 1.2.
 *
 * <p>Each op's loop is its own method, only ever given native segments, so its profile never sees a heap segment, which
 * would make it compile a loop that is not vectorised. The whole chunk of {@code a} and of {@code b} is read before any
 * of {@code dst} is written, so {@code dst} may be exactly {@code a} or {@code b}.
 */
final class NativeFloat16Kernel implements ReduceKernel {

    /** {@code x[i] = a[i] op b[i]} for {@code i < n}, {@code a} and {@code b} native, at byte offsets. */
    @FunctionalInterface
    interface Loop {
        void apply(MemorySegment a, long aOffset, MemorySegment b, long bOffset, short[] x, int n);
    }

    static final NativeFloat16Kernel SUM = new NativeFloat16Kernel(
            NativeFloat16Kernel::sum, new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::sum));
    static final NativeFloat16Kernel PROD = new NativeFloat16Kernel(
            NativeFloat16Kernel::prod, new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::prod));

    private final Loop loop;
    private final ReduceKernel staged;

    private NativeFloat16Kernel(Loop loop, ReduceKernel staged) {
        this.loop = loop;
        this.staged = staged;
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
        if (!a.isNative() || !b.isNative()) {
            staged.apply(a, aOffset, b, bOffset, dst, dstOffset, count);
            return;
        }
        ChunkedKernel.Scratch<short[]> s = ChunkedKernel.SHORTS.scratch().get();
        long bytes = count * Short.BYTES;
        for (long done = 0; done < bytes; done += ChunkedKernel.CHUNK_BYTES) {
            int chunk = (int) Math.min(ChunkedKernel.CHUNK_BYTES, bytes - done);
            loop.apply(a, aOffset + done, b, bOffset + done, s.x(), chunk / Short.BYTES);
            MemorySegment.copy(s.xSegment(), 0, dst, dstOffset + done, chunk);
        }
    }

    static void sum(MemorySegment a, long aOffset, MemorySegment b, long bOffset, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            long at = (long) i * Short.BYTES;
            x[i] = Float16.fromArithmeticResult(Float16.toFloatForReduction(a.get(I16, aOffset + at))
                    + Float16.toFloatForReduction(b.get(I16, bOffset + at)));
        }
    }

    static void prod(MemorySegment a, long aOffset, MemorySegment b, long bOffset, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            long at = (long) i * Short.BYTES;
            x[i] = Float16.fromArithmeticResult(Float16.toFloatForReduction(a.get(I16, aOffset + at))
                    * Float16.toFloatForReduction(b.get(I16, bOffset + at)));
        }
    }
}
