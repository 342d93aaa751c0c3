package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The claim {@link CheckValues} rests on: its inputs reduce to its expected result bit for bit in ANY order and
 * grouping, in the element type's own arithmetic (half and bfloat16 rounded after every step, integers wrapped). The
 * arithmetic here is written independently of Jccl's kernels.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CheckValuesTest {
    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (DataType t : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                for (int n : new int[] {1, 2, 3, 4, 5, 8, 16}) out.add(Arguments.of(t, op, n));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} ranks")
    @MethodSource("cases")
    void anyReductionOrderGivesTheExpectedBits(DataType type, ReduceOp op, int ranks) {
        Random random = new Random(type.ordinal() * 31L + op.ordinal() * 7L + ranks);
        for (long seed : new long[] {1, 99}) {
            CheckValues values = new CheckValues(type, op, ranks, seed);
            for (long i = 0; i < 300; i++) {
                long expected = values.encode(values.reduced(i));
                List<Long> inputs = new ArrayList<>();
                for (int r = 0; r < ranks; r++) inputs.add(mask(type, values.encode(values.input(r, i))));
                for (int order = 0; order < 4; order++) {
                    Collections.shuffle(inputs, random);
                    long got = reduceInRandomTree(type, op, new ArrayList<>(inputs), random, ranks);
                    assertEquals(mask(type, expected), got, () -> type + " " + op + " element inputs " + inputs);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} {2} ranks")
    @MethodSource("cases")
    void inputsVaryAcrossElementsAndRanks(DataType type, ReduceOp op, int ranks) {
        // A generator that wrote the same value everywhere would pass the check above and test nothing.
        CheckValues values = new CheckValues(type, op, ranks, 7);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (long i = 0; i < 64; i++) {
            for (int r = 0; r < ranks; r++) seen.add(values.encode(values.input(r, i)));
        }
        assertNotEquals(1, seen.size(), "every input is the same value");
        java.util.Set<Long> results = new java.util.HashSet<>();
        for (long i = 0; i < 64; i++) results.add(values.encode(values.reduced(i)));
        assertNotEquals(1, results.size(), "every result is the same value");
    }

    /** Combines the values pairwise in a random binary tree, as a ring or tree algorithm might. */
    private static long reduceInRandomTree(DataType type, ReduceOp op, List<Long> vs, Random random, int ranks) {
        while (vs.size() > 1) {
            int a = random.nextInt(vs.size());
            long x = vs.remove(a);
            int b = random.nextInt(vs.size());
            long y = vs.remove(b);
            vs.add(combine(type, op, x, y));
        }
        long acc = vs.getFirst();
        return op == ReduceOp.AVG ? divide(type, acc, ranks) : acc;
    }

    private static long combine(DataType type, ReduceOp op, long x, long y) {
        ReduceOp base = op == ReduceOp.AVG ? ReduceOp.SUM : op;
        if (type.isFloatingPoint()) {
            double a = toDouble(type, x);
            double b = toDouble(type, y);
            double r = switch (base) {
                case SUM -> type == DataType.FLOAT64 ? a + b : (double) ((float) a + (float) b);
                case PROD -> type == DataType.FLOAT64 ? a * b : (double) ((float) a * (float) b);
                case MIN -> Math.min(a, b);
                case MAX -> Math.max(a, b);
                default -> throw new AssertionError();
            };
            return fromDouble(type, r);
        }
        long a = signed(type, x);
        long b = signed(type, y);
        long r = switch (base) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> compare(type, a, b) <= 0 ? a : b;
            case MAX -> compare(type, a, b) >= 0 ? a : b;
            default -> throw new AssertionError();
        };
        return mask(type, r);
    }

    private static long divide(DataType type, long sum, int n) {
        if (type.isFloatingPoint()) {
            double v = toDouble(type, sum);
            return fromDouble(type, type == DataType.FLOAT64 ? v / n : (double) ((float) v / n));
        }
        long v = signed(type, sum);
        return mask(type, type.isUnsigned() ? Long.divideUnsigned(v, n) : v / n);
    }

    private static int compare(DataType type, long a, long b) {
        return type.isUnsigned() ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    /** Low bits of the type's width. */
    private static long mask(DataType type, long bits) {
        return type.byteSize() == 8 ? bits : bits & ((1L << (8 * type.byteSize())) - 1);
    }

    /** Signed types sign-extended, unsigned zero-extended. */
    private static long signed(DataType type, long bits) {
        long m = mask(type, bits);
        if (type.isUnsigned() || type.byteSize() == 8) return m;
        int shift = 64 - 8 * type.byteSize();
        return (m << shift) >> shift;
    }

    private static double toDouble(DataType type, long bits) {
        return switch (type) {
            case FLOAT16 -> Float.float16ToFloat((short) bits);
            case BFLOAT16 -> Float.intBitsToFloat((int) (bits & 0xFFFF) << 16);
            case FLOAT32 -> Float.intBitsToFloat((int) bits);
            default -> Double.longBitsToDouble(bits);
        };
    }

    /** Rounds to the type (nearest even), as a kernel storing its result would. */
    private static long fromDouble(DataType type, double v) {
        return switch (type) {
            case FLOAT16 -> Float.floatToFloat16((float) v) & 0xFFFFL;
            case BFLOAT16 -> {
                int f = Float.floatToRawIntBits((float) v);
                int rounded = f + 0x7FFF + ((f >>> 16) & 1);
                yield (rounded >>> 16) & 0xFFFFL;
            }
            case FLOAT32 -> Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL;
            default -> Double.doubleToRawLongBits(v);
        };
    }
}
