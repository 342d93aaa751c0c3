package dev.jccl.reduce;

/**
 * Conversions between {@code float} and bfloat16 ({@link dev.jccl.DataType#BFLOAT16}), carried as the bits of a
 * {@code short}.
 *
 * <p>A bfloat16 is the upper half of a binary32: same sign, same 8-bit exponent, 7 of the 23 significand bits. Widening
 * is therefore exact (append 16 zero bits); narrowing rounds the dropped 16 bits to nearest even, which carries into
 * the exponent where needed (so a value rounds up to the next binade, or overflows to infinity, as IEEE 754 rounding
 * does). Subnormals and signed zeros are kept. A NaN always comes out as a quiet NaN of the same sign, with the top of
 * its payload kept: narrowing truncates a NaN instead of rounding it, because rounding could turn a NaN into infinity
 * or carry its payload into the sign bit.
 */
public final class BFloat16 {

    /** Exponent field all ones, significand zero. */
    private static final int INFINITY_BITS = 0x7f80;

    /** The most significant bit of the 7-bit significand; set in a quiet NaN. */
    private static final int QUIET_BIT = 0x0040;

    private BFloat16() {}

    /** The exact {@code float} value of the bfloat16 {@code bits}; a NaN becomes a quiet NaN. */
    public static float toFloat(short bits) {
        // Branch-free NaN test (magnitude above infinity's), so loops over this still vectorise.
        int nanMask = (INFINITY_BITS - (bits & 0x7fff)) >> 31;
        int quieted = bits | (nanMask & QUIET_BIT);
        return Float.intBitsToFloat(quieted << 16);
    }

    /**
     * {@link #toFloat} without making a NaN quiet, for the reduce loops: their result always passes through
     * {@link #fromFloat}, which makes any NaN quiet.
     */
    static float toFloatForReduction(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /** The bfloat16 value nearest to {@code f} (ties to even), as bits; a NaN becomes a quiet NaN of the same sign. */
    public static short fromFloat(float f) {
        return (short) (roundedUpperHalf(Float.floatToRawIntBits(f)) >>> 16);
    }

    /**
     * A float's bits with the upper half rounded to the nearest bfloat16 (ties to even) and a NaN's made quiet; the
     * lower half is left over from the rounding and means nothing. {@link #fromFloat} takes the upper half;
     * {@link BFloat16PairKernel} packs two of them into one {@code int}.
     */
    static int roundedUpperHalf(int bits) {
        int nanMask = (0x7f80_0000 - (bits & 0x7fff_ffff)) >> 31;
        // Round to nearest even on the 16 dropped bits: adding just under half of the kept unit
        // rounds up only what lies above the halfway point; adding the kept lsb as well makes an
        // exact tie round up only from an odd value.
        int keptLsb = (bits >>> 16) & 1;
        int roundingBias = (0x7fff + keptLsb) & ~nanMask;
        return (bits + roundingBias) | (nanMask & (QUIET_BIT << 16));
    }
}
