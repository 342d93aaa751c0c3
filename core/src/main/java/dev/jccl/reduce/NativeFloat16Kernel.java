package dev.jccl.reduce;

import static dev.jccl.reduce.Layouts.I16;

import java.lang.foreign.MemorySegment;

/**
 * FLOAT16 SUM or PROD over native operands, the case the collectives meet (shared-memory slots, mapped files and native
 * buffers): one loop reads both segments, converts, computes and rounds back into an L1 scratch array, and one bulk
 * copy writes the chunk to {@code dst}. Where one operand is on the heap (a Java array reduced with a shared-memory
 * slot), a bulk copy brings its chunk into a second scratch array and the loop reads that instead. Where both are,
 * {@code staged} runs, the {@link ChunkedKernel} of the same op.
 *
 * <p>Why: C2 on JDK 25 vectorises a loop that reads native segments and stores into a Java array (the array cannot be
 * native memory, so nothing aliases), with the CPU's binary16 conversions (x86 F16C), though not one that stores into a
 * segment. The {@link ChunkedKernel} copies both operands into arrays first, and those two copies cost as much as the
 * loop itself. Measured on this project's 2-vCPU Zen 4 VM (a standalone loop, 1 MiB operands, GB/s of one operand):
 * 12-15 through this kernel, 6.7-7.0 through the chunked one, whose loop alone runs 13 in L1 and whose three copies
 * alone run 14; a loop that stores into a segment is not vectorised and runs 1.2. With one heap operand: 10-11 against
 * the chunked kernel's 7-8 (at 64 MiB, where memory is the limit, both 2-3.5).
 *
 * <p>Each op's loops are methods of their own, only ever given native segments, so their profiles never see a heap
 * segment, which would make them compile loops that are not vectorised. The operands keep their order (a NaN result's
 * payload may depend on it). The whole chunk of {@code a} and of {@code b} is read before any of {@code dst} is
 * written, so {@code dst} may be exactly {@code a} or {@code b}.
 */
final class NativeFloat16Kernel implements ReduceKernel {

    /** {@code x[i] = a[i] op b[i]} for {@code i < n}, {@code a} and {@code b} native, at byte offsets. */
    @FunctionalInterface
    interface SegmentsLoop {
        void apply(MemorySegment a, long aOffset, MemorySegment b, long bOffset, short[] x, int n);
    }

    /** {@code x[i] = a[i] op y[i]} for {@code i < n}, {@code a} native, {@code y} the other operand's copy. */
    @FunctionalInterface
    interface SegmentThenArrayLoop {
        void apply(MemorySegment a, long aOffset, short[] y, short[] x, int n);
    }

    /** {@code x[i] = y[i] op b[i]} for {@code i < n}, {@code y} the first operand's copy, {@code b} native. */
    @FunctionalInterface
    interface ArrayThenSegmentLoop {
        void apply(short[] y, MemorySegment b, long bOffset, short[] x, int n);
    }

    /**
     * Bytes per piece where the operands stream from memory ({@link ReduceKernels#STREAMING_BYTES} and up): half the
     * scratch array. Why it was tried: a piece's traffic (its part of {@code a} and of {@code b}, the scratch, its part
     * of {@code dst}) is 16 KiB at this size, half the 32 KiB L1, where at 8 KiB it is all of it. What decided it: JMH,
     * FLOAT16 SUM, native operands, 2026-12-07, GB/s of one operand, 6-7 runs each: 64 MiB 5.4-7.3 (median 6.4) against
     * 3.8-6.2 (5.0); at 1 MiB the full piece stays ahead, 14.1-15.7 against 10.9-15.1, so the in-cache kernel keeps it.
     * A 2-rank FLOAT16 AllReduce of 64 MiB (the ring, whose ranks reduce half) took 12.3-33.5 ms (median 17.3) against
     * 16.2-34.7 (19.3), 8 interleaved runs each; FLOAT32 took 11.2-12.2 in the same phase.
     */
    static final int STREAMING_PIECE_BYTES = ChunkedKernel.CHUNK_BYTES / 2;

