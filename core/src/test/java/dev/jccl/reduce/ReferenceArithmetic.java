package dev.jccl.reduce;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * What a reduce kernel and the AVG division must produce, computed a different way from the code under test: integers
 * as exact {@link BigInteger}s reduced modulo 2<sup>width</sup>; FLOAT64 exactly in {@link BigDecimal}, rounded by the
 * JDK's decimal-to-double conversion or by comparing the exact error of neighbouring doubles; FLOAT32 in
 * {@code double}, then narrowed; FLOAT16 and BFLOAT16 through {@link SmallFloatFormat}. Float MIN/MAX and special
 * values follow explicit rules.
 *
 * <p>Elements are raw bit patterns, zero-extended into a {@code long}.
 *
 * <p>Why {@code double} is exact enough: rounding an exact result first to a format of p' bits and then to one of p
 * bits gives the same as rounding once whenever p' ≥ 2p + 2 (for +, ×, ÷). A double (53) has that over a float (24),
 * and a float has it over binary16 (11) and bfloat16 (8). So {@code (float) (x op y)} computed in double is the float
 * result, and a 16-bit result "computed in float and rounded back" is the float result rounded once more, which is how
 * it is modelled here.
 */
final class ReferenceArithmetic {

    /** An expected element: exact bits, or any NaN (a quiet one for the 16-bit types). */
    record Expected(long bits, boolean anyNaN) {
        static final Expected NAN = new Expected(0, true);

        static Expected exactly(long bits) {
            return new Expected(bits, false);
        }

        @Override
        public String toString() {
            return anyNaN ? "NaN" : "0x" + Long.toHexString(bits);
        }
    }

    private ReferenceArithmetic() {}

