package dev.jccl.conformance;

/**
 * The test's own conversions between {@code float} and the two 16-bit float formats, written from the IEEE 754 /
 * bfloat16 definitions and independent of the runtime's (and cross-checked against the JDK's binary16 conversion in
 * {@code ReferenceSelfTest}).
 *
 * <pre>
 *   binary16:  s eeeee mmmmmmmmmm          bias 15, subnormals below 2^-14
 *   bfloat16:  s eeeeeeee mmmmmmm          the upper 16 bits of a binary32
 * </pre>
 *
 * Narrowing rounds to nearest, ties to even; NaNs stay NaN (quiet).
 */
final class HalfFloats {
    private HalfFloats() {}

    /** binary16 bits (low 16 bits of the result) → float, exactly. */
    static float halfToFloat(int bits) {
        int sign = (bits & 0x8000) << 16;
        int exp = (bits >>> 10) & 0x1F;
        int mant = bits & 0x3FF;
        if (exp == 0x1F) return Float.intBitsToFloat(sign | 0x7F80_0000 | (mant << 13));
        if (exp == 0) {
            // zero or subnormal: mant × 2^-24, exact in float
            float magnitude = mant * 0x1p-24f;
            return sign != 0 ? -magnitude : magnitude;
        }
        return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    }

    /** float → binary16 bits, round to nearest even. */
    static short floatToHalf(float f) {
        int x = Float.floatToRawIntBits(f);
        int sign = (x >>> 16) & 0x8000;
        int exp = (x >>> 23) & 0xFF;
        int mant = x & 0x7F_FFFF;
        if (exp == 0xFF) {
            return (short) (sign | 0x7C00 | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
        }
        int e = exp - 127 + 15;
        if (e >= 0x1F) return (short) (sign | 0x7C00);
        if (e >= 1) {
            int q = (e << 10) | (mant >>> 13);
            int rem = mant & 0x1FFF;
            if (rem > 0x1000 || (rem == 0x1000 && (q & 1) != 0)) {
                q++;
            } // a carry into the exponent is right, up to infinity
            return (short) (sign | q);
        }
        // Result is subnormal or zero: value = m × 2^(exp-150), half subnormal unit is 2^-24.
        if (exp == 0) return (short) sign; // float subnormals are far below half's smallest subnormal
        int m = mant | 0x80_0000;
        int shift = 14 - e; // 126 - exp, >= 14
        if (shift > 24) return (short) sign; // below half of the smallest subnormal
        int q = m >>> shift;
        int rem = m & ((1 << shift) - 1);
        int halfway = 1 << (shift - 1);
        if (rem > halfway || (rem == halfway && (q & 1) != 0)) q++;
        return (short) (sign | q);
    }

    /** bfloat16 bits → float, exactly. */
    static float bfloat16ToFloat(int bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** float → bfloat16 bits, round to nearest even. */
    static short floatToBfloat16(float f) {
        int x = Float.floatToRawIntBits(f);
        if ((x & 0x7F80_0000) == 0x7F80_0000 && (x & 0x7F_FFFF) != 0) {
            return (short) ((x >>> 16) | 0x40); // quiet NaN, sign kept
        }
        int lsb = (x >>> 16) & 1;
        return (short) ((x + 0x7FFF + lsb) >>> 16);
    }
}
