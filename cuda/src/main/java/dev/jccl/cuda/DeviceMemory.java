package dev.jccl.cuda;

import java.lang.foreign.MemorySegment;

/**
 * What Jccl needs of a GPU: device memory, page-locked host memory, and streams of asynchronous copies with events.
 * {@link CudaDeviceMemory} is the real one (the CUDA runtime through FFM); {@link StandInDeviceMemory} does the same
 * with host memory and a thread per stream, so that everything above it (the staging pipeline, the tools) runs and is
 * tested where there is no GPU.
 *
 * <p>One instance serves one device. Its methods may be called from any thread; CUDA's notion of a current device per
 * thread is handled inside ({@link #bindThread}).
 */
public interface DeviceMemory extends AutoCloseable {
    /** The device ordinal this instance works on. */
    int device();

    /** E.g. {@code cuda:0 NVIDIA H100 80GB HBM3 (CUDA 12.4, driver 12.6)}. */
    String describe();

    /**
     * Identifies the physical device across the ranks of a job ({@code host id + PCI bus id}): two ranks with the same
     * key share a GPU, which NCCL does not allow.
     */
    String deviceKey();

    /** Whether NCCL can run on this memory (a real GPU). */
    boolean isCuda();

    /** Allocates {@code bytes} of device memory ({@code cudaMalloc}). */
    DeviceBuffer allocate(long bytes);

    /**
     * The ordinal of the GPU whose memory {@code address} is, or -1 for host memory (pageable or pinned): how a
     * communicator tells a device buffer from a host one.
     */
    int deviceOf(long address);

    /** Frees memory from {@link #allocate}. */
    void free(DeviceBuffer buffer);

    /**
     * Allocates {@code bytes} of page-locked host memory ({@code cudaHostAlloc}), accessible from any thread, zeroed.
     * Free it with {@link #freePinned}.
     */
    MemorySegment allocatePinned(long bytes);

    /**
     * Frees memory from {@link #allocatePinned}; throws {@link IllegalArgumentException} for a segment this instance
     * did not allocate or has freed already.
     */
    void freePinned(MemorySegment pinned);

    /** A new non-blocking stream on this device. */
    DeviceStream createStream();

    /** Makes this device the calling thread's current one ({@code cudaSetDevice}). */
    void bindThread();

    /** Copies {@code src} (host) into the start of {@code dst} (device) and waits for it ({@code cudaMemcpy}). */
    void upload(MemorySegment src, DeviceBuffer dst);

    /** Copies all of {@code src} (device) into the start of {@code dst} (host) and waits for it. */
    void download(DeviceBuffer src, MemorySegment dst);

    /** Sets every byte of {@code dst} to {@code value} and waits for it ({@code cudaMemset}). */
    void fill(DeviceBuffer dst, byte value);

    /** Frees what this instance allocated and has not freed yet. */
    @Override
    void close();
}
