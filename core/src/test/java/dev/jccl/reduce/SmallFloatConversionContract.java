package dev.jccl.reduce;

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

    private static void assertNoFailures(List<String> failures, String prefix) {
        assertTrue(failures.isEmpty(), () -> prefix + Failures.summary(failures));
    }
}
