package dev.jccl.conformance;

import dev.jccl.DataType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads and writes one element of any {@link DataType} as raw bits, zero-extended into a long. Unaligned layouts
 * throughout: the suite passes {@code byte[]}-backed heap segments for every type, which the API allows.
 */
final class Elements {
    private Elements() {}

    static long get(MemorySegment s, DataType t, long index) {
        return switch (t.byteSize()) {
            case 1 -> s.get(ValueLayout.JAVA_BYTE, index) & 0xFFL;
            case 2 -> s.get(ValueLayout.JAVA_SHORT_UNALIGNED, index * 2) & 0xFFFFL;
            case 4 -> s.get(ValueLayout.JAVA_INT_UNALIGNED, index * 4) & 0xFFFF_FFFFL;
            default -> s.get(ValueLayout.JAVA_LONG_UNALIGNED, index * 8);
        };
    }

    /** Per-thread scratch for {@link #getAll}: one array per element width. */
    private static final class Scratch {
        byte[] bytes = new byte[0];
        short[] shorts = new short[0];
        int[] ints = new int[0];
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /**
     * Elements {@code first..first+n-1} of {@code s} into {@code out[0..n-1]}, as {@link #get} would read them one by
     * one. One bulk copy instead of an access per element: the conformance checks read every element of every result,
     * and per-element segment accesses (a liveness and an alignment check each) were a third of the suite's CPU time.
     */
    static void getAll(MemorySegment s, DataType t, long first, long[] out, int n) {
        Scratch scratch = SCRATCH.get();
        switch (t.byteSize()) {
            case 1 -> {
                if (scratch.bytes.length < n) scratch.bytes = new byte[n];
                byte[] b = scratch.bytes;
                MemorySegment.copy(s, ValueLayout.JAVA_BYTE, first, b, 0, n);
                for (int i = 0; i < n; i++) out[i] = b[i] & 0xFFL;
            }
            case 2 -> {
                if (scratch.shorts.length < n) scratch.shorts = new short[n];
                short[] b = scratch.shorts;
                MemorySegment.copy(s, ValueLayout.JAVA_SHORT_UNALIGNED, first * 2, b, 0, n);
                for (int i = 0; i < n; i++) out[i] = b[i] & 0xFFFFL;
            }
            case 4 -> {
                if (scratch.ints.length < n) scratch.ints = new int[n];
                int[] b = scratch.ints;
                MemorySegment.copy(s, ValueLayout.JAVA_INT_UNALIGNED, first * 4, b, 0, n);
                for (int i = 0; i < n; i++) out[i] = b[i] & 0xFFFF_FFFFL;
            }
            default -> MemorySegment.copy(s, ValueLayout.JAVA_LONG_UNALIGNED, first * 8, out, 0, n);
        }
    }

    static void set(MemorySegment s, DataType t, long index, long bits) {
        switch (t.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, index, (byte) bits);
            case 2 -> s.set(ValueLayout.JAVA_SHORT_UNALIGNED, index * 2, (short) bits);
            case 4 -> s.set(ValueLayout.JAVA_INT_UNALIGNED, index * 4, (int) bits);
            default -> s.set(ValueLayout.JAVA_LONG_UNALIGNED, index * 8, bits);
        }
    }

    /** Mask of the element's bits within a long. */
    static long mask(DataType t) {
        return t.byteSize() == 8 ? -1L : (1L << (8 * t.byteSize())) - 1;
    }

    /** The numeric value of float-type bits. */
    static double floatValue(DataType t, long bits) {
        return switch (t) {
            case FLOAT16 -> HalfFloats.halfToFloat((int) bits);
            case BFLOAT16 -> HalfFloats.bfloat16ToFloat((int) bits);
            case FLOAT32 -> Float.intBitsToFloat((int) bits);
            case FLOAT64 -> Double.longBitsToDouble(bits);
            default -> throw new IllegalArgumentException(t + " is not a float type");
        };
    }

    /** Bits of {@code v} in float type {@code t}; {@code v} is first rounded to float for the 16-bit types. */
    static long floatBits(DataType t, double v) {
        return switch (t) {
            case FLOAT16 -> HalfFloats.floatToHalf((float) v) & 0xFFFFL;
            case BFLOAT16 -> HalfFloats.floatToBfloat16((float) v) & 0xFFFFL;
            case FLOAT32 -> Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL;
            case FLOAT64 -> Double.doubleToRawLongBits(v);
            default -> throw new IllegalArgumentException(t + " is not a float type");
        };
    }

    /**
     * Integer bits read as the type's value: sign-extended for INT*, zero-extended for UINT8/UINT32 (UINT64 stays raw).
     */
    static long intValue(DataType t, long bits) {
        return switch (t) {
            case INT8 -> (byte) bits;
            case INT32 -> (int) bits;
            case UINT8, UINT32, INT64, UINT64 -> bits;
            default -> throw new IllegalArgumentException(t + " is not an integer type");
        };
    }

    /** Human form for failure messages: value and hex bits. */
    static String describe(DataType t, long bits) {
        String hex = "0x" + Long.toHexString(bits & mask(t));
        if (t.isFloatingPoint()) return floatValue(t, bits) + " (" + hex + ")";
        if (t == DataType.UINT64) return Long.toUnsignedString(bits) + " (" + hex + ")";
        return intValue(t, bits) + " (" + hex + ")";
    }
}
