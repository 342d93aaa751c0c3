package dev.jccl.reduce;

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

/**
 * The kernel checks, shared by {@link ReduceKernelsTest} and {@link CompiledKernelsMain} (which runs them in a JVM that
 * compiles every kernel with C2 before using it). Each returns its failures.
 */
final class KernelChecks {

    /**
     * Odd counts, none a multiple of a vector width, to reach every pre-, main- and post-loop; the last spans several
     * of ChunkedKernel's chunks for every element width, ending in a partial one.
     */
    static final int[] COUNTS = {0, 1, 2, 7, 31, 1023, 4099, 20011};

    private static final int MAX_OFFSET = 15;

    private KernelChecks() {}

    /** Every count × storage × aliasing case for one kernel, after warming it up. */
    static List<String> everyCase(DataType type, ReduceOp op, long baseSeed) {
        return everyCase(ReduceKernels.of(type, op), type, op, baseSeed);
    }

    /** As {@link #everyCase(DataType, ReduceOp, long)}, for a given kernel of that type and op. */
    static List<String> everyCase(ReduceKernel kernel, DataType type, ReduceOp op, long baseSeed) {
        warmUp(kernel, type);
        List<String> failures = new ArrayList<>();
        for (int countIndex = 0; countIndex < COUNTS.length; countIndex++) {
            for (Storage storage : Storage.checkedFor(type)) {
                for (Aliasing aliasing : Aliasing.values()) {
                    long seed = caseSeed(baseSeed, type, op, countIndex, storage, aliasing);
                    failures.addAll(checkCase(kernel, type, op, COUNTS[countIndex], storage, aliasing, seed));
                }
            }
        }
        return failures;
    }

    /**
     * Runs the kernel over every kind of memory before the checked runs, so that those run compiled code (how far the
     * JIT has got depends on the JVM's flags and load; see CompiledKernelsMain), and so that its type profile has seen
     * heap and native segments from the start.
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

    private static long caseSeed(
            long baseSeed, DataType type, ReduceOp op, int countIndex, Storage storage, Aliasing aliasing) {
        long caseNumber = (((type.ordinal() * 8L + op.ordinal()) * 8 + countIndex) * 8 + storage.number()) * 4
                + aliasing.ordinal();
        return new SplittableRandom(baseSeed + caseNumber).nextLong();
    }

    /** One kernel call on random data; returns what went wrong, nothing when it is right. */
    private static List<String> checkCase(
            ReduceKernel kernel, DataType type, ReduceOp op, int count, Storage storage, Aliasing aliasing, long seed) {
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
        String context = String.format(
                "%s %s count=%d storage=%s aliasing=%s offsets a=%d b=%d dst=%d case seed 0x%x",
                type, op, count, storage, aliasing, aOffset, bOffset, dstOffset, seed);
        List<String> failures = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = storage.a().holding(aImage, arena);
            MemorySegment b = storage.b().holding(bImage, arena);
            // The call's dst, and the memory and offset where its results must then be found.
            MemorySegment dst;
            long dstCallOffset;
            MemorySegment resultMemory;
            byte[] resultMemoryBefore;
            int resultOffset;
            switch (aliasing) {
                case SEPARATE -> {
                    dst = storage.dst().holding(dstImage, arena);
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
                    failures.add(String.format(
                            "%s: element %d: op(0x%x, 0x%x) = 0x%x, expected %s",
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
