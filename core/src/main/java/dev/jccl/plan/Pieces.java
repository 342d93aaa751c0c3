package dev.jccl.plan;

/**
 * A length split into {@link #count()} nearly equal pieces of at most {@code maxPiece} elements: the first {@code total
 * % count} pieces are one element longer than the rest. Even pieces keep a pipeline's stages the same length (no short
 * last chunk that leaves links idle).
 */
record Pieces(long total, long count) {

    /** Splits {@code total} into the fewest pieces of at most {@code maxPiece} elements (none when total is 0). */
    static Pieces of(long total, long maxPiece) {
        return new Pieces(total, Math.ceilDiv(total, maxPiece));
    }

    long offset(long i) {
        long base = total / count;
        return i * base + Math.min(i, total % count);
    }

    long length(long i) {
        return total / count + (i < total % count ? 1 : 0);
    }

    /** Length of the first, longest piece (0 when there are none). */
    long longest() {
        return count == 0 ? 0 : length(0);
    }

    /** Number of pieces as an int, for step arithmetic; a schedule of 2^31 steps is a caller's mistake. */
    int steps() {
        if (count > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException(
                    count + " chunks of " + total + " elements: chunkCount too small for this count");
        }
        return (int) count;
    }
}
