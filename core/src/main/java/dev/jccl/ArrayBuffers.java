package dev.jccl;

import java.lang.foreign.MemorySegment;

/**
 * The one adapter behind {@link Communicator}'s array forms: turns a primitive array into the segment, element count
 * and element type of the {@code MemorySegment} forms, and says clearly what is wrong with anything else.
 */
final class ArrayBuffers {
    private static final String ARRAYS = "byte[], short[], int[], long[], float[] or double[]";

    private ArrayBuffers() {}

    /** The whole array as a segment, checked to be a primitive array whose elements are {@code type}'s width. */
    static MemorySegment of(Object array, DataType type, String operation) {
        DataType natural = moveType(array, operation);
        if (type == null) throw new IllegalArgumentException(operation + ": data type is null");
        if (natural.byteSize() != type.byteSize()) {
            throw new IllegalArgumentException(operation + ": a "
                    + array.getClass().getSimpleName() + " holds " + natural.byteSize() + "-byte elements but " + type
                    + " needs " + type.byteSize() + "-byte ones; pick an array of that width");
        }
        return of(array, operation);
    }

    /** The whole array as a segment. */
    static MemorySegment of(Object array, String operation) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            case null -> throw new IllegalArgumentException(operation + ": the array is null");
            default -> throw notAnArray(array, operation);
        };
    }

    /** The type used when only the width matters (moves without reduction). */
    static DataType moveType(Object array, String operation) {
        return switch (array) {
            case byte[] a -> DataType.INT8;
            case short[] a -> DataType.FLOAT16;
            case int[] a -> DataType.INT32;
            case long[] a -> DataType.INT64;
            case float[] a -> DataType.FLOAT32;
            case double[] a -> DataType.FLOAT64;
            case null -> throw new IllegalArgumentException(operation + ": the array is null");
            default -> throw notAnArray(array, operation);
        };
    }

    /**
     * The type a reduction reads the array as when none is named; a short[] must name one (FLOAT16 or BFLOAT16 bits).
     */
    static DataType reduceType(Object array, String operation) {
        if (array instanceof short[]) {
            throw new IllegalArgumentException(
                    operation + ": a short[] may hold FLOAT16 or BFLOAT16 bits; name the type "
                            + "(allReduce(array, DataType.BFLOAT16, op))");
        }
        return moveType(array, operation);
    }

    private static IllegalArgumentException notAnArray(Object array, String operation) {
        return new IllegalArgumentException(
                operation + " takes a primitive array (" + ARRAYS + ") in its array form, got a "
                        + array.getClass().getName() + "; pass MemorySegments to the other form for anything else");
    }

    static long count(Object array) {
        return java.lang.reflect.Array.getLength(array);
    }

    /** Two arrays of one call hold the same element type. */
    static void sameType(Object send, Object recv, String operation) {
        if (send != null && recv != null && send.getClass() != recv.getClass()) {
            throw new IllegalArgumentException(
                    operation + ": send is a " + send.getClass().getSimpleName() + " but recv a "
                            + recv.getClass().getSimpleName() + "; pass arrays of one element type");
        }
    }

    /** The common length of SendRecv's two arrays. */
    static long sameCount(Object send, Object recv) {
        long n = count(send);
        long m = count(recv);
        if (n != m) {
            throw new IllegalArgumentException("SendRecv arrays differ in length: send holds " + n + " elements, recv "
                    + m + "; pass arrays of the same length (or one array, in place)");
        }
        return n;
    }

    static long blockCount(Object array, int size) {
        long n = count(array);
        if (n % size != 0) {
            throw new IllegalArgumentException(
                    "AllToAll array length " + n + " is not a multiple of the communicator size " + size);
        }
        return n / size;
    }
}
