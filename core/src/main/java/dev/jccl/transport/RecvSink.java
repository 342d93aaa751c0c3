package dev.jccl.transport;

import java.lang.foreign.MemorySegment;

/**
 * Where a receive's bytes go. The transport calls it with pieces in order, each a whole number
 * of elements; {@code piece} is only valid during the call (it is the transport's staging memory).
 */
@FunctionalInterface
public interface RecvSink {
    void accept(MemorySegment piece, long byteOffset);
}
