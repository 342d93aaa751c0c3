package dev.jccl.runtime;

import dev.jccl.DataType;

/**
 * What a buffer must hold, for the error that says it is too small: {@code count × type}, or {@code ranks} blocks of
 * that. Kept as numbers and written out only for the error: building the text on every call cost an 8-byte Broadcast
 * about 2% of its time (async-profiler, 2 ranks).
 *
 * @param ranks how many blocks of {@code count} elements; 0 for a single one
 */
public record Shape(long ranks, long count, DataType type) {
    public Shape(long count, DataType type) {
        this(0, count, type);
    }

    @Override
    public String toString() {
        return (ranks > 0 ? ranks + " ranks × " : "") + count + " × " + type;
    }
}
