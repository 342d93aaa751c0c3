package dev.jccl.plan;

/** Which of an operation's buffers a {@link Region} lies in. */
public enum BufferRole {
    /** The caller's send buffer (read only). */
    SEND,
    /** The caller's receive buffer. In place, it is the same memory as SEND. */
    RECV,
    /** Temporary space the runtime provides, {@link Schedule#scratchCount()} elements long. */
    SCRATCH
}
