package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.reduce.ReferenceArithmetic.Expected;
import dev.jccl.reduce.TestBuffers.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(120)
class DivideBySizeTest {

    private static final long BASE_SEED = Long.getLong("jccl.test.seed", 0x5eed_a7e5L);
    private static final int[] COUNTS = {0, 1, 7, 1023};
    /** Rank counts; the float types convert size to float, exact up to 2^24, so larger ones are integer-only. */
    private static final int[] SIZES = {1, 2, 3, 7, 8, 255, 1000, 65537};

    private static final int[] LARGE_SIZES = {16_777_217, Integer.MAX_VALUE};
    private static final int MAX_OFFSET = 15;

    @ParameterizedTest
    @EnumSource(DataType.class)
    void divisionMatchesReference(DataType type) {
        List<Integer> sizes = new ArrayList<>();
        for (int size : SIZES) {
            sizes.add(size);
        }
        if (!type.isFloatingPoint()) {
            for (int size : LARGE_SIZES) {
                sizes.add(size);
            }
        }
        List<String> failures = new ArrayList<>();
        for (int count : COUNTS) {
            for (Memory memory : Memory.values()) {
                for (int size : sizes) {
                    long seed = new SplittableRandom(
                                    BASE_SEED + ((type.ordinal() * 16L + count) * 4 + memory.ordinal()) * 64 + size)
                            .nextLong();
                    failures.addAll(checkCase(type, count, memory, size, seed));
                }
            }
        }
        assertTrue(
                failures.isEmpty(),
                () -> String.format(
                        "%s, base seed 0x%x (-Djccl.test.seed=%d): %s",
                        type, BASE_SEED, BASE_SEED, Failures.summary(failures)));
    }

    static List<String> checkCase(DataType type, int count, Memory memory, int size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int width = type.byteSize();
        int offset = random.nextInt(MAX_OFFSET + 1);
        int length = TestBuffers.imageLength(MAX_OFFSET, (long) count * width);
        byte[] image = new byte[length];
        random.nextBytes(image);
        long[] elements = new long[count];
        for (int i = 0; i < count; i++) {
            elements[i] = RandomElements.next(type, random);
            TestBuffers.writeElement(image, offset, width, i, elements[i]);
        }
        String context = String.format(
                "%s count=%d memory=%s size=%d offset=%d case seed 0x%x", type, count, memory, size, offset, seed);
        List<String> failures = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = memory.holding(image, arena);
            ReduceKernels.divideBySize(segment, offset, count, type, size);
            byte[] result = TestBuffers.bytesOf(segment);
            for (int i = 0; i < count && failures.size() < 5; i++) {
                Expected expected = ReferenceArithmetic.divide(type, elements[i], size);
                long actual = TestBuffers.readElement(result, offset, width, i);
                if (!ReferenceArithmetic.matches(type, expected, actual)) {
                    failures.add(String.format(
                            "%s: element %d: 0x%x / %d = 0x%x, expected %s",
                            context, i, elements[i], size, actual, expected));
                }
            }
            int end = offset + count * width;
            for (int k = 0; k < length; k++) {
                if ((k < offset || k >= end) && result[k] != image[k]) {
                    failures.add(context + ": byte " + k + " outside the elements was written");
                    break;
                }
            }
        }
        return failures;
    }

    @ParameterizedTest(name = "{0}: 0x{1} / {2} = 0x{3}: {4}")
    @CsvSource({
        "INT8,     f9,               2, fd,               -7 / 2 = -3: truncates toward zero (not -4)",
        "UINT8,    ff,               2, 7f,               255 / 2 = 127: unsigned",
        "INT8,     80,               1, 80,               -128 / 1",
        "INT32,    80000001,         2, c0000001,         signed",
        "UINT32,   ffffffff,         2, 7fffffff,         unsigned",
        "INT64,    ffffffffffffffff, 2, 0,                -1 / 2 = 0",
        "UINT64,   ffffffffffffffff, 3, 5555555555555555, unsigned",
        "FLOAT32,  3f800000,         3, 3eaaaaab,         1 / 3",
        "FLOAT64,  3ff0000000000000, 3, 3fd5555555555555, 1 / 3",
        "FLOAT16,  3c00,             3, 3555,             1 / 3",
        "BFLOAT16, 3f80,             3, 3eab,             1 / 3",
        "FLOAT16,  0001,             2, 0000,             2^-24 / 2 is a tie: rounds to the even 0",
        "FLOAT16,  8003,             2, 8002,             -3 * 2^-25 is a tie: rounds to the even -2 * 2^-24",
        "FLOAT32,  80000000,         4, 80000000,         -0 stays -0",
        "FLOAT64,  fff0000000000000, 4, fff0000000000000, -inf stays -inf",
    })
    void documentedSemantics(DataType type, String xHex, int size, String expectedHex, String why) {
        int width = type.byteSize();
        byte[] image = new byte[8];
        TestBuffers.writeElement(image, 0, width, 0, Long.parseUnsignedLong(xHex, 16));
        MemorySegment segment = MemorySegment.ofArray(image);
        ReduceKernels.divideBySize(segment, 0, 1, type, size);
        assertEquals(Long.parseUnsignedLong(expectedHex, 16), TestBuffers.readElement(image, 0, width, 0), why);
    }

    @Test
    void nanStaysAQuietNaN() {
        byte[] image = new byte[2];
        TestBuffers.writeElement(image, 0, 2, 0, 0x7c01); // signalling binary16 NaN
        ReduceKernels.divideBySize(MemorySegment.ofArray(image), 0, 1, DataType.FLOAT16, 4);
        assertTrue(SmallFloatFormat.BINARY16.isQuietNaN((int) TestBuffers.readElement(image, 0, 2, 0)));
    }

    @Test
    void rejectsSizeBelowOneAndNegativeCount() {
        MemorySegment segment = MemorySegment.ofArray(new byte[8]);
        assertThrows(
                IllegalArgumentException.class, () -> ReduceKernels.divideBySize(segment, 0, 1, DataType.INT32, 0));
        assertThrows(
                IllegalArgumentException.class, () -> ReduceKernels.divideBySize(segment, 0, 1, DataType.INT32, -2));
        assertThrows(
                IllegalArgumentException.class, () -> ReduceKernels.divideBySize(segment, 0, -1, DataType.INT32, 2));
        assertThrows(
                IndexOutOfBoundsException.class, () -> ReduceKernels.divideBySize(segment, 4, 2, DataType.INT32, 2));
    }
}
