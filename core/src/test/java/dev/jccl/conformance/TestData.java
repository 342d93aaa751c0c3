package dev.jccl.conformance;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;

/**
 * Deterministic inputs: element {@code i} of rank {@code r}'s buffer in case {@code seed} is a pure function of
 * {@code (seed, r, i, type, dist)}, so every rank can regenerate every other rank's input instead of receiving it.
 *
 * <p>The distributions make every reduction's result exact whatever order a ring or tree combines the ranks in (see
 * {@link Dist}), so results are compared bit for bit; only {@link Dist#GAUSSIAN} needs a tolerance.
 */
final class TestData {
    private TestData() {}

    enum Dist {
        /**
         * Uniformly random bits: integer SUM/PROD wrap and MIN/MAX are order-independent; moves must be bit-exact for
         * every type.
         */
        BITS,
        /**
         * Integers -8..8 as floats: sums of up to a few thousand are exact in every float type, including
         * FLOAT16/BFLOAT16.
         */
        SMALL_INTS,
        /** One of -2, -1, -0.5, 0.5, 1, 2: products of a few ranks stay exact powers of two. */
        POWERS_OF_TWO,
        /** Arbitrary values, gaussian with standard deviation 10, rounded to the type; checked with a tolerance. */
        GAUSSIAN
    }

    private static final double[] POWERS = {-2, -1, -0.5, 0.5, 1, 2};

    /** The exact-result distribution for a reduction of {@code t} with {@code op}. */
    static Dist exactFor(DataType t, ReduceOp op) {
        if (!t.isFloatingPoint()) return Dist.BITS;
        return op == ReduceOp.PROD ? Dist.POWERS_OF_TWO : Dist.SMALL_INTS;
    }

    /** SplitMix64's finaliser: a bijective 64-bit mix. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Per-(seed, rank) stream base. */
    static long base(long seed, int rank) {
        return mix(mix(seed) ^ ((rank + 1L) * 0xD1B54A32D192ED03L));
    }

    /** Raw bits of element {@code index} (zero-extended to the type's width). */
    static long bits(long seed, int rank, long index, DataType t, Dist d) {
        return new Source(seed, rank, t, d).bits(index);
    }

    /**
     * One rank's input of one case, read element by element. One 64-bit hash serves several elements (8 bytes of INT8,
     * 4 FLOAT16s, 8 small integers…), and every rank regenerates every other rank's input, so this is the suite's
     * hottest loop: a source keeps the last hash, which consecutive elements share. One per thread: it is not safe to
     * share.
     */
    static final class Source {
        private final long base;
        private final DataType type;
        private final Dist dist;
        private final int lanesLog2;
        private long block = -1;
        private long blockHash;

        Source(long seed, int rank, DataType type, Dist dist) {
            this.base = base(seed, rank);
            this.type = type;
            this.dist = dist;
            this.lanesLog2 = lanesLog2(type);
        }

        long bits(long index) {
            return switch (dist) {
                case BITS -> fromHash(hashOfBlock(index >>> lanesLog2), index, type);
                case SMALL_INTS -> SMALL_INT_BITS[type.ordinal()][smallIntLane(lane(index))];
                case POWERS_OF_TWO -> POWER_BITS[type.ordinal()][powerLane(lane(index))];
                case GAUSSIAN -> gaussianBits(hash(base, index), type);
            };
        }

        private long lane(long index) {
            return (hashOfBlock(index >>> 3) >>> ((index & 7) * 8)) & 0xFF;
        }

        private long hashOfBlock(long b) {
            if (b != block) {
                block = b;
                blockHash = hash(base, b);
            }
            return blockHash;
        }
    }

    /** 8, 4, 2 or 1 elements of {@code t} per 64-bit hash, as a power of two. */
    private static int lanesLog2(DataType t) {
        return 3 - Integer.numberOfTrailingZeros(t.byteSize());
    }

    private static long fromHash(long h, long index, DataType t) {
        int lanesLog2 = lanesLog2(t);
        int shift = (int) (index & ((1 << lanesLog2) - 1)) * 8 * t.byteSize();
        return (h >>> shift) & Elements.mask(t);
    }

    private static int smallIntLane(long lane) {
        return (int) (lane % 17);
    }

    private static int powerLane(long lane) {
        return (int) (lane % POWERS.length);
    }

    private static long gaussianBits(long h, DataType t) {
        double u1 = ((h >>> 32) + 0.5) / 0x1p32;
        double u2 = ((h & 0xFFFF_FFFFL) + 0.5) / 0x1p32;
        double g = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        return Elements.floatBits(t, 10 * g);
    }

    /** Bits of -8..8 ({@link Dist#SMALL_INTS}, lane 0..16) per float type, by ordinal; null rows for integer types. */
    private static final long[][] SMALL_INT_BITS = table(17, k -> k - 8);
    /** Bits of {@link #POWERS} per float type, by ordinal. */
    private static final long[][] POWER_BITS = table(POWERS.length, k -> POWERS[k]);

    private static long[][] table(int n, java.util.function.IntToDoubleFunction value) {
        long[][] rows = new long[DataType.values().length][];
        for (DataType t : DataType.values()) {
            if (!t.isFloatingPoint()) continue;
            long[] row = new long[n];
            for (int k = 0; k < n; k++) row[k] = Elements.floatBits(t, value.applyAsDouble(k));
            rows[t.ordinal()] = row;
        }
        return rows;
    }

    private static long hash(long base, long block) {
        return mix(base + block * 0x9E3779B97F4A7C15L);
    }

    /** Writes elements {@code 0..count-1} of rank {@code rank}'s input into {@code s}. */
    static void fill(MemorySegment s, long seed, int rank, long count, DataType t, Dist d) {
        fill(s, seed, rank, 0, count, t, d);
    }

    /** Writes input elements {@code first..first+count-1} of rank {@code rank} into {@code s} at 0.. */
    static void fill(MemorySegment s, long seed, int rank, long first, long count, DataType t, Dist d) {
        Source source = new Source(seed, rank, t, d);
        for (long i = 0; i < count; i++) {
            Elements.set(s, t, i, source.bits(first + i));
        }
    }
}
