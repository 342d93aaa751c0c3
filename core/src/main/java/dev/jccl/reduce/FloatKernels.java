package dev.jccl.reduce;

/**
 * The floating-point reduce loops, {@code x[i] = x[i] op y[i]} over the scratch arrays of {@link ChunkedKernel}; one
 * static method per type × op, so that each loop is compiled on its own with its operator inlined and vectorised (see
 * {@link ReduceKernels} for the semantics).
 *
 * <p>The 16-bit types widen both operands to {@code float}, compute there and round back to nearest even. For SUM and
 * PROD that gives the correctly rounded 16-bit result (a float has at least twice the bits of either format plus two,
 * so rounding twice never differs from rounding once); MIN and MAX return one of the operands unchanged, or a quiet
 * NaN. Operands are widened without quieting NaNs ({@code toFloatForReduction}): rounding back quiets any NaN result
 * anyway. FLOAT16 SUM and PROD round back with {@link Float16#fromArithmeticResult}, which skips a quieting step that
 * their results never need and that would stop the loop from vectorising.
 *
 * <p>On this project's machine (JDK 25, AVX-512) the FLOAT16 MIN/MAX loops are not vectorised: their integer arithmetic
 * on values widened from {@code short} is not (JDK 25's SuperWord does not narrow it back to 16-bit lanes), and they
 * run at about 1 ns per element. BFLOAT16, which met the same limit, has no loop here: {@link BFloat16PairKernel}
 * reduces it two elements to an {@code int} with the FLOAT32 loops.
 */
final class FloatKernels {

    private FloatKernels() {}

    static final class Fp16 {
        private Fp16() {}

        static void sum(short[] x, short[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Float16.fromArithmeticResult(
                        Float16.toFloatForReduction(x[i]) + Float16.toFloatForReduction(y[i]));
            }
        }

        static void prod(short[] x, short[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Float16.fromArithmeticResult(
                        Float16.toFloatForReduction(x[i]) * Float16.toFloatForReduction(y[i]));
            }
        }

        static void max(short[] x, short[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Float16.fromFloat(
                        Math.max(Float16.toFloatForReduction(x[i]), Float16.toFloatForReduction(y[i])));
            }
        }

        static void min(short[] x, short[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Float16.fromFloat(
                        Math.min(Float16.toFloatForReduction(x[i]), Float16.toFloatForReduction(y[i])));
            }
        }
    }

    static final class Fp32 {
        private Fp32() {}

        static void sum(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] + y[i];
            }
        }

        static void prod(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * y[i];
            }
        }

        static void max(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i], y[i]);
            }
        }

        static void min(float[] x, float[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i], y[i]);
            }
        }
    }

    static final class Fp64 {
        private Fp64() {}

        static void sum(double[] x, double[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] + y[i];
            }
        }

        static void prod(double[] x, double[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * y[i];
            }
        }

        static void max(double[] x, double[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i], y[i]);
            }
        }

        static void min(double[] x, double[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i], y[i]);
            }
        }
    }
}
