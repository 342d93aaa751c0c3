package dev.jccl.tools.perf;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;

/**
 * The inputs {@code jccl perf -c} feeds a collective, chosen so that the exact result is known whatever order the
 * library combines them in, and that result, computed here without any of Jccl's own kernels.
 *
 * <p>Every value is a whole number held in a {@code long} until {@link #encode} writes it in the element type:
 *
 * <ul>
 *   <li>Integer types take any value: wrapping sums and products are exact in any order, and {@link #encode} keeps the
 *       low bits as the type does.
 *   <li>Floating-point types take small whole numbers, so that every partial sum or product is exactly representable
 *       (half holds every integer up to 2048, bfloat16 up to 256, float up to 2^24): the n inputs of a SUM lie in
 *       ±limit/n, a PROD multiplies ±1s and at most {@link #MAX_TWOS} twos.
 *   <li>AVG adds to a per-element base a deviation that sums to zero over the ranks, so the sum is n × base and the
 *       average is base exactly, in every type.
 *   <li>Operations that only move data (op null) take random bits, NaN patterns included: a copy must keep every bit.
 * </ul>
 */
record CheckValues(DataType type, ReduceOp op, int ranks, long seed) {
    /** At most this many inputs of an element's PROD are ±2, so that products stay exact. */
    static final int MAX_TWOS = 10;

    /** Rank {@code r}'s input at element {@code i} of its contribution, as a value (or raw bits when op is null). */
    long input(int r, long i) {
        long h = mix(seed, r, i);
        if (op == null) return h;
        if (!type.isFloatingPoint() && op != ReduceOp.AVG) return h;
        return switch (op) {
            case SUM -> {
                long bound = Math.max(1, exactLimit() / ranks);
                yield Math.floorMod(h, 2 * bound + 1) - bound;
            }
            case PROD -> {
                long sign = (h & 1) == 0 ? 1 : -1;
                boolean mayBeTwo = Math.floorMod(r + i, ranks) < MAX_TWOS;
                yield mayBeTwo && (h & 2) != 0 ? 2 * sign : sign;
            }
            case MIN, MAX -> {
                long limit = exactLimit();
                yield Math.floorMod(h, 2 * limit + 1) - limit;
            }
            case AVG -> averageBase(i) + deviation(r, i);
        };
    }

    /** The exact result of combining every rank's input at element {@code i}, as a value. */
    long reduced(long i) {
        long acc = normalize(input(0, i));
        for (int r = 1; r < ranks; r++) {
            long v = normalize(input(r, i));
            acc = switch (op) {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MIN -> compare(v, acc) < 0 ? v : acc;
                case MAX -> compare(v, acc) > 0 ? v : acc;
            };
        }
        // The AVG inputs sum to ranks × base, so the division is exact.
        return op == ReduceOp.AVG ? averageBase(i) : acc;
    }

    /** The bits of {@code value} in the element type (raw bits pass through when op is null). */
    long encode(long value) {
        if (op == null) return value;
        return switch (type) {
            case FLOAT16 -> Float.floatToFloat16((float) value) & 0xFFFFL;
            case BFLOAT16 -> (Float.floatToRawIntBits((float) value) >>> 16) & 0xFFFFL;
            case FLOAT32 -> Float.floatToRawIntBits((float) value) & 0xFFFF_FFFFL;
            case FLOAT64 -> Double.doubleToRawLongBits((double) value);
            default -> value;
        };
    }

    /** Largest magnitude up to which every whole number is exact in the type (integers: unbounded). */
    private long exactLimit() {
        return switch (type) {
            case FLOAT16 -> 2048;
            case BFLOAT16 -> 256;
            case FLOAT32 -> 1L << 24;
            case FLOAT64 -> 1L << 53;
            default -> Long.MAX_VALUE / 4;
        };
    }

    /**
     * AVG's base at element i: the same on every rank, small enough that ranks × (base ± 1) cannot overflow the type.
     */
    private long averageBase(long i) {
        long h = mix(seed ^ 0x5DEECE66DL, -1, i);
        long bound = switch (type) {
            case INT8 -> 127 / ranks - 1;
            case UINT8 -> 255 / ranks - 1;
            case INT32 -> Integer.MAX_VALUE / ranks - 1;
            case UINT32 -> 0xFFFF_FFFFL / ranks - 1;
            case INT64, UINT64 -> (1L << 40) / ranks;
            default -> exactLimit() / ranks - 1;
        };
        if (type.isUnsigned()) return 1 + Math.floorMod(h, Math.max(1, bound));
        bound = Math.max(0, bound);
        return Math.floorMod(h, 2 * bound + 1) - bound;
    }

    /** +1 on one rank, -1 on the next, 0 elsewhere (all 0 for one rank): sums to zero over the ranks. */
    private long deviation(int r, long i) {
        long up = Math.floorMod(r + i, ranks) == 0 ? 1 : 0;
        long down = Math.floorMod(r + i + 1, ranks) == 0 ? 1 : 0;
        return up - down;
    }

    /** The value as the type holds it: integers wrapped to their width, signed or not. */
    private long normalize(long v) {
        return switch (type) {
            case INT8 -> (byte) v;
            case UINT8 -> v & 0xFF;
            case INT32 -> (int) v;
            case UINT32 -> v & 0xFFFF_FFFFL;
            default -> v;
        };
    }

    private int compare(long a, long b) {
        return type == DataType.UINT64 ? Long.compareUnsigned(a, b) : Long.compare(a, b);
    }

    /** SplitMix64 over (seed, rank, index): cheap, and every bit depends on every input. */
    static long mix(long seed, int rank, long index) {
        long z = seed + 0x9E3779B97F4A7C15L * (index + 1) + 0xBF58476D1CE4E5B9L * (rank + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
