package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The suite's own arithmetic, checked by hand-worked cases and against the JDK. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReferenceSelfTest {

    @Test
    void halfToFloatMatchesTheJdkForEveryHalf() {
        for (int h = 0; h < 0x10000; h++) {
            float mine = HalfFloats.halfToFloat(h);
            float jdk = Float.float16ToFloat((short) h);
            if (Float.isNaN(jdk)) {
                assertTrue(Float.isNaN(mine), "half 0x" + Integer.toHexString(h));
            } else {
                assertEquals(
                        Float.floatToRawIntBits(jdk),
                        Float.floatToRawIntBits(mine),
                        "half 0x" + Integer.toHexString(h));
            }
        }
    }

    @Test
    void floatToHalfMatchesTheJdkAtEveryTieAndNeighbour() {
        // Every half value, the midpoints between neighbours (ties), and one float ulp either side of each.
        for (int h = 0; h < 0x7C00; h++) {
            float lo = Float.float16ToFloat((short) h);
            float hi = Float.float16ToFloat((short) (h + 1));
            float mid = (float) (((double) lo + hi) / 2);
            for (float f :
                    new float[] {lo, Math.nextDown(lo), Math.nextUp(lo), mid, Math.nextDown(mid), Math.nextUp(mid)}) {
                checkHalf(f);
                checkHalf(-f);
            }
        }
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 5_000_000; i++) checkHalf(Float.intBitsToFloat(random.nextInt()));
        checkHalf(Float.POSITIVE_INFINITY);
        checkHalf(Float.NEGATIVE_INFINITY);
        checkHalf(65520f); // rounds to infinity
        checkHalf(65519.996f); // rounds to 65504
    }

    private static void checkHalf(float f) {
        short jdk = Float.floatToFloat16(f);
        short mine = HalfFloats.floatToHalf(f);
        if (Float.isNaN(f)) {
            assertTrue(Float.isNaN(HalfFloats.halfToFloat(mine)), "NaN stays NaN");
        } else {
            assertEquals(
                    jdk, mine, () -> "float " + f + " (0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + ")");
        }
    }

    @Test
    void bfloat16RoundsToNearestEven() {
        assertEquals(0x3F80, HalfFloats.floatToBfloat16(1.0f) & 0xFFFF);
        // 1 + 2^-8 is exactly halfway between 1 and 1 + 2^-7: ties to the even one, 1.
        assertEquals(0x3F80, HalfFloats.floatToBfloat16(1.0f + 0x1p-8f) & 0xFFFF);
        // 1 + 3·2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
        assertEquals(0x3F82, HalfFloats.floatToBfloat16(1.0f + 3 * 0x1p-8f) & 0xFFFF);
        assertEquals(0x3F81, HalfFloats.floatToBfloat16(Math.nextUp(1.0f + 0x1p-8f)) & 0xFFFF);
        assertEquals(0xBF80, HalfFloats.floatToBfloat16(-1.0f) & 0xFFFF);
        assertEquals(0x7F80, HalfFloats.floatToBfloat16(Float.POSITIVE_INFINITY) & 0xFFFF);
        assertTrue(Float.isNaN(HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16(Float.NaN))));
        // Against the in-memory communicator's nearest-neighbour rounding, written differently.
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 2_000_000; i++) {
            float f = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(f) || Math.abs(f) > 3.3e38f) continue;
            assertEquals(nearestBf16(f), HalfFloats.floatToBfloat16(f) & 0xFFFF, "float " + f);
        }
    }

    private static int nearestBf16(float f) {
        int down = Float.floatToRawIntBits(f) & 0xFFFF_0000;
        if (Float.intBitsToFloat(down) == f) return down >>> 16;
        int up = down + 0x1_0000;
        double dd = Math.abs((double) f - Float.intBitsToFloat(down));
        double du = Math.abs((double) Float.intBitsToFloat(up) - f);
        int pick = dd < du ? down : du < dd ? up : ((down >>> 16) & 1) == 0 ? down : up;
        return pick >>> 16;
    }

    private static long reduce(DataType t, ReduceOp op, long... perRank) {
        return new Reference.Reduction(t, op, perRank.length, (m, i) -> perRank[m] & Elements.mask(t)).expected(0);
    }

    @Test
    void integerReductionsFollowNccl() {
        assertEquals((byte) -56 & 0xFF, reduce(DataType.INT8, ReduceOp.SUM, 100, 100)); // wraps
        assertEquals(200, reduce(DataType.UINT8, ReduceOp.MAX, 200, 100)); // unsigned
        assertEquals(100, reduce(DataType.INT8, ReduceOp.MAX, (byte) 200, 100)); // signed: 200 is -56
        assertEquals(100, reduce(DataType.UINT8, ReduceOp.MIN, 200, 100));
        assertEquals(0xFFFF_FFFFL, reduce(DataType.UINT32, ReduceOp.MAX, -1, 5));
        assertEquals(5, reduce(DataType.INT32, ReduceOp.MAX, -1, 5));
        assertEquals(-1L, reduce(DataType.UINT64, ReduceOp.MAX, -1L, 5));
        assertEquals(5, reduce(DataType.UINT64, ReduceOp.MIN, -1L, 5));
        assertEquals(-1L, reduce(DataType.INT64, ReduceOp.MIN, -1L, 5));
        assertEquals((16 * 16 * 16) & 0xFF, reduce(DataType.UINT8, ReduceOp.PROD, 16, 16, 16)); // 4096 wraps to 0
        assertEquals(0, reduce(DataType.INT8, ReduceOp.PROD, 16, 16, 16));
        assertEquals((3L * 0x4000_0001L * 5) & 0xFFFF_FFFFL, reduce(DataType.INT32, ReduceOp.PROD, 3, 0x4000_0001L, 5));
    }

    @Test
    void integerAverageIsTheWrappedSumDividedAndTruncated() {
        assertEquals((byte) -3 & 0xFF, reduce(DataType.INT8, ReduceOp.AVG, -7, 0)); // -3.5 truncates toward zero
        assertEquals(3, reduce(DataType.INT8, ReduceOp.AVG, 7, 0));
        // INT8: 100 + 100 wraps to -56, then -56 / 2 = -28 (NCCL divides the wrapped sum)
        assertEquals((byte) -28 & 0xFF, reduce(DataType.INT8, ReduceOp.AVG, 100, 100));
        // UINT8: 200 + 100 wraps to 44, 44 / 3 = 14
        assertEquals(14, reduce(DataType.UINT8, ReduceOp.AVG, 200, 100, 0));
        // UINT8 sum 250 + 0 + 0 = 250, 250 / 3 = 83 unsigned (signed would be -6 / 3 = -2)
        assertEquals(83, reduce(DataType.UINT8, ReduceOp.AVG, 250, 0, 0));
        assertEquals(Long.divideUnsigned(-2L, 2), reduce(DataType.UINT64, ReduceOp.AVG, -2L, 0));
        assertEquals(-1L, reduce(DataType.INT64, ReduceOp.AVG, -2L, 0));
        assertEquals(Integer.divideUnsigned(-6, 3) & 0xFFFF_FFFFL, reduce(DataType.UINT32, ReduceOp.AVG, -6, 0, 0));
    }

    @Test
    void floatAverageIsOneDivisionOfTheExactSum() {
        long one = HalfFloats.floatToHalf(1f) & 0xFFFF;
        long two = HalfFloats.floatToHalf(2f) & 0xFFFF;
        // (1 + 1 + 2) / 3 = 1.333…: in float 1.3333334, then to half 1.3330078 (0x3D55)
        assertEquals(0x3D55, reduce(DataType.FLOAT16, ReduceOp.AVG, one, one, two));
        assertEquals(
                Float.floatToRawIntBits(4f / 3f) & 0xFFFF_FFFFL,
                reduce(
                        DataType.FLOAT32,
                        ReduceOp.AVG,
                        Float.floatToRawIntBits(1f),
                        Float.floatToRawIntBits(1f),
                        Float.floatToRawIntBits(2f)));
        assertEquals(
                Double.doubleToRawLongBits(-5.0 / 3),
                reduce(
                        DataType.FLOAT64,
                        ReduceOp.AVG,
                        Double.doubleToRawLongBits(-8),
                        Double.doubleToRawLongBits(1),
                        Double.doubleToRawLongBits(2)));
        long bfOne = HalfFloats.floatToBfloat16(1f) & 0xFFFF;
        long bfTwo = HalfFloats.floatToBfloat16(2f) & 0xFFFF;
        assertEquals(
                HalfFloats.floatToBfloat16(4f / 3f) & 0xFFFF,
                reduce(DataType.BFLOAT16, ReduceOp.AVG, bfOne, bfOne, bfTwo));
    }

    @Test
    void exactDistributionsStayExact() {
        for (DataType t : DataType.values()) {
            if (!t.isFloatingPoint()) continue;
            for (long i = 0; i < 10_000; i++) {
                double s = Elements.floatValue(t, TestData.bits(1, 2, i, t, TestData.Dist.SMALL_INTS));
                assertTrue(s == Math.rint(s) && s >= -8 && s <= 8, t + " small int " + s);
                double p = Elements.floatValue(t, TestData.bits(1, 2, i, t, TestData.Dist.POWERS_OF_TWO));
                assertTrue(p == -2 || p == -1 || p == -0.5 || p == 0.5 || p == 1 || p == 2, t + " power of two " + p);
            }
        }
        // A rank's data differs from another's and between seeds.
        assertTrue(TestData.bits(1, 0, 5, DataType.INT64, TestData.Dist.BITS)
                != TestData.bits(1, 1, 5, DataType.INT64, TestData.Dist.BITS));
        assertTrue(TestData.bits(1, 0, 5, DataType.INT64, TestData.Dist.BITS)
                != TestData.bits(2, 0, 5, DataType.INT64, TestData.Dist.BITS));
    }

    /**
     * A {@link TestData.Source} read element after element (its kept hash reused and replaced) gives the bits that
     * {@link TestData#bits}, a fresh source per element, gives: ranks fill their inputs with one and checks regenerate
     * them with either. Read in order, backwards and at random.
     */
    @Test
    void aSourceGivesTheSameBitsAsTheStatelessFunction() {
        java.util.Random random = new java.util.Random(7);
        for (DataType t : DataType.values()) {
            for (TestData.Dist d : TestData.Dist.values()) {
                if (d != TestData.Dist.BITS && !t.isFloatingPoint()) continue;
                TestData.Source source = new TestData.Source(11, 3, t, d);
                for (long i = 0; i < 100; i++) {
                    assertEquals(TestData.bits(11, 3, i, t, d), source.bits(i), t + " " + d + " " + i);
                }
                for (long i = 99; i >= 0; i--) {
                    assertEquals(TestData.bits(11, 3, i, t, d), source.bits(i), t + " " + d + " " + i);
                }
                for (int k = 0; k < 1000; k++) {
                    long i = random.nextLong(1L << 40);
                    assertEquals(TestData.bits(11, 3, i, t, d), source.bits(i), t + " " + d + " " + i);
                }
            }
        }
    }
}
