package dev.jccl.cuda;

import java.lang.foreign.MemorySegment;

/**
 * A range of device memory: {@code byteSize} bytes at device address {@code address} on the GPU with ordinal
 * {@code device} ({@code cuda:device}). A plain value: Jccl neither owns nor frees the memory (what allocated it does:
 * {@link DeviceMemory#allocate}, PyTorch, cupy…), and cannot check that the address is really device memory; passing
 * anything else is undefined behaviour, as it is for NCCL.
 *
 * @param address the device pointer ({@code CUdeviceptr} / {@code void*}); 0 only for an empty buffer
 * @param byteSize length in bytes, {@code >= 0}
 * @param device the CUDA device ordinal the memory lives on, {@code >= 0}
 */
public record DeviceBuffer(long address, long byteSize, int device) {
    /**
     * Checks the range: throws {@link IllegalArgumentException} for a negative length or ordinal, address 0 with a
     * non-zero length, or a range that wraps around the address space.
     */
    public DeviceBuffer {
        if (byteSize < 0) throw new IllegalArgumentException("device buffer length must be >= 0, got " + byteSize);
        if (device < 0) throw new IllegalArgumentException("device ordinal must be >= 0, got " + device);
        if (address == 0 && byteSize > 0) {
            throw new IllegalArgumentException("device buffer of " + byteSize + " bytes at address 0 (null)");
        }
        if (byteSize > 0 && Long.compareUnsigned(address + byteSize - 1, address) < 0) {
            throw new IllegalArgumentException("device buffer of " + byteSize + " bytes at 0x"
                    + Long.toHexString(address) + " wraps around the address space");
        }
    }

    /**
     * This buffer as a communicator takes it: a segment of the device address and length, which a communicator with
     * this device attached ({@link CudaSupport}) recognises as device memory. Host code must never read or write it.
     */
    @SuppressWarnings("restricted") // a device address has no host memory behind it to bound
    public MemorySegment segment() {
        return byteSize == 0
                ? MemorySegment.NULL
                : MemorySegment.ofAddress(address).reinterpret(byteSize);
    }

    /** {@code bytes} bytes from {@code offset}; the range must lie inside this buffer. */
    public DeviceBuffer slice(long offset, long bytes) {
        if (offset < 0 || bytes < 0 || offset > byteSize || bytes > byteSize - offset) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", " + offset + " + " + bytes
                    + ") of a device buffer of " + byteSize + " bytes");
        }
        return new DeviceBuffer(bytes == 0 && address == 0 ? 0 : address + offset, bytes, device);
    }

    /** From {@code offset} to the end. */
    public DeviceBuffer slice(long offset) {
        return slice(offset, byteSize - offset);
    }

    /** Whether the two ranges share at least one byte of the same device. */
    public boolean overlaps(DeviceBuffer other) {
        if (other.device != device || byteSize == 0 || other.byteSize == 0) return false;
        return Long.compareUnsigned(address, other.address + other.byteSize) < 0
                && Long.compareUnsigned(other.address, address + byteSize) < 0;
    }

    @Override
    public String toString() {
        return "cuda:" + device + " 0x" + Long.toHexString(address) + " (" + byteSize + " B)";
    }
}
