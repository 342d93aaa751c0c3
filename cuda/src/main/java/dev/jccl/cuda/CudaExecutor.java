package dev.jccl.cuda;

import dev.jccl.runtime.ArgumentChecks;
import dev.jccl.runtime.DeviceExecutor;
import dev.jccl.runtime.MemoryKind;
import dev.jccl.runtime.Operation;
import java.lang.foreign.MemorySegment;

/**
 * What the two ways of running operations on a GPU share: which buffers are this device's ({@link #kindOf}), and the
 * device memory they close with the communicator when it was opened for it.
 */
abstract sealed class CudaExecutor implements DeviceExecutor permits StagedExecutor, NcclExecutor {
    final DeviceMemory memory;
    final int rank;
    private final boolean ownsMemory;
    /** Set by {@link #close}: device buffers are refused from then on (the communicator may go on with host ones). */
    volatile boolean closed;

    CudaExecutor(DeviceMemory memory, boolean ownsMemory, int rank) {
        this.memory = memory;
        this.ownsMemory = ownsMemory;
        this.rank = rank;
    }

    /**
     * Device memory of this communicator's GPU is {@link MemoryKind#DEVICE}; heap segments and host memory (pinned or
     * not) are {@link MemoryKind#HOST}; memory of another GPU is refused, since neither NCCL nor the copies here may be
     * given it.
     */
    @Override
    public MemoryKind kindOf(MemorySegment segment, ArgumentChecks check, String name) {
        if (!segment.isNative() || segment.byteSize() == 0) return MemoryKind.HOST;
        int device = memory.deviceOf(segment.address());
        if (device < 0) return MemoryKind.HOST;
        if (device != memory.device()) {
            throw check.bad(name + " buffer is memory of cuda:" + device + " but this communicator works on cuda:"
                    + memory.device() + "; copy it to cuda:" + memory.device()
                    + " first, or use a communicator of each device");
        }
        return MemoryKind.DEVICE;
    }

    /** Refuses device operations once the device side is closed. */
    @Override
    public void check(Operation op, ArgumentChecks check) {
        if (closed) {
            throw new IllegalStateException(
                    "rank " + rank + ": " + op.collective().displayName() + " on device buffers of " + memory.describe()
                            + ": the communicator's device side was closed (CudaSupport.close); attach "
                            + "the device again to a new communicator");
        }
    }

    /** The device buffer a segment of a device address names. */
    final DeviceBuffer buffer(MemorySegment segment) {
        return new DeviceBuffer(segment.address(), segment.byteSize(), memory.device());
    }

    /** Closes the device memory where the communicator opened it ({@link CudaSupport#cuda}). */
    final void releaseMemory() {
        if (ownsMemory) memory.close();
    }
}