    static Expected reduce(DataType type, ReduceOp op, long a, long b) {
        return switch (type) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> Expected.exactly(integerReduce(type, op, a, b));
            case FLOAT16 -> smallFloatReduce(SmallFloatFormat.BINARY16, op, a, b);
            case BFLOAT16 -> smallFloatReduce(SmallFloatFormat.BFLOAT16, op, a, b);
            case FLOAT32 -> float32Reduce(op, a, b);
            case FLOAT64 -> float64Reduce(op, a, b);
        };
    }

    static Expected divide(DataType type, long x, int size) {
        return switch (type) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> {
                // BigInteger.divide truncates toward zero, which is what AVG means for integers.
                BigInteger quotient = integerValue(type, x).divide(BigInteger.valueOf(size));
                yield Expected.exactly(wrap(type, quotient));
            }
            case FLOAT16 -> smallFloatDivide(SmallFloatFormat.BINARY16, x, size);
            case BFLOAT16 -> smallFloatDivide(SmallFloatFormat.BFLOAT16, x, size);
            case FLOAT32 -> {
                float f = Float.intBitsToFloat((int) x);
                yield Float.isNaN(f) ? Expected.NAN : Expected.exactly(float32Bits((float) ((double) f / size)));
            }
            case FLOAT64 -> float64Divide(Double.longBitsToDouble(x), size);
        };
    }

    /** Whether {@code actual} (raw bits) is what {@code expected} allows for {@code type}. */
    static boolean matches(DataType type, Expected expected, long actual) {
        if (!expected.anyNaN()) {
            return actual == expected.bits();
        }
        return switch (type) {
            case FLOAT16 -> SmallFloatFormat.BINARY16.isQuietNaN((int) actual);
            case BFLOAT16 -> SmallFloatFormat.BFLOAT16.isQuietNaN((int) actual);
            case FLOAT32 -> Float.isNaN(Float.intBitsToFloat((int) actual));
            case FLOAT64 -> Double.isNaN(Double.longBitsToDouble(actual));
            default -> false;
        };
    }

    // ---- integers ----------------------------------------------------------------------------

    /** The mathematical value of an integer element: two's complement or plain binary. */
    static BigInteger integerValue(DataType type, long bits) {
        int width = type.byteSize() * Byte.SIZE;
        BigInteger unsigned = new BigInteger(Long.toUnsignedString(bits));
        if (type.isUnsigned() || !unsigned.testBit(width - 1)) {
            return unsigned;
        }
        return unsigned.subtract(BigInteger.ONE.shiftLeft(width));
    }

    /** The low {@code width} bits of an exact value, which is what wrapping arithmetic keeps. */
    static long wrap(DataType type, BigInteger value) {
        int width = type.byteSize() * Byte.SIZE;
        return value.mod(BigInteger.ONE.shiftLeft(width)).longValue();
    }

    private static long integerReduce(DataType type, ReduceOp op, long a, long b) {
        BigInteger x = integerValue(type, a);
        BigInteger y = integerValue(type, b);
        return switch (op) {
            case SUM, AVG -> wrap(type, x.add(y));
            case PROD -> wrap(type, x.multiply(y));
            case MAX -> x.compareTo(y) >= 0 ? a : b;
            case MIN -> x.compareTo(y) <= 0 ? a : b;
        };
    }

    // ---- min and max of floats ----------------------------------------------------------------

    /**
     * Math.min/max semantics on decoded values: NaN if either is NaN, -0 below +0, otherwise the smaller/larger
     * operand's own bits.
     */
    private static Expected minMax(boolean max, double x, double y, long xBits, long yBits) {
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Expected.NAN;
        }
        if (x == 0 && y == 0) {
            boolean xNegative = Double.doubleToRawLongBits(x) < 0;
            boolean yNegative = Double.doubleToRawLongBits(y) < 0;
            boolean pickX = max ? !xNegative || yNegative : xNegative || !yNegative;
            return Expected.exactly(pickX ? xBits : yBits);
        }
        boolean pickX = max ? x >= y : x <= y;
        return Expected.exactly(pickX ? xBits : yBits);
    }

    // ---- FLOAT16 and BFLOAT16 ----------------------------------------------------------------

    private static Expected smallFloatReduce(SmallFloatFormat format, ReduceOp op, long a, long b) {
        double x = format.decode((int) a);
        double y = format.decode((int) b);
        return switch (op) {
            case MAX -> minMax(true, x, y, a, b);
            case MIN -> minMax(false, x, y, a, b);
            // exact for binary16; for bfloat16 rounded harmlessly (see the class comment)
            case SUM, AVG -> roundThroughFloat(format, x + y);
            // exact: at most 22 significant bits, well inside double's exponent range
            case PROD -> roundThroughFloat(format, x * y);
        };
    }

    private static Expected smallFloatDivide(SmallFloatFormat format, long x, int size) {
        return roundThroughFloat(format, format.decode((int) x) / size);
    }

    /** The kernels compute in float and round back: model both roundings. */
    private static Expected roundThroughFloat(SmallFloatFormat format, double value) {
        if (Double.isNaN(value)) {
            return Expected.NAN;
        }
        float inFloat = (float) value;
        return Expected.exactly(format.roundToNearestEven(inFloat));
    }

    // ---- FLOAT32 -----------------------------------------------------------------------------

    private static long float32Bits(float f) {
        return Integer.toUnsignedLong(Float.floatToRawIntBits(f));
    }

    private static Expected float32Reduce(ReduceOp op, long a, long b) {
        float x = Float.intBitsToFloat((int) a);
        float y = Float.intBitsToFloat((int) b);
        float result;
        switch (op) {
            case MAX -> {
                return minMax(true, x, y, a, b);
            }
            case MIN -> {
                return minMax(false, x, y, a, b);
            }
            case SUM, AVG -> result = (float) ((double) x + (double) y);
            case PROD -> result = (float) ((double) x * (double) y);
            default -> throw new AssertionError(op);
        }
        return Float.isNaN(result) ? Expected.NAN : Expected.exactly(float32Bits(result));
    }

    // ---- FLOAT64 -----------------------------------------------------------------------------

    private static Expected float64Reduce(ReduceOp op, long a, long b) {
        double x = Double.longBitsToDouble(a);
        double y = Double.longBitsToDouble(b);
        if (op == ReduceOp.MAX || op == ReduceOp.MIN) {
            return minMax(op == ReduceOp.MAX, x, y, a, b);
        }
        if (Double.isNaN(x) || Double.isNaN(y)) {
            return Expected.NAN;
        }
        boolean xNegative = a < 0;
        boolean yNegative = b < 0;
        if (op == ReduceOp.PROD) {
            boolean negative = xNegative != yNegative;
            if (Double.isInfinite(x) || Double.isInfinite(y)) {
                return x == 0 || y == 0
                        ? Expected.NAN
                        : float64(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
            }
            BigDecimal exact = new BigDecimal(x).multiply(new BigDecimal(y));
            // Round the magnitude and put the sign back: a product that underflows keeps its sign.
            double magnitude = exact.abs().doubleValue();
            return float64(negative ? -magnitude : magnitude);
        }
        // SUM, AVG
        if (Double.isInfinite(x) || Double.isInfinite(y)) {
            if (Double.isInfinite(x) && Double.isInfinite(y) && xNegative != yNegative) {
                return Expected.NAN;
            }
            return float64(Double.isInfinite(x) ? x : y);
        }
        BigDecimal exact = new BigDecimal(x).add(new BigDecimal(y));
        if (exact.signum() == 0) {
            // An exact zero sum is +0 under round-to-nearest, unless both operands are -0.
            return float64(xNegative && yNegative ? -0.0 : 0.0);
        }
        return float64(exact.doubleValue());
    }

    private static Expected float64(double d) {
        return Expected.exactly(Double.doubleToRawLongBits(d));
    }

    /**
     * x / size correctly rounded, found without trusting double division: start near the exact quotient, then keep
     * whichever neighbouring double has the smallest exact error |candidate × size - x|, the one with an even
     * significand on a tie.
     */
    private static Expected float64Divide(double x, int size) {
        if (Double.isNaN(x)) {
            return Expected.NAN;
        }
        if (Double.isInfinite(x) || x == 0) {
            return float64(x); // size is positive: infinities and signed zeros stay as they are
        }
        BigDecimal exactX = new BigDecimal(x);
        BigDecimal divisor = BigDecimal.valueOf(size);
        double estimate = exactX.divide(divisor, new MathContext(40, RoundingMode.HALF_EVEN))
                .doubleValue();
        double best = Double.NaN;
        BigDecimal bestError = null;
        for (double candidate : new double[] {Math.nextDown(estimate), estimate, Math.nextUp(estimate)}) {
            if (Double.isInfinite(candidate)) {
                continue; // next up from MAX_VALUE; |x / size| <= |x| is never infinite
            }
            BigDecimal error =
                    new BigDecimal(candidate).multiply(divisor).subtract(exactX).abs();
            int order = bestError == null ? -1 : error.compareTo(bestError);
            boolean evenTieBreak = order == 0 && (Double.doubleToRawLongBits(candidate) & 1) == 0;
            if (order < 0 || evenTieBreak) {
                best = candidate;
                bestError = error;
            }
        }
        if (best == 0) {
            best = Math.copySign(0.0, x); // an underflowing quotient keeps the sign of x
        }
        return float64(best);
    }
}
