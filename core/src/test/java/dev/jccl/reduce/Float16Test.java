package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(60)
class Float16Test extends SmallFloatConversionContract {

    private static final long SEED = Long.getLong("jccl.test.seed", 0x5eed_f16L);

    Float16Test() {
        super(ConversionChecks.FLOAT16, SEED);
    }

    /** Hand-computed cases, independent of the reference model too. */
    @ParameterizedTest(name = "{2}: fromFloat(0x{0}) = 0x{1}")
    @CsvSource({
        "00000000, 0000, +0",
        "80000000, 8000, -0",
        "3f800000, 3c00, 1.0",
        "c0000000, c000, -2.0",
        "3dcccccd, 2e66, 0.1f",
        "3f801000, 3c00, 1 + 2^-11 is a tie: down to the even 1.0",
        "3f803000, 3c02, 1 + 3*2^-11 is a tie: up to the even 1 + 2^-9",
        "3f801001, 3c01, just above the tie rounds up",
        "477fe000, 7bff, 65504 is the largest finite half",
        "477fefff, 7bff, just below 65520 stays finite",
        "477ff000, 7c00, 65520 is the overflow threshold (tie to even = infinity)",
        "c77ff000, fc00, -65520 overflows to -infinity",
        "47800000, 7c00, 65536",
        "7f7fffff, 7c00, Float.MAX_VALUE",
        "7f800000, 7c00, +infinity",
        "ff800000, fc00, -infinity",
        "33800000, 0001, 2^-24 is the smallest subnormal",
        "33000000, 0000, 2^-25 is a tie: down to the even 0",
        "33000001, 0001, just above 2^-25 rounds up",
        "b3000000, 8000, -2^-25 rounds to -0",
        "33c00000, 0002, 1.5 * 2^-24 is a tie: up to the even 2 * 2^-24",
        "387fc000, 03ff, the largest subnormal",
        "387fe000, 0400, tie between the largest subnormal and the smallest normal",
        "38800000, 0400, 2^-14 is the smallest normal",
        "00000001, 0000, Float.MIN_VALUE underflows to +0",
        "80000001, 8000, -Float.MIN_VALUE underflows to -0",
        "7fc00000, 7e00, the canonical quiet NaN",
        "ffa00000, ff00, a signalling NaN is made quiet and keeps its sign and top payload bit",
    })
    void fromFloatOfEdgeCases(String floatHex, String halfHex, String what) {
        assertFromFloat(floatHex, halfHex, what);
    }

    @Test
    void signallingNaNWithOnlyLowPayloadBitsStaysNaNAndBecomesQuiet() {
        // Truncating this payload to 10 bits leaves nothing: a careless conversion gives infinity.
        for (int bits : new int[] {0x7f80_0001, 0xff80_0001, 0x7f80_1fff}) {
            int half = Float16.fromFloat(Float.intBitsToFloat(bits)) & 0xffff;
            assertTrue(SmallFloatFormat.BINARY16.isQuietNaN(half), String.format("0x%08x -> 0x%04x", bits, half));
            assertEquals(bits < 0, (half & 0x8000) != 0, "sign of 0x" + Integer.toHexString(bits));
        }
    }

    @ParameterizedTest(name = "toFloat(0x{0}) = 0x{1}")
    @CsvSource({
        "0000, 00000000",
        "8000, 80000000",
        "3c00, 3f800000",
        "7bff, 477fe000",
        "0001, 33800000",
        "03ff, 387fc000",
        "7c00, 7f800000",
        "fc00, ff800000",
        "7c01, 7fc02000", // signalling NaN: made quiet, payload kept
        "fd00, ffe00000",
    })
    void toFloatOfEdgeCases(String halfHex, String floatHex) {
        assertToFloat(halfHex, floatHex);
    }

    /**
     * The JDK converts with the CPU's instructions where it has them and with Java code elsewhere, and the two treat
     * NaNs differently. Run the same checks in a JVM with those intrinsics disabled.
     */
    @Test
    @Timeout(120)
    void sameResultsWhenTheJdkUsesItsJavaFallback() throws Exception {
        ChildJvm.Result child = ChildJvm.run(
                List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:DisableIntrinsic=_float16ToFloat,_floatToFloat16"),
                Float16FallbackMain.class,
                100,
                Long.toString(SEED));
        assertTrue(
                child.output().contains(Float16FallbackMain.FALLBACK_ACTIVE),
                "the child JVM did not run the JDK's Java fallback, so it checked nothing:\n" + child.output());
        assertEquals(0, child.exitValue(), child.output());
    }
}
