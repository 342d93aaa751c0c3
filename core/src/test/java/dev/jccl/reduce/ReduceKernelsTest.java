package dev.jccl.reduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.reduce.ReferenceArithmetic.Expected;
import dev.jccl.reduce.TestBuffers.Aliasing;
import dev.jccl.reduce.TestBuffers.Memory;
import dev.jccl.reduce.TestBuffers.Storage;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

@Timeout(300)
class ReduceKernelsTest {

    /** Override with -Djccl.test.seed=... to reproduce a failure printed with another seed. */
    private static final long BASE_SEED = Long.getLong("jccl.test.seed", 0x5eed_0f_7e57L);

    /** Odd counts, none a multiple of a vector width, to reach every pre-, main- and post-loop. */
    private static final int[] COUNTS = {0, 1, 2, 7, 31, 1023, 4099};

    private static final int MAX_OFFSET = 15;

    static Stream<Arguments> everyTypeAndOp() {
        return Arrays.stream(DataType.values())
                .flatMap(type -> Arrays.stream(ReduceOp.values()).map(op -> Arguments.of(type, op)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyTypeAndOp")
    void kernelMatchesReferenceForEveryCountMemoryAndAliasing(DataType type, ReduceOp op) {
        ReduceKernel kernel = ReduceKernels.of(type, op);
        warmUp(kernel, type);
        List<String> failures = new ArrayList<>();
        for (int countIndex = 0; countIndex < COUNTS.length; countIndex++) {
            for (Storage storage : Storage.values()) {
                for (Aliasing aliasing : Aliasing.values()) {
                    long seed = caseSeed(type, op, countIndex, storage, aliasing);
                    failures.addAll(checkCase(kernel, type, op, COUNTS[countIndex], storage, aliasing, seed));
                }
            }
        }
        assertTrue(failures.isEmpty(), () -> String.format("%s %s, base seed 0x%x (-Djccl.test.seed=%d): %s",
                type, op, BASE_SEED, BASE_SEED, ConversionChecks.summary(failures)));
    }

    @Test
    void everyTypeAndOpHasAKernelAndAvgReusesSum() {
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                assertNotNull(ReduceKernels.of(type, op), type + " " + op);
            }
            assertSame(ReduceKernels.of(type, ReduceOp.SUM), ReduceKernels.of(type, ReduceOp.AVG), type.toString());
            assertSame(ReduceKernels.of(type, ReduceOp.MAX), ReduceKernels.of(type, ReduceOp.MAX), "of() is a lookup");
        }
        assertThrows(NullPointerException.class, () -> ReduceKernels.of(null, ReduceOp.SUM));
        assertThrows(NullPointerException.class, () -> ReduceKernels.of(DataType.INT8, null));
    }

    /** The semantics the class javadoc promises, on values picked by hand. */
    @ParameterizedTest(name = "{0} {1}(0x{2}, 0x{3}) = {4}: {5}")
    @CsvSource({
        "UINT8,    MAX,  ff,               01,               ff,               unsigned: 255 > 1",
        "INT8,     MAX,  ff,               01,               01,               signed: -1 < 1",
        "UINT8,    MIN,  80,               7f,               7f,               unsigned",
        "INT8,     MIN,  80,               7f,               80,               signed",
        "UINT32,   MIN,  80000000,         7fffffff,         7fffffff,         unsigned",
        "INT32,    MIN,  80000000,         7fffffff,         80000000,         signed",
        "UINT64,   MAX,  ffffffffffffffff, 0,                ffffffffffffffff, unsigned",
        "INT64,    MAX,  ffffffffffffffff, 0,                0,                signed",
        "INT32,    SUM,  7fffffff,         1,                80000000,         sums wrap",
        "UINT8,    SUM,  ff,               02,               01,               sums wrap",
        "INT8,     PROD, 10,               10,               00,               products wrap",
        "INT64,    PROD, 8000000000000000, ffffffffffffffff, 8000000000000000, MIN_VALUE * -1 wraps",
        "INT32,    AVG,  7fffffff,         1,                80000000,         AVG is SUM before the division",
        "FLOAT32,  MAX,  7fc00000,         3f800000,         NaN,              NaN propagates (unlike fmaxf)",
        "FLOAT32,  MAX,  3f800000,         7fc00000,         NaN,              from either side",
        "FLOAT64,  MIN,  3ff0000000000000, 7ff8000000000000, NaN,              NaN propagates (unlike fmin)",
        "FLOAT32,  MIN,  00000000,         80000000,         80000000,         -0 is below +0",
        "FLOAT32,  MAX,  80000000,         00000000,         00000000,         +0 is above -0",
        "FLOAT64,  MAX,  8000000000000000, 0000000000000000, 0000000000000000, +0 is above -0",
        "FLOAT16,  MIN,  0000,             8000,             8000,             -0 is below +0",
        "BFLOAT16, MAX,  8000,             0000,             0000,             +0 is above -0",
        "FLOAT16,  SUM,  3c00,             3c00,             4000,             1 + 1 = 2",
        "FLOAT16,  SUM,  7bff,             2000,             7bff,             65504 + 2^-7 rounds back to 65504",
        "FLOAT16,  SUM,  7bff,             4800,             7bff,             65504 + 8 rounds back to 65504",
        "FLOAT16,  SUM,  7bff,             4c00,             7c00,             65504 + 16 = 65520 is the tie that overflows",
        "FLOAT16,  SUM,  7bff,             5000,             7c00,             65504 + 32 overflows to infinity",
        "FLOAT16,  PROD, 0001,             3800,             0000,             2^-24 * 0.5 is a tie: rounds to the even 0",
        "FLOAT16,  PROD, 0003,             3800,             0002,             3 * 2^-25 is a tie: rounds to the even 2 * 2^-24",
        "FLOAT16,  MAX,  7c01,             3c00,             NaN,              a signalling NaN comes out quiet",
        "BFLOAT16, SUM,  3f80,             3b80,             3f80,             1 + 2^-8 is a tie: rounds to the even 1",
        "BFLOAT16, SUM,  3f81,             3b80,             3f82,             (1 + 2^-7) + 2^-8 is a tie: rounds to the even 1 + 2^-6",
        "BFLOAT16, PROD, 7f7f,             4000,             7f80,             max * 2 overflows to infinity",
        "FLOAT32,  SUM,  7f800000,         ff800000,         NaN,              inf + -inf",
        "FLOAT64,  PROD, 7ff0000000000000, 0000000000000000, NaN,              inf * 0",
    })
    void documentedSemantics(DataType type, ReduceOp op, String aHex, String bHex, String expectedHex, String why) {
        long a = Long.parseUnsignedLong(aHex, 16);
        long b = Long.parseUnsignedLong(bHex, 16);
        long actual = applyToOneElement(type, op, a, b);
        if (expectedHex.equals("NaN")) {
            assertTrue(ReferenceArithmetic.matches(type, Expected.NAN, actual),
                    why + ": expected a NaN (quiet for the 16-bit types), got 0x" + Long.toHexString(actual));
        } else {
            assertEquals(Long.parseUnsignedLong(expectedHex, 16), actual, why);
        }
    }

    private static long applyToOneElement(DataType type, ReduceOp op, long a, long b) {
        int width = type.byteSize();
        byte[] aImage = new byte[8];
        byte[] bImage = new byte[8];
        TestBuffers.writeElement(aImage, 0, width, 0, a);
        TestBuffers.writeElement(bImage, 0, width, 0, b);
        MemorySegment dst = MemorySegment.ofArray(new byte[8]);
        ReduceKernels.of(type, op).apply(MemorySegment.ofArray(aImage), 0, MemorySegment.ofArray(bImage), 0, dst, 0, 1);
        return TestBuffers.readElement(TestBuffers.bytesOf(dst), 0, width, 0);
    }

    /**
     * Runs the kernel enough times, over every kind of memory, for the JIT to compile (and, where it
     * can, vectorise) it before the checked runs, so those check the compiled loop too.
     */
    private static void warmUp(ReduceKernel kernel, DataType type) {
        int count = 61;
        int length = TestBuffers.imageLength(MAX_OFFSET, (long) count * type.byteSize());
        byte[] image = new byte[length];
        new SplittableRandom(1).nextBytes(image);
        try (Arena arena = Arena.ofConfined()) {
            Memory[] memories = Memory.values();
            MemorySegment[] segments = new MemorySegment[memories.length];
            for (int m = 0; m < memories.length; m++) {
                segments[m] = memories[m].holding(image, arena);
            }
            for (int i = 0; i < 1500; i++) {
                MemorySegment a = segments[i % segments.length];
                MemorySegment b = segments[(i / 3) % segments.length];
                MemorySegment dst = (i & 1) == 0 ? a : segments[(i / 9) % segments.length];
                kernel.apply(a, 1, b, 3, dst, 1, count);
            }
        }
    }

    private static long caseSeed(DataType type, ReduceOp op, int countIndex, Storage storage, Aliasing aliasing) {
        long caseNumber = (((type.ordinal() * 8L + op.ordinal()) * 8 + countIndex) * 8 + storage.ordinal()) * 4 + aliasing.ordinal();
        return new SplittableRandom(BASE_SEED + caseNumber).nextLong();
    }

    /** One kernel call on random data; returns what went wrong, nothing when it is right. */
    private static List<String> checkCase(ReduceKernel kernel, DataType type, ReduceOp op, int count,
                                          Storage storage, Aliasing aliasing, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int width = type.byteSize();
        int aOffset = random.nextInt(MAX_OFFSET + 1);
        int bOffset = random.nextInt(MAX_OFFSET + 1);
        int dstOffset = random.nextInt(MAX_OFFSET + 1);
        int length = TestBuffers.imageLength(MAX_OFFSET, (long) count * width);
        byte[] aImage = randomBytes(random, length);
        byte[] bImage = randomBytes(random, length);
        byte[] dstImage = randomBytes(random, length);
        long[] aElements = new long[count];
        long[] bElements = new long[count];
        for (int i = 0; i < count; i++) {
            aElements[i] = RandomElements.next(type, random);
            bElements[i] = RandomElements.next(type, random);
            TestBuffers.writeElement(aImage, aOffset, width, i, aElements[i]);
            TestBuffers.writeElement(bImage, bOffset, width, i, bElements[i]);
        }
        String context = String.format("%s %s count=%d storage=%s aliasing=%s offsets a=%d b=%d dst=%d case seed 0x%x",
                type, op, count, storage, aliasing, aOffset, bOffset, dstOffset, seed);
        List<String> failures = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = storage.a.holding(aImage, arena);
            MemorySegment b = storage.b.holding(bImage, arena);
            // The call's dst, and the memory and offset where its results must then be found.
            MemorySegment dst;
            long dstCallOffset;
            MemorySegment resultMemory;
            byte[] resultMemoryBefore;
            int resultOffset;
            switch (aliasing) {
                case SEPARATE -> {
                    dst = storage.dst.holding(dstImage, arena);
                    dstCallOffset = dstOffset;
                    resultMemory = dst;
                    resultMemoryBefore = dstImage;
                    resultOffset = dstOffset;
                }
                case DST_IS_A -> {
                    dst = a;
                    dstCallOffset = aOffset;
                    resultMemory = a;
                    resultMemoryBefore = aImage;
                    resultOffset = aOffset;
                }
                case DST_IS_B_VIEW -> {
                    dst = b.asSlice(bOffset);
                    dstCallOffset = 0;
                    resultMemory = b;
                    resultMemoryBefore = bImage;
                    resultOffset = bOffset;
                }
                default -> throw new AssertionError(aliasing);
            }

            kernel.apply(a, aOffset, b, bOffset, dst, dstCallOffset, count);

            byte[] result = TestBuffers.bytesOf(resultMemory);
            for (int i = 0; i < count && failures.size() < 5; i++) {
                Expected expected = ReferenceArithmetic.reduce(type, op, aElements[i], bElements[i]);
                long actual = TestBuffers.readElement(result, resultOffset, width, i);
                if (!ReferenceArithmetic.matches(type, expected, actual)) {
                    failures.add(String.format("%s: element %d: op(0x%x, 0x%x) = 0x%x, expected %s",
                            context, i, aElements[i], bElements[i], actual, expected));
                }
            }
            int resultEnd = resultOffset + count * width;
            for (int k = 0; k < length; k++) {
                boolean inResult = k >= resultOffset && k < resultEnd;
                if (!inResult && result[k] != resultMemoryBefore[k]) {
                    failures.add(context + ": byte " + k + " outside the result range was written");
                    break;
                }
            }
            if (resultMemory != a && !Arrays.equals(TestBuffers.bytesOf(a), aImage)) {
                failures.add(context + ": input a was modified");
            }
            if (resultMemory != b && !Arrays.equals(TestBuffers.bytesOf(b), bImage)) {
                failures.add(context + ": input b was modified");
            }
        }
        return failures;
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }
}
