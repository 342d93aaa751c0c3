package dev.jccl.conformance;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;

/**
 * Expected results of reductions, computed element by element from every rank's regenerated input ({@link TestData})
 * with NCCL's semantics and none of the runtime's code:
 *
 * <ul>
 *   <li>integer SUM/PROD wrap at the type's width; MIN/MAX compare UINT8/32/64 as unsigned;
 *   <li>integer AVG: the wrapped sum, then a truncating division by the number of ranks, signed for INT*, unsigned for
 *       UINT*;
 *   <li>float SUM/PROD/MIN/MAX: the exact result (the inputs make it representable);
 *   <li>float AVG: the exact sum, then one division in the type's arithmetic — FLOAT16/BFLOAT16 divide in float and
 *       round to nearest even.
 * </ul>
 */
final class Reference {
    private Reference() {}

    /** Where a reduction's inputs come from: bits of element {@code index} of member {@code member}. */
    interface Inputs {
        long bits(int member, long index);
    }

    /** The reduction of element {@code index} of every member's input of one case. */
    static final class Reduction {
        private final DataType type;
        private final ReduceOp op;
        private final int members;
        private final Inputs inputs;

        Reduction(long seed, int nranks, DataType type, ReduceOp op, TestData.Dist dist) {
            this(seed, allRanks(nranks), type, op, dist);
        }

        /** Reduction over the listed ranks' inputs (a split communicator's members, by their rank in the parent). */
        Reduction(long seed, int[] ranks, DataType type, ReduceOp op, TestData.Dist dist) {
            this(type, op, ranks.length, baseInputs(seed, ranks, type, dist));
        }

        /** Reduction over explicit inputs (for checking the reference itself). */
        Reduction(DataType type, ReduceOp op, int members, Inputs inputs) {
            this.type = type;
            this.op = op;
            this.members = members;
            this.inputs = inputs;
        }

        private static Inputs baseInputs(long seed, int[] ranks, DataType type, TestData.Dist dist) {
            TestData.Source[] sources = new TestData.Source[ranks.length];
            for (int i = 0; i < ranks.length; i++) sources[i] = new TestData.Source(seed, ranks[i], type, dist);
            return (member, index) -> sources[member].bits(index);
        }

        private static int[] allRanks(int n) {
            int[] r = new int[n];
            for (int i = 0; i < n; i++) r[i] = i;
            return r;
        }

        long input(int member, long index) {
            return inputs.bits(member, index);
        }

        /** Exact expected bits; not for {@link TestData.Dist#GAUSSIAN}. */
        long expected(long index) {
            return type.isFloatingPoint() ? expectedFloat(index) : expectedInt(index);
        }

        private long expectedInt(long index) {
            int n = members;
            long mask = Elements.mask(type);
            long acc = input(0, index);
            for (int r = 1; r < n; r++) {
                long x = input(r, index);
                acc = switch (op) {
                    case SUM, AVG -> acc + x;
                    case PROD -> acc * x;
                    case MIN -> compare(x, acc) < 0 ? x : acc;
                    case MAX -> compare(x, acc) > 0 ? x : acc;
                };
                acc &= mask;
            }
            if (op == ReduceOp.AVG) {
                acc = switch (type) {
                    case INT8, INT32, INT64 -> Elements.intValue(type, acc) / n;
                    case UINT8, UINT32 -> acc / n; // acc is zero-extended, so non-negative
                    case UINT64 -> Long.divideUnsigned(acc, n);
                    default -> throw new AssertionError(type);
                };
            }
            return acc & mask;
        }

        private int compare(long a, long b) {
            if (type == DataType.UINT64) return Long.compareUnsigned(a, b);
            return Long.compare(Elements.intValue(type, a), Elements.intValue(type, b));
        }

        private long expectedFloat(long index) {
            int n = members;
            double acc = value(0, index);
            for (int r = 1; r < n; r++) {
                double x = value(r, index);
                acc = switch (op) {
                    case SUM, AVG -> acc + x; // exact: small integers
                    case PROD -> acc * x; // exact: powers of two
                    case MIN -> Math.min(acc, x);
                    case MAX -> Math.max(acc, x);
                };
            }
            if (op != ReduceOp.AVG) return Elements.floatBits(type, acc);
            return switch (type) {
                case FLOAT64 -> Double.doubleToRawLongBits(acc / n);
                case FLOAT32 -> Float.floatToRawIntBits((float) acc / (float) n) & 0xFFFF_FFFFL;
                case FLOAT16 -> HalfFloats.floatToHalf((float) acc / (float) n) & 0xFFFFL;
                case BFLOAT16 -> HalfFloats.floatToBfloat16((float) acc / (float) n) & 0xFFFFL;
                default -> throw new AssertionError(type);
            };
        }

        private double value(int member, long index) {
            return Elements.floatValue(type, input(member, index));
        }

        /** For GAUSSIAN SUM: the sum in double (of values already rounded to the type). */
        double approximateSum(long index) {
            double s = 0;
            for (int r = 0; r < members; r++) s += value(r, index);
            return s;
        }

        /**
         * For GAUSSIAN SUM: the largest error a correct implementation may show, whatever order it adds in, rounding to
         * the type after every partial sum: {@code n} roundings of at most one unit in the last place of {@code Σ|x|},
         * plus the type's smallest subnormal per step.
         */
        double tolerance(long index) {
            double abs = 0;
            for (int r = 0; r < members; r++) abs += Math.abs(value(r, index));
            int n = members;
            return n * (2 * unitRoundoff(type) * abs + smallestSubnormal(type));
        }
    }

    static double unitRoundoff(DataType t) {
        return switch (t) {
            case FLOAT16 -> 0x1p-11;
            case BFLOAT16 -> 0x1p-8;
            case FLOAT32 -> 0x1p-24;
            case FLOAT64 -> 0x1p-53;
            default -> 0;
        };
    }

    static double smallestSubnormal(DataType t) {
        return switch (t) {
            case FLOAT16 -> 0x1p-24;
            case BFLOAT16 -> 0x1p-133;
            case FLOAT32 -> Float.MIN_VALUE;
            case FLOAT64 -> Double.MIN_VALUE;
            default -> 0;
        };
    }
}
