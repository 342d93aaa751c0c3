package dev.jccl;

import java.lang.foreign.MemorySegment;

/** Maps Java arrays to segments and element types for {@link Communicator}'s array overloads. */
final class ArrayBuffers {
    private ArrayBuffers() {}

    static MemorySegment of(Object array, DataType type) {
        DataType natural = moveType(array);
        if (natural.byteSize() != type.byteSize()) {
            throw new IllegalArgumentException("a " + array.getClass().getSimpleName() + " holds " + natural.byteSize()
                    + "-byte elements but " + type + " needs " + type.byteSize() + "-byte ones; pick an array of that width");
        }
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not a primitive array: " + array.getClass());
        };
    }

    /** The type used when only the width matters (moves without reduction). */
    static DataType moveType(Object array) {
        return switch (array) {
            case byte[] a -> DataType.INT8;
            case short[] a -> DataType.FLOAT16;
            case int[] a -> DataType.INT32;
            case long[] a -> DataType.INT64;
            case float[] a -> DataType.FLOAT32;
            case double[] a -> DataType.FLOAT64;
            default -> throw new IllegalArgumentException("not a primitive array: " + array.getClass());
        };
    }

    static long count(Object array) {
        return java.lang.reflect.Array.getLength(array);
    }

    /** The common length of SendRecv's two arrays. */
    static long sameCount(Object send, Object recv) {
        long n = count(send);
        long m = count(recv);
        if (n != m) {
            throw new IllegalArgumentException("SendRecv arrays differ in length: send holds " + n + " elements, recv " + m
                    + "; pass arrays of the same length (or one array, in place)");
        }
        return n;
    }

    static long blockCount(Object array, int size) {
        long n = count(array);
        if (n % size != 0) {
            throw new IllegalArgumentException("AllToAll array length " + n + " is not a multiple of the communicator size " + size);
        }
        return n / size;
    }
}
