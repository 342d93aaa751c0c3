package dev.jccl.reduce;

import java.util.Arrays;

/**
 * An independent model of a small IEEE-style binary format (binary16, bfloat16) for the tests.
 *
 * <p>It shares nothing with the code under test: values are decoded from the definition (sign × significand ×
 * 2<sup>exponent</sup>, computed with {@link Math#scalb}), and rounding is done by looking the value up in the sorted
 * table of every representable magnitude and picking the nearer neighbour, the one with the even bit pattern on a tie.
 * All values of both formats, and the midpoints between neighbours, are exact {@code double}s, so every comparison here
 * is exact.
 */
final class SmallFloatFormat {

    static final SmallFloatFormat BINARY16 = new SmallFloatFormat("binary16", 5, 10);
    static final SmallFloatFormat BFLOAT16 = new SmallFloatFormat("bfloat16", 8, 7);

    final String name;
    final int exponentBits;
    final int fractionBits;
    final int exponentBias;
    /** Bits of +infinity; also the number of finite non-negative patterns. */
    final int positiveInfinityBits;

    final int signBit;
    final int quietBit;

    /**
     * Magnitude of every non-negative pattern 0 … positiveInfinityBits - 1, in pattern order (which is value order),
     * followed by 2^(emax+1) standing in for infinity: the value the next pattern would have if the exponent were
     * unbounded, which is what IEEE rounding compares against at overflow.
     */
    private final double[] magnitudes;

    private SmallFloatFormat(String name, int exponentBits, int fractionBits) {
        this.name = name;
        this.exponentBits = exponentBits;
        this.fractionBits = fractionBits;
        this.exponentBias = (1 << (exponentBits - 1)) - 1;
        this.positiveInfinityBits = ((1 << exponentBits) - 1) << fractionBits;
        this.signBit = 1 << (exponentBits + fractionBits);
        this.quietBit = 1 << (fractionBits - 1);
        this.magnitudes = new double[positiveInfinityBits + 1];
        for (int bits = 0; bits < positiveInfinityBits; bits++) {
            magnitudes[bits] = decode(bits);
        }
        int maxExponent = exponentBias;
        magnitudes[positiveInfinityBits] = Math.scalb(1.0, maxExponent + 1);
        for (int i = 1; i < magnitudes.length; i++) {
            if (!(magnitudes[i - 1] < magnitudes[i])) {
                throw new AssertionError(name + ": magnitudes not increasing at " + i);
            }
        }
    }

    /** The value of a 16-bit pattern (only the low 16 bits of {@code bits} are used). */
    double decode(int bits) {
        boolean negative = (bits & signBit) != 0;
        int exponentField = (bits >> fractionBits) & ((1 << exponentBits) - 1);
        int fraction = bits & ((1 << fractionBits) - 1);
        double magnitude;
        if (exponentField == (1 << exponentBits) - 1) {
            magnitude = fraction == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        } else if (exponentField == 0) {
            // subnormal (and zero): no implicit leading one, exponent of the smallest normal
            magnitude = Math.scalb((double) fraction, 1 - exponentBias - fractionBits);
        } else {
            magnitude =
                    Math.scalb((double) ((1 << fractionBits) | fraction), exponentField - exponentBias - fractionBits);
        }
        return negative ? -magnitude : magnitude;
    }

    boolean isNaN(int bits) {
        return (bits & (signBit - 1)) > positiveInfinityBits;
    }

    boolean isQuietNaN(int bits) {
        return isNaN(bits) && (bits & quietBit) != 0;
    }

    /** The magnitude halfway between non-negative pattern {@code bits} and the next one up. */
    double midpointAbove(int bits) {
        return (magnitudes[bits] + magnitudes[bits + 1]) / 2;
    }

    /**
     * {@code value} rounded to the nearest representable value, ties to the even pattern, as bits. Overflow gives
     * infinity; a NaN gives the canonical quiet NaN (callers accept any quiet NaN).
     */
    int roundToNearestEven(double value) {
        if (Double.isNaN(value)) {
            return positiveInfinityBits | quietBit;
        }
        int sign = Double.doubleToRawLongBits(value) < 0 ? signBit : 0;
        double magnitude = Math.abs(value);
        if (magnitude >= magnitudes[positiveInfinityBits]) {
            return sign | positiveInfinityBits;
        }
        int found = Arrays.binarySearch(magnitudes, magnitude);
        if (found >= 0) {
            return sign | found;
        }
        int above = -found - 1;
        int below = above - 1;
        double midpoint = (magnitudes[below] + magnitudes[above]) / 2;
        int nearest;
        if (magnitude < midpoint) {
            nearest = below;
        } else if (magnitude > midpoint) {
            nearest = above;
        } else {
            nearest = (below & 1) == 0 ? below : above;
        }
        return sign | nearest;
    }

    @Override
    public String toString() {
        return name;
    }
}
