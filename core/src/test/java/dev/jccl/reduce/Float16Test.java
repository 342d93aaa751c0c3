package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The IEEE binary16 conversions; its hand-computed cases are the tables Float16Test.*.csv beside it. */
class Float16Test extends SmallFloatConversionContract {

    Float16Test() {
        super(ConversionChecks.FLOAT16, 0x5eed_f16L);
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
                Long.toString(seed()));
        assertTrue(
                child.output().contains(Float16FallbackMain.FALLBACK_ACTIVE),
                "the child JVM did not run the JDK's Java fallback, so it checked nothing:\n" + child.output());
        assertEquals(0, child.exitValue(), child.output());
    }
}
