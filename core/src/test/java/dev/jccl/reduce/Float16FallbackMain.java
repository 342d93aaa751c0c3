package dev.jccl.reduce;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the {@link Float16} checks in a JVM started with the JDK's half-float intrinsics disabled (see
 * {@link Float16Test#sameResultsWhenTheJdkUsesItsJavaFallback}). Prints the failures and exits non-zero on any.
 */
public final class Float16FallbackMain {

    static final String FALLBACK_ACTIVE = "JDK Java fallback active";

    private Float16FallbackMain() {}

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        // The Java fallback keeps a signalling NaN signalling; the hardware conversion makes it quiet.
        short raw = Float.floatToFloat16(Float.intBitsToFloat(0x7f80_0001));
        System.out.println(raw == (short) 0x7c01 ? FALLBACK_ACTIVE : "JDK conversion intrinsic still active");
        ConversionChecks.Conversion half = ConversionChecks.FLOAT16;
        List<String> failures = new ArrayList<>();
        failures.addAll(ConversionChecks.toFloatOfEveryPattern(half));
        failures.addAll(ConversionChecks.roundTripOfEveryPattern(half));
        failures.addAll(ConversionChecks.fromFloatAtEveryRoundingBoundary(half));
        failures.addAll(ConversionChecks.fromFloatOfRandomFloats(half, seed, 100_000));
        for (int bits : new int[] {0x7f80_0001, 0xff80_0001, 0x7fa0_0000, 0xffbf_ffff, 0x7fff_ffff}) {
            ConversionChecks.check(half, Float.intBitsToFloat(bits), failures);
        }
        // The FLOAT16 kernels round back through the same conversion (SUM and PROD without their own
        // quieting step: see Float16.fromArithmeticResult), so they must hold under the fallback too.
        for (ReduceOp op : ReduceOp.values()) {
            failures.addAll(KernelChecks.everyCase(DataType.FLOAT16, op, seed));
        }
        if (!failures.isEmpty()) {
            System.out.println(Failures.summary(failures));
            System.exit(1);
        }
        System.out.println("all Float16 checks passed");
    }
}
