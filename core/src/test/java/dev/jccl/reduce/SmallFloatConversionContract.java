package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exhaustive and random conversion checks that every 16-bit float format must pass; {@link Float16Test} and
 * {@link BFloat16Test} inherit them for their own format and add their format's hand-computed cases.
 */
abstract class SmallFloatConversionContract {

    private final ConversionChecks.Conversion format;
    private final long seed;

    SmallFloatConversionContract(ConversionChecks.Conversion format, long seed) {
        this.format = format;
        this.seed = seed;
    }

    @Test
    void toFloatOfEveryPatternIsItsExactValue() {
        assertNoFailures(ConversionChecks.toFloatOfEveryPattern(format), "");
    }

    @Test
    void fromFloatInvertsToFloatForEveryPattern() {
        assertNoFailures(ConversionChecks.roundTripOfEveryPattern(format), "");
    }

    @Test
    void fromFloatRoundsToNearestEvenAtEveryBoundary() {
        assertNoFailures(ConversionChecks.fromFloatAtEveryRoundingBoundary(format), "");
    }

    @Test
    void fromFloatOfRandomFloatsMatchesReference() {
        assertNoFailures(
                ConversionChecks.fromFloatOfRandomFloats(format, seed, 400_000),
                "seed 0x" + Long.toHexString(seed) + ": ");
    }

    /** A hand-computed case: fromFloat of the float with bits {@code floatHex} is the pattern {@code expectedHex}. */
    final void assertFromFloat(String floatHex, String expectedHex, String what) {
        float f = Float.intBitsToFloat(Integer.parseUnsignedInt(floatHex, 16));
        assertEquals(Integer.parseInt(expectedHex, 16), format.fromFloat().apply(f) & 0xffff, what);
    }

    /** A hand-computed case: toFloat of the pattern {@code bitsHex} is the float with bits {@code floatHex}. */
    final void assertToFloat(String bitsHex, String floatHex) {
        float f = format.toFloat().apply((short) Integer.parseInt(bitsHex, 16));
        assertEquals(Integer.parseUnsignedInt(floatHex, 16), Float.floatToRawIntBits(f));
    }

    private static void assertNoFailures(List<String> failures, String prefix) {
        assertTrue(failures.isEmpty(), () -> prefix + Failures.summary(failures));
    }
}
