package dev.jccl.reduce;

import dev.jccl.DataType;
import java.util.SplittableRandom;

/**
 * Random element bit patterns for the kernel tests: mostly arbitrary bits, plus values that make arithmetic interesting
 * (floats of similar magnitude, so sums do not just return the larger one) and the special values where implementations
 * go wrong (extremes, ±0, ±∞, quiet and signalling NaNs, subnormals).
 */
final class RandomElements {

    private static final long[] FLOAT32_SPECIALS = {
        0x0000_0000L, 0x8000_0000L, 0x7f80_0000L, 0xff80_0000L, 0x7fc0_0000L, 0x7f80_0001L, 0xffc0_0001L,
        0x0000_0001L, 0x8000_0001L, 0x0080_0000L, 0x7f7f_ffffL, 0xff7f_ffffL, 0x3f80_0000L, 0xbf80_0000L,
    };
    private static final long[] FLOAT64_SPECIALS = {
        0L, 0x8000_0000_0000_0000L, 0x7ff0_0000_0000_0000L, 0xfff0_0000_0000_0000L, 0x7ff8_0000_0000_0000L,
        0x7ff0_0000_0000_0001L, 0xfff8_0000_0000_0001L, 1L, 0x8000_0000_0000_0001L, 0x0010_0000_0000_0000L,
        0x7fef_ffff_ffff_ffffL, 0xffef_ffff_ffff_ffffL, 0x3ff0_0000_0000_0000L, 0xbff0_0000_0000_0000L,
    };

    private RandomElements() {}

    static long next(DataType type, SplittableRandom random) {
        return switch (type) {
            case INT8, UINT8, INT32, UINT32, INT64, UINT64 -> nextInteger(type.byteSize() * 8, random);
            case FLOAT16 -> nextSmallFloat(SmallFloatFormat.BINARY16, random);
            case BFLOAT16 -> nextSmallFloat(SmallFloatFormat.BFLOAT16, random);
            case FLOAT32 -> nextFloat32(random);
            case FLOAT64 -> nextFloat64(random);
        };
    }

    private static long mask(int width) {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    private static long nextInteger(int width, SplittableRandom random) {
        int kind = random.nextInt(10);
        long bits;
        if (kind < 7) {
            bits = random.nextLong();
        } else {
            long signBit = 1L << (width - 1);
            long[] specials = {0, 1, -1, signBit, signBit - 1, 2, random.nextInt(-3, 4)};
            bits = specials[random.nextInt(specials.length)];
        }
        return bits & mask(width);
    }

    private static long nextSmallFloat(SmallFloatFormat format, SplittableRandom random) {
        int kind = random.nextInt(10);
        int fractionMask = (1 << format.fractionBits) - 1;
        if (kind < 5) {
            return random.nextInt(0x1_0000);
        }
        if (kind < 9) {
            int exponent = format.exponentBias + random.nextInt(-4, 5);
            int sign = random.nextBoolean() ? format.signBit : 0;
            return sign | (exponent << format.fractionBits) | random.nextInt(fractionMask + 1);
        }
        int inf = format.positiveInfinityBits;
        int[] specials = {
            0,
            format.signBit,
            inf,
            format.signBit | inf,
            inf | format.quietBit,
            inf | 1,
            format.signBit | inf | 1,
            inf - 1,
            format.signBit | (inf - 1),
            1,
            format.signBit | 1,
            1 << format.fractionBits,
        };
        return specials[random.nextInt(specials.length)];
    }

    private static long nextFloat32(SplittableRandom random) {
        int kind = random.nextInt(10);
        if (kind < 3) {
            return random.nextLong() & 0xffff_ffffL;
        }
        if (kind < 8) {
            float f = (float) (random.nextGaussian() * Math.scalb(1.0, random.nextInt(-20, 21)));
            return Integer.toUnsignedLong(Float.floatToRawIntBits(f));
        }
        return FLOAT32_SPECIALS[random.nextInt(FLOAT32_SPECIALS.length)];
    }

    private static long nextFloat64(SplittableRandom random) {
        int kind = random.nextInt(10);
        if (kind < 3) {
            return random.nextLong();
        }
        if (kind < 8) {
            return Double.doubleToRawLongBits(random.nextGaussian() * Math.scalb(1.0, random.nextInt(-40, 41)));
        }
        return FLOAT64_SPECIALS[random.nextInt(FLOAT64_SPECIALS.length)];
    }
}
