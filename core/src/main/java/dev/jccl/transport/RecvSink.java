package dev.jccl.transport;

import java.lang.foreign.MemorySegment;

/**
 * Where a receive's bytes go. The transport calls {@link #accept} with pieces in order, each a whole number of
 * elements; {@code piece} is only valid during the call (it is the transport's staging memory, or the shared-memory
 * ring itself).
 *
 * <p>A plain receive (no reduction) into native memory may instead name that memory as its {@link #directTarget()}: a
 * socket transport then reads straight into it, saving a copy out of its staging buffer, and reports progress through
 * {@link #delivered}.
 */
@FunctionalInterface
public interface RecvSink {
    void accept(MemorySegment piece, long byteOffset);

    /** Native memory the payload may be written into directly, in place of {@link #accept}; null if it may not. */
    default MemorySegment directTarget() {
        return null;
    }

    /** After direct writes: the first {@code bytes} of the payload are in {@link #directTarget()}. */
    default void delivered(long bytes) {}
}
