package dev.jccl.bench;

import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * The operand memory of one benchmark: native segments, or heap segments over the primitive array a Java user would
 * hold for the type ({@code float[]} for FLOAT32, {@code short[]} for FLOAT16…), filled with ordinary values (no NaNs
 * or subnormals, whose arithmetic can be slower).
 */
final class Buffers {

    private Buffers() {}

    /** Where an operand lives. */
    enum Kind {
        NATIVE,
        HEAP
    }

    static MemorySegment allocate(Kind kind, DataType type, long bytes, Arena arena, long seed) {
        MemorySegment segment = switch (kind) {
            case NATIVE -> arena.allocate(bytes, 64);
            case HEAP -> heap(type, bytes);
        };
        fill(segment, type, seed);
        return segment;
    }

    private static MemorySegment heap(DataType type, long bytes) {
        int count = Math.toIntExact(bytes / type.byteSize());
        return switch (type) {
            case INT8, UINT8 -> MemorySegment.ofArray(new byte[count]);
            case FLOAT16, BFLOAT16 -> MemorySegment.ofArray(new short[count]);
            case INT32, UINT32 -> MemorySegment.ofArray(new int[count]);
            case INT64, UINT64 -> MemorySegment.ofArray(new long[count]);
            case FLOAT32 -> MemorySegment.ofArray(new float[count]);
            case FLOAT64 -> MemorySegment.ofArray(new double[count]);
        };
    }

    /** Values in [0.5, 1.5) for the float types (products of two stay normal), random bits otherwise. */
    private static void fill(MemorySegment segment, DataType type, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long count = segment.byteSize() / type.byteSize();
        for (long i = 0; i < count; i++) {
            float value = 0.5f + (float) random.nextDouble();
            switch (type) {
                case FLOAT16 -> segment.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(value));
                case BFLOAT16 ->
                    segment.setAtIndex(
                            ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits(value) >>> 16));
                case FLOAT32 -> segment.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, value);
                case FLOAT64 -> segment.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, value);
                default -> {
                    for (int k = 0; k < type.byteSize(); k++) {
                        segment.set(ValueLayout.JAVA_BYTE, i * type.byteSize() + k, (byte) random.nextInt());
                    }
                }
            }
        }
    }
}
