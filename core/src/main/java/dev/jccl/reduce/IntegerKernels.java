package dev.jccl.reduce;

/**
 * The integer reduce loops, {@code x[i] = x[i] op y[i]} over the scratch arrays of {@link ChunkedKernel}; one static
 * method per type × op, so that each loop is compiled on its own with its operator inlined and vectorised (see
 * {@link ReduceKernels} for the semantics).
 *
 * <p>SUM and PROD produce the same bits for a signed and an unsigned type of one width, so the unsigned types reuse the
 * signed loops for those; only MIN and MAX differ.
 */
final class IntegerKernels {

    private IntegerKernels() {}

    static final class Int8 {
        private Int8() {}

        static void sum(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte) (x[i] + y[i]);
            }
        }

        static void prod(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte) (x[i] * y[i]);
            }
        }

        static void max(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte) Math.max(x[i], y[i]);
            }
        }

        static void min(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte) Math.min(x[i], y[i]);
            }
        }
    }

    /** Unsigned order by flipping the sign bit, as in {@link Uint32}. */
    static final class Uint8 {
        private Uint8() {}

        static void max(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte)
                        (Math.max((byte) (x[i] ^ Byte.MIN_VALUE), (byte) (y[i] ^ Byte.MIN_VALUE)) ^ Byte.MIN_VALUE);
            }
        }

        static void min(byte[] x, byte[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = (byte)
                        (Math.min((byte) (x[i] ^ Byte.MIN_VALUE), (byte) (y[i] ^ Byte.MIN_VALUE)) ^ Byte.MIN_VALUE);
            }
        }
    }

    static final class Int32 {
        private Int32() {}

        static void sum(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] + y[i];
            }
        }

        static void prod(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * y[i];
            }
        }

        static void max(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i], y[i]);
            }
        }

        static void min(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i], y[i]);
            }
        }
    }

    /**
     * Flipping the sign bit maps unsigned order onto signed order, so a signed Math.max/min (one vector instruction, no
     * branch) of the flipped values, flipped back, is the unsigned max/min.
     */
    static final class Uint32 {
        private Uint32() {}

        static void max(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i] ^ Integer.MIN_VALUE, y[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
            }
        }

        static void min(int[] x, int[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i] ^ Integer.MIN_VALUE, y[i] ^ Integer.MIN_VALUE) ^ Integer.MIN_VALUE;
            }
        }
    }

    static final class Int64 {
        private Int64() {}

        static void sum(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] + y[i];
            }
        }

        static void prod(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = x[i] * y[i];
            }
        }

        static void max(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i], y[i]);
            }
        }

        static void min(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i], y[i]);
            }
        }
    }

    /** Unsigned order by flipping the sign bit, as in {@link Uint32}. */
    static final class Uint64 {
        private Uint64() {}

        static void max(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.max(x[i] ^ Long.MIN_VALUE, y[i] ^ Long.MIN_VALUE) ^ Long.MIN_VALUE;
            }
        }

        static void min(long[] x, long[] y, int n) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.min(x[i] ^ Long.MIN_VALUE, y[i] ^ Long.MIN_VALUE) ^ Long.MIN_VALUE;
            }
        }
    }
}
