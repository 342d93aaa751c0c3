package dev.jccl.cuda;

import java.lang.foreign.MemorySegment;

/**
 * An in-order queue of asynchronous work on one device (a {@code cudaStream_t}): copies issued to it run one after
 * another, in issue order, while the issuing thread goes on. Copies in different streams may run at the same time (a
 * GPU has a copy engine for each direction). Used by one thread at a time.
 *
 * <p>Host memory passed to the copies must stay valid until an event recorded after them is complete, and should be
 * pinned ({@link DeviceMemory#allocatePinned}); pageable memory makes CUDA copy synchronously.
 */
public interface DeviceStream extends AutoCloseable {
    /** The native handle ({@code cudaStream_t}), for libraries that take one (NCCL). */
    long handle();

    /** Queues a copy of all of {@code src} (device) into the start of {@code dst} (host). */
    void copyToHost(DeviceBuffer src, MemorySegment dst);

    /** Queues a copy of {@code dst.byteSize()} bytes from the start of {@code src} (host) into {@code dst} (device). */
    void copyToDevice(MemorySegment src, DeviceBuffer dst);

    /** Queues a device-to-device copy of all of {@code src} into the start of {@code dst}. */
    void copyOnDevice(DeviceBuffer src, DeviceBuffer dst);

    /** Records an event after everything queued so far. */
    DeviceEvent record();

    /** True when everything queued has finished; throws {@link CudaException} when some of it failed. */
    boolean isIdle();

    /** Releases the stream (after its work, which the caller has waited for). */
    @Override
    void close();
}
