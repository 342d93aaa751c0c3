package dev.jccl.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Checks of a 16-bit float conversion pair against {@link SmallFloatFormat}, shared by the JUnit tests and by
 * {@link Float16FallbackMain} (which runs them in a JVM with the JDK's conversion intrinsics disabled). Each check
 * returns its failures, empty when it passes.
 */
final class ConversionChecks {

    interface ToFloat {
        float apply(short bits);
    }

    interface FromFloat {
        short apply(float value);
    }

    /** A conversion pair under test and the independent model of its format. */
    record Conversion(SmallFloatFormat format, ToFloat toFloat, FromFloat fromFloat) {}

    static final Conversion FLOAT16 = new Conversion(SmallFloatFormat.BINARY16, Float16::toFloat, Float16::fromFloat);
    static final Conversion BFLOAT16 =
            new Conversion(SmallFloatFormat.BFLOAT16, BFloat16::toFloat, BFloat16::fromFloat);

    private ConversionChecks() {}

    /**
     * toFloat of every pattern: the decoded value exactly (signed zeros included); a NaN gives a quiet float NaN of the
     * same sign whose top significand bits are the pattern's, quiet bit set.
     */
    static List<String> toFloatOfEveryPattern(Conversion c) {
        SmallFloatFormat format = c.format();
        int payloadShift = 23 - format.fractionBits;
        List<String> failures = new ArrayList<>();
        for (int bits = 0; bits < 0x1_0000; bits++) {
            int actual = Float.floatToRawIntBits(c.toFloat().apply((short) bits));
            int expected;
            if (format.isNaN(bits)) {
                int sign = (bits & format.signBit) != 0 ? 0x8000_0000 : 0;
                int fraction = (bits | format.quietBit) & (format.quietBit * 2 - 1);
                expected = sign | 0x7f80_0000 | (fraction << payloadShift);
            } else {
                expected = Float.floatToRawIntBits((float) format.decode(bits));
            }
            if (actual != expected) {
                failures.add(
                        String.format("%s toFloat(0x%04x) = 0x%08x, expected 0x%08x", format, bits, actual, expected));
            }
        }
        return failures;
    }

    /** fromFloat(toFloat(h)) == h for every non-NaN pattern, and h with its quiet bit set for a NaN. */
    static List<String> roundTripOfEveryPattern(Conversion c) {
        SmallFloatFormat format = c.format();
        List<String> failures = new ArrayList<>();
        for (int bits = 0; bits < 0x1_0000; bits++) {
            int expected = format.isNaN(bits) ? bits | format.quietBit : bits;
            int actual = c.fromFloat().apply(c.toFloat().apply((short) bits)) & 0xffff;
            if (actual != expected) {
                failures.add(String.format(
                        "%s fromFloat(toFloat(0x%04x)) = 0x%04x, expected 0x%04x", format, bits, actual, expected));
            }
        }
        return failures;
    }

    /**
     * fromFloat exactly at, just below and just above the midpoint between every pair of neighbouring magnitudes
     * (including the largest finite one and the overflow point), for both signs: every place where
     * round-to-nearest-even can go wrong.
     */
    static List<String> fromFloatAtEveryRoundingBoundary(Conversion c) {
        SmallFloatFormat format = c.format();
        List<String> failures = new ArrayList<>();
        for (int bits = 0; bits < format.positiveInfinityBits; bits++) {
            double midpoint = format.midpointAbove(bits);
            float tie = (float) midpoint;
            if (tie != midpoint) {
                failures.add(format + ": midpoint above 0x" + Integer.toHexString(bits)
                        + " is not a float; the check is wrong");
                continue;
            }
            for (float f : new float[] {tie, Math.nextDown(tie), Math.nextUp(tie)}) {
                check(c, f, failures);
                check(c, -f, failures);
            }
        }
        return failures;
    }

    /** fromFloat of random floats: half arbitrary bit patterns, half within the format's range. */
    static List<String> fromFloatOfRandomFloats(Conversion c, long seed, int samples) {
        SmallFloatFormat format = c.format();
        SplittableRandom random = new SplittableRandom(seed);
        List<String> failures = new ArrayList<>();
        int minExponent = 1 - format.exponentBias - format.fractionBits - 2;
        int maxExponent = format.exponentBias + 2;
        for (int i = 0; i < samples; i++) {
            float f;
            if ((i & 1) == 0) {
                f = Float.intBitsToFloat(random.nextInt());
            } else {
                int exponent = random.nextInt(minExponent, maxExponent + 1);
                float significand = 1.0f + random.nextInt(1 << 23) * 0x1p-23f;
                f = Math.scalb(random.nextBoolean() ? -significand : significand, exponent);
            }
            check(c, f, failures);
        }
        return failures;
    }

    /** Adds a failure unless fromFloat(f) is the reference rounding (any quiet NaN of f's sign for a NaN). */
    static void check(Conversion c, float f, List<String> failures) {
        SmallFloatFormat format = c.format();
        int actual = c.fromFloat().apply(f) & 0xffff;
        int inputBits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            boolean signKept = ((actual & format.signBit) != 0) == (inputBits < 0);
            if (!format.isQuietNaN(actual) || !signKept) {
                failures.add(String.format(
                        "%s fromFloat(NaN 0x%08x) = 0x%04x, expected a quiet NaN of the same sign",
                        format, inputBits, actual));
            }
            return;
        }
        int expected = format.roundToNearestEven(f);
        if (actual != expected) {
            failures.add(String.format(
                    "%s fromFloat(%s = 0x%08x) = 0x%04x, expected 0x%04x",
                    format, Float.toHexString(f), inputBits, actual, expected));
        }
    }
}