    static final NativeFloat16Kernel SUM = new NativeFloat16Kernel(
            NativeFloat16Kernel::sum,
            NativeFloat16Kernel::sum,
            NativeFloat16Kernel::sum,
            new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::sum),
            ChunkedKernel.CHUNK_BYTES);
    static final NativeFloat16Kernel PROD = new NativeFloat16Kernel(
            NativeFloat16Kernel::prod,
            NativeFloat16Kernel::prod,
            NativeFloat16Kernel::prod,
            new ChunkedKernel<>(ChunkedKernel.SHORTS, FloatKernels.Fp16::prod),
            ChunkedKernel.CHUNK_BYTES);
    static final NativeFloat16Kernel STREAMING_SUM = SUM.withPieceBytes(STREAMING_PIECE_BYTES);
    static final NativeFloat16Kernel STREAMING_PROD = PROD.withPieceBytes(STREAMING_PIECE_BYTES);

    private final SegmentsLoop segments;
    private final SegmentThenArrayLoop segmentThenArray;
    private final ArrayThenSegmentLoop arrayThenSegment;
    private final ReduceKernel staged;
    /** Bytes of each operand one round of the loop and one copy out handle; at most the scratch arrays' size. */
    private final int pieceBytes;

    private NativeFloat16Kernel(
            SegmentsLoop segments,
            SegmentThenArrayLoop segmentThenArray,
            ArrayThenSegmentLoop arrayThenSegment,
            ReduceKernel staged,
            int pieceBytes) {
        this.segments = segments;
        this.segmentThenArray = segmentThenArray;
        this.arrayThenSegment = arrayThenSegment;
        this.staged = staged;
        this.pieceBytes = pieceBytes;
    }

    /** The same loops in pieces of {@code bytes}. */
    private NativeFloat16Kernel withPieceBytes(int bytes) {
        return new NativeFloat16Kernel(segments, segmentThenArray, arrayThenSegment, staged, bytes);
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
        boolean aNative = a.isNative();
        boolean bNative = b.isNative();
        if (!aNative && !bNative) {
            staged.apply(a, aOffset, b, bOffset, dst, dstOffset, count);
            return;
        }
        ChunkedKernel.Scratch<short[]> s = ChunkedKernel.SHORTS.scratch().get();
        long bytes = count * Short.BYTES;
        for (long done = 0; done < bytes; done += pieceBytes) {
            int chunk = (int) Math.min(pieceBytes, bytes - done);
            int n = chunk / Short.BYTES;
            if (aNative && bNative) {
                segments.apply(a, aOffset + done, b, bOffset + done, s.x(), n);
            } else if (aNative) {
                MemorySegment.copy(b, bOffset + done, s.ySegment(), 0, chunk);
                segmentThenArray.apply(a, aOffset + done, s.y(), s.x(), n);
            } else {
                MemorySegment.copy(a, aOffset + done, s.ySegment(), 0, chunk);
                arrayThenSegment.apply(s.y(), b, bOffset + done, s.x(), n);
            }
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

    static void sum(MemorySegment a, long aOffset, short[] y, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float16.fromArithmeticResult(
                    Float16.toFloatForReduction(a.get(I16, aOffset + (long) i * Short.BYTES))
                            + Float16.toFloatForReduction(y[i]));
        }
    }

    static void prod(MemorySegment a, long aOffset, short[] y, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float16.fromArithmeticResult(
                    Float16.toFloatForReduction(a.get(I16, aOffset + (long) i * Short.BYTES))
                            * Float16.toFloatForReduction(y[i]));
        }
    }

    static void sum(short[] y, MemorySegment b, long bOffset, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float16.fromArithmeticResult(Float16.toFloatForReduction(y[i])
                    + Float16.toFloatForReduction(b.get(I16, bOffset + (long) i * Short.BYTES)));
        }
    }

    static void prod(short[] y, MemorySegment b, long bOffset, short[] x, int n) {
        for (int i = 0; i < n; i++) {
            x[i] = Float16.fromArithmeticResult(Float16.toFloatForReduction(y[i])
                    * Float16.toFloatForReduction(b.get(I16, bOffset + (long) i * Short.BYTES)));
        }
    }
}
