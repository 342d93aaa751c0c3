package dev.jccl.cuda;

import dev.jccl.debug.HostIdentity;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;

/**
 * {@link DeviceMemory} on a real GPU, through {@link CudaRuntime}. Keeps a list of what it allocated, so {@link #close}
 * frees what callers forgot.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
public final class CudaDeviceMemory implements DeviceMemory {
    private final CudaRuntime cuda;
    private final int device;
    private final String description;
    private final String key;
    private final Map<Long, Long> deviceAllocations = new ConcurrentHashMap<>();
    private final Set<Long> pinnedAllocations = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private CudaDeviceMemory(CudaRuntime cuda, int device) {
        this.cuda = cuda;
        this.device = device;
        cuda.setDevice(device);
        String name = cuda.deviceName(device);
        String pci = cuda.pciBusId(device);
        this.description = "cuda:" + device + (name == null ? "" : " " + name) + " [" + pci + "] (CUDA "
                + CudaRuntime.version(cuda.runtimeVersion()) + ", driver " + CudaRuntime.version(cuda.driverVersion())
                + ")";
        this.key = HostIdentity.hostId(null) + "/" + pci;
    }

    /** Device {@code device} of this process's CUDA, with the process environment ({@code JCCL_CUDA_LIB}). */
    public static CudaDeviceMemory open(int device) {
        return open(device, System.getenv());
    }

    /**
     * Device {@code device}, finding libcudart as {@code env} says. Throws {@link CudaUnavailableException} with the
     * reason when CUDA cannot be used or the device is not there.
     */
    public static CudaDeviceMemory open(int device, Map<String, String> env) {
        CudaProbe probe = CudaRuntime.probe(env);
        if (!probe.available()) throw new CudaUnavailableException(probe.reason());
        if (device < 0 || device >= probe.deviceCount()) {
            throw new CudaUnavailableException("no CUDA device " + device + ": this process sees " + probe.deviceCount()
                    + (probe.deviceCount() == 1
                            ? " device (cuda:0)"
                            : " devices (cuda:0 to cuda:" + (probe.deviceCount() - 1) + ")")
                    + (env.get("CUDA_VISIBLE_DEVICES") == null
                            ? ""
                            : " with CUDA_VISIBLE_DEVICES=" + env.get("CUDA_VISIBLE_DEVICES")));
        }
        return new CudaDeviceMemory(CudaRuntime.load(env), device);
    }

    /** The binding, for callers that need more than this interface. */
    public CudaRuntime runtime() {
        return cuda;
    }

    @Override
    public int device() {
        return device;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public String deviceKey() {
        return key;
    }

    @Override
    public boolean isCuda() {
        return true;
    }

    @Override
    public void bindThread() {
        cuda.setDevice(device);
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        checkOpen();
        bindThread();
        long p = bytes == 0 ? 0 : cuda.malloc(bytes);
        if (p != 0) deviceAllocations.put(p, bytes);
        return new DeviceBuffer(p, bytes, device);
    }

    @Override
    public int deviceOf(long address) {
        return address == 0 ? -1 : cuda.deviceOf(address);
    }

    @Override
    public void free(DeviceBuffer buffer) {
        if (buffer.address() == 0) return;
        if (deviceAllocations.remove(buffer.address()) == null) {
            throw new IllegalArgumentException(
                    buffer + " was not allocated by this DeviceMemory, or was freed already");
        }
        bindThread();
        cuda.free(buffer.address());
    }

    @Override
    public MemorySegment allocatePinned(long bytes) {
        checkOpen();
        bindThread();
        long p = cuda.hostAlloc(Math.max(1, bytes));
        pinnedAllocations.add(p);
        MemorySegment s = MemorySegment.ofAddress(p).reinterpret(bytes);
        s.fill((byte) 0);
        return s;
    }

    @Override
    public void freePinned(MemorySegment pinned) {
        if (!pinnedAllocations.remove(pinned.address())) {
            throw new IllegalArgumentException(
                    "this memory was not allocated by allocatePinned here, or was freed already");
        }
        cuda.freeHost(pinned.address());
    }

    @Override
    public DeviceStream createStream() {
        checkOpen();
        bindThread();
        return new Stream(cuda.streamCreate());
    }

    @Override
    public void upload(MemorySegment src, DeviceBuffer dst) {
        if (!readyToCopy(dst, src)) return;
        if (!src.isNative()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment copy = arena.allocate(dst.byteSize(), 64).copyFrom(src.asSlice(0, dst.byteSize()));
                cuda.memcpy(dst.address(), copy.address(), dst.byteSize(), CudaRuntime.HOST_TO_DEVICE);
            }
            return;
        }
        cuda.memcpy(dst.address(), src.address(), dst.byteSize(), CudaRuntime.HOST_TO_DEVICE);
    }

    @Override
    public void download(DeviceBuffer src, MemorySegment dst) {
        if (!readyToCopy(src, dst)) return;
        if (!dst.isNative()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment copy = arena.allocate(src.byteSize(), 64);
                cuda.memcpy(copy.address(), src.address(), src.byteSize(), CudaRuntime.DEVICE_TO_HOST);
                dst.asSlice(0, src.byteSize()).copyFrom(copy);
            }
            return;
        }
        cuda.memcpy(dst.address(), src.address(), src.byteSize(), CudaRuntime.DEVICE_TO_HOST);
    }

    /**
     * Checks both sides of a blocking copy between {@code device} and {@code host}; false when there is nothing to
     * copy, else true with this thread bound to the device.
     */
    private boolean readyToCopy(DeviceBuffer device, MemorySegment host) {
        checkDevice(device);
        checkHost(host, device.byteSize());
        if (device.byteSize() == 0) return false;
        bindThread();
        return true;
    }

    @Override
    public void fill(DeviceBuffer dst, byte value) {
        checkDevice(dst);
        if (dst.byteSize() == 0) return;
        bindThread();
        cuda.memset(dst.address(), value & 0xFF, dst.byteSize());
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        bindThread();
        for (Long p : deviceAllocations.keySet()) cuda.free(p);
        deviceAllocations.clear();
        for (Long p : pinnedAllocations) cuda.freeHost(p);
        pinnedAllocations.clear();
    }

    @Override
    public String toString() {
        return description;
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException(description + " is closed");
    }

    private void checkDevice(DeviceBuffer b) {
        if (b.device() != device) throw new IllegalArgumentException(b + " is not on cuda:" + device);
    }

    private static void checkHost(MemorySegment s, long bytes) {
        if (s.byteSize() < bytes) {
            throw new IllegalArgumentException(
                    "host buffer of " + s.byteSize() + " bytes is smaller than the " + bytes + " to copy");
        }
    }

    /** Asynchronous copies read and write host memory by address, after the call returns: no heap segments. */
    private static long hostAddress(MemorySegment s) {
        if (!s.isNative()) {
            throw new IllegalArgumentException(
                    "asynchronous CUDA copies need native host memory (pinned, from allocatePinned), "
                            + "not a heap segment");
        }
        return s.address();
    }

    /** A CUDA stream of this device, and its events. */
    /** A native stream or event handle, destroyed by the first {@code close()} and left alone by any later one. */
    private static class OwnedHandle {
        final long handle;
        private final LongConsumer destroy;
        private boolean closed;

        OwnedHandle(long handle, LongConsumer destroy) {
            this.handle = handle;
            this.destroy = destroy;
        }

        public void close() {
            if (closed) return;
            closed = true;
            destroy.accept(handle);
        }
    }

    private final class Stream extends OwnedHandle implements DeviceStream {
        Stream(long handle) {
            super(handle, cuda::streamDestroy);
        }

        @Override
        public long handle() {
            return handle;
        }

        @Override
        public void copyToHost(DeviceBuffer src, MemorySegment dst) {
            checkDevice(src);
            checkHost(dst, src.byteSize());
            if (src.byteSize() == 0) return;
            cuda.memcpyAsync(hostAddress(dst), src.address(), src.byteSize(), CudaRuntime.DEVICE_TO_HOST, handle);
        }

        @Override
        public void copyToDevice(MemorySegment src, DeviceBuffer dst) {
            checkDevice(dst);
            checkHost(src, dst.byteSize());
            if (dst.byteSize() == 0) return;
            cuda.memcpyAsync(dst.address(), hostAddress(src), dst.byteSize(), CudaRuntime.HOST_TO_DEVICE, handle);
        }

        @Override
        public void copyOnDevice(DeviceBuffer src, DeviceBuffer dst) {
            checkDevice(src);
            checkDevice(dst);
            if (dst.byteSize() < src.byteSize()) throw new IllegalArgumentException(dst + " is smaller than " + src);
            if (src.byteSize() == 0) return;
            cuda.memcpyAsync(dst.address(), src.address(), src.byteSize(), CudaRuntime.DEVICE_TO_DEVICE, handle);
        }

        @Override
        public DeviceEvent record() {
            long event = cuda.eventCreate();
            try {
                cuda.eventRecord(event, handle);
            } catch (CudaException e) {
                cuda.eventDestroy(event);
                throw e;
            }
            return new Event(event);
        }

        @Override
        public boolean isIdle() {
            return cuda.streamQuery(handle);
        }
    }

    private final class Event extends OwnedHandle implements DeviceEvent {
        Event(long handle) {
            super(handle, cuda::eventDestroy);
        }

        @Override
        public boolean isComplete() {
            return cuda.eventQuery(handle);
        }
    }
}
