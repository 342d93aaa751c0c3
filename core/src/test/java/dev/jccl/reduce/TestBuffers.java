package dev.jccl.reduce;

import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.Stream;

/**
 * Buffers for the kernel tests: a byte image (what the memory should hold) placed into heap or native segments.
 * Elements are read and written here byte by byte, little-endian, so the tests do not rely on the layouts the kernels
 * use.
 */
final class TestBuffers {

    private TestBuffers() {}

    /** Where a segment's memory lives. */
    enum Memory {
        /** MemorySegment.ofArray(byte[]). */
        HEAP_BYTES,
        /** MemorySegment.ofArray(long[]): a heap segment over an array of another primitive type. */
        HEAP_LONGS,
        /** Native memory starting at an odd address, so nothing in it is aligned. */
        NATIVE;

        /** A segment of this kind holding a copy of {@code image} (whose length is a multiple of 8). */
        MemorySegment holding(byte[] image, Arena arena) {
            MemorySegment segment = switch (this) {
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[image.length]);
                case HEAP_LONGS -> MemorySegment.ofArray(new long[image.length / Long.BYTES]);
                case NATIVE -> arena.allocate(image.length + 1L, 1).asSlice(1);
            };
            MemorySegment.copy(MemorySegment.ofArray(image), 0, segment, 0, image.length);
            return segment;
        }
    }

    /** The memory of the three operands a, b and dst in one test case. */
    record Storage(String name, Memory a, Memory b, Memory dst) {
        /** The mixes every kernel is checked on. */
        static final List<Storage> EVERY_KERNEL = List.of(
                new Storage("HEAP_BYTES", Memory.HEAP_BYTES, Memory.HEAP_BYTES, Memory.HEAP_BYTES),
                new Storage("HEAP_LONGS", Memory.HEAP_LONGS, Memory.HEAP_LONGS, Memory.HEAP_LONGS),
                new Storage("NATIVE", Memory.NATIVE, Memory.NATIVE, Memory.NATIVE),
                new Storage("MIXED", Memory.HEAP_BYTES, Memory.NATIVE, Memory.HEAP_LONGS));

        /**
         * Those, then native inputs with a heap output, and a native first with a heap second operand (MIXED is the
         * other way round): the FLOAT16 kernels read native operands in loops of their own, chosen by which operands
         * are native.
         */
        static final List<Storage> ALL = Stream.concat(
                        EVERY_KERNEL.stream(),
                        Stream.of(
                                new Storage("NATIVE_INTO_HEAP", Memory.NATIVE, Memory.NATIVE, Memory.HEAP_BYTES),
                                new Storage("NATIVE_THEN_HEAP", Memory.NATIVE, Memory.HEAP_LONGS, Memory.NATIVE)))
                .toList();

        /**
         * The storages to check {@code type}'s kernels on: all of them for FLOAT16; the others' kernels treat every mix
         * alike, and the extra ones would only add time to the suite.
         */
        static List<Storage> checkedFor(DataType type) {
            return type == DataType.FLOAT16 ? ALL : EVERY_KERNEL;
        }

        /** Its place in {@link #ALL}, which keys the case's seed. */
        int number() {
            return ALL.indexOf(this);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Whether dst is its own memory or exactly the memory of an input (the in-place case). */
    enum Aliasing {
        SEPARATE,
        /** dst is the very segment and offset of a. */
        DST_IS_A,
        /** dst is a different segment object, a slice of b, viewing exactly b's elements. */
        DST_IS_B_VIEW
    }

    static byte[] bytesOf(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Element {@code index} of {@code width} bytes at {@code offset}, zero-extended. */
    static long readElement(byte[] image, int offset, int width, int index) {
        int start = offset + index * width;
        long bits = 0;
        for (int k = width - 1; k >= 0; k--) {
            bits = (bits << 8) | (image[start + k] & 0xff);
        }
        return bits;
    }

    static void writeElement(byte[] image, int offset, int width, int index, long bits) {
        int start = offset + index * width;
        for (int k = 0; k < width; k++) {
            image[start + k] = (byte) (bits >>> (8 * k));
        }
    }

    /** A length, a multiple of 8, with room for the largest offset used, {@code bytes}, and guard bytes after. */
    static int imageLength(int maxOffset, long bytes) {
        long length = maxOffset + bytes + 16;
        return (int) ((length + 7) & ~7L);
    }
}
