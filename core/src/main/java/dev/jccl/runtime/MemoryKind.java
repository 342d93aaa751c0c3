package dev.jccl.runtime;

/** Where an operation's buffers live, which decides the executor that runs it. */
public enum MemoryKind {
    /** Memory the CPU can touch: heap arrays and native segments. Run by the host schedule. */
    HOST,
    /**
     * GPU memory of the communicator's device, passed as a segment of its device address. Run by the attached
     * {@link DeviceExecutor}.
     */
    DEVICE
}
