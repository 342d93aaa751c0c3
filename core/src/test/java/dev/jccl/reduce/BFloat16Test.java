package dev.jccl.reduce;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(60)
class BFloat16Test extends SmallFloatConversionContract {

    private static final long SEED = Long.getLong("jccl.test.seed", 0x5eed_bf16L);

    BFloat16Test() {
        super(ConversionChecks.BFLOAT16, SEED);
    }

    /** Hand-computed cases, independent of the reference model too. */
    @ParameterizedTest(name = "{2}: fromFloat(0x{0}) = 0x{1}")
    @CsvSource({
        "00000000, 0000, +0",
        "80000000, 8000, -0",
        "3f800000, 3f80, 1.0",
        "c0000000, c000, -2.0",
        "3dcccccd, 3dcd, 0.1f",
        "3f808000, 3f80, 1 + 2^-8 is a tie: down to the even 1.0",
        "3f808001, 3f81, just above the tie rounds up",
        "3f818000, 3f82, 1 + 3*2^-8 is a tie: up to the even 1 + 2^-6",
        "bf818000, bf82, negative ties round the magnitude the same way",
        "3f80ffff, 3f81, rounding up does not disturb the exponent",
        "3fffffff, 4000, rounding up carries into the exponent",
        "7f7f0000, 7f7f, the largest finite bfloat16",
        "7f7f7fff, 7f7f, just below the overflow threshold stays finite",
        "7f7f8000, 7f80, the overflow threshold (tie to even = infinity)",
        "7f7fffff, 7f80, Float.MAX_VALUE overflows",
        "ff7fffff, ff80, -Float.MAX_VALUE overflows to -infinity",
        "7f800000, 7f80, +infinity",
        "ff800000, ff80, -infinity",
        "00010000, 0001, 2^-133 is the smallest subnormal",
        "00008000, 0000, 2^-134 is a tie: down to the even 0",
        "00008001, 0001, just above 2^-134 rounds up",
        "00018000, 0002, 1.5 * 2^-133 is a tie: up to the even 2 * 2^-133",
        "007fffff, 0080, the largest float subnormal rounds up to the smallest normal",
        "00000001, 0000, Float.MIN_VALUE underflows to +0",
        "80000001, 8000, -Float.MIN_VALUE underflows to -0",
        "7fc00000, 7fc0, the canonical quiet NaN",
        "7f800001, 7fc0, a signalling NaN with only low payload bits is not infinity but a quiet NaN",
        "ff800001, ffc0, ... of the same sign",
        "7fa00000, 7fe0, a signalling NaN keeps its top payload bits",
        "7fffffff, 7fff, a NaN is truncated, never rounded into the sign bit",
        "ffffffff, ffff, a negative NaN likewise",
    })
    void fromFloatOfEdgeCases(String floatHex, String bfloatHex, String what) {
        assertFromFloat(floatHex, bfloatHex, what);
    }

    @ParameterizedTest(name = "toFloat(0x{0}) = 0x{1}")
    @CsvSource({
        "0000, 00000000",
        "8000, 80000000",
        "3f80, 3f800000",
        "7f7f, 7f7f0000",
        "0001, 00010000",
        "7f80, 7f800000",
        "ff80, ff800000",
        "7f81, 7fc10000", // signalling NaN: made quiet, payload kept
        "ff81, ffc10000",
    })
    void toFloatOfEdgeCases(String bfloatHex, String floatHex) {
        assertToFloat(bfloatHex, floatHex);
    }
}
