package dev.jccl.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CUDA runtime ({@code libcudart}) bound through the Foreign Function &amp; Memory API: found at run time, never at
 * build time, so that Jccl builds and runs where there is no GPU and uses one where there is.
 *
 * <p>{@link #load} finds the library ({@value #LIBRARY_VARIABLE} names a file; else {@code libcudart.so},
 * {@code .so.13}, {@code .so.12}, {@code .so.11.0} through the dynamic loader, then {@code /usr/local/cuda} and pip's
 * {@code nvidia/cuda_runtime}); {@link #probe} says in a sentence whether CUDA can be used and why not. Functions are
 * bound on first call.
 *
 * <p>Every call checks CUDA's result and throws {@link CudaException} with the call's name and CUDA's own words. Calls
 * act on the calling thread's current device (CUDA's rule): call {@link #setDevice} first on every thread that issues
 * work.
 */
@SuppressWarnings("restricted") // binding native libraries is what this class is for
public final class CudaRuntime {
    /** Names the libcudart file to load, instead of searching. */
    public static final String LIBRARY_VARIABLE = "JCCL_CUDA_LIB";

    static final NativeLibraries.Search SEARCH = new NativeLibraries.Search(
            LIBRARY_VARIABLE,
            List.of("libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"),
            List.of(
                    "/usr/local/cuda/lib64",
                    "/usr/local/cuda/targets/x86_64-linux/lib",
                    "/usr/local/cuda/targets/sbsa-linux/lib"),
            List.of(
                    "nvidia/cuda_runtime/lib/libcudart.so.12", "nvidia/cuda_runtime/lib/libcudart.so.13",
                    "nvidia/cuda_runtime/lib/libcudart.so.11.0", "nvidia/cu13/lib/libcudart.so.13"));

    static final String INSTALL =
            "install the CUDA toolkit or runtime (apt-get install cuda-cudart-12-x from NVIDIA's repository), "
                    + "or pip install torch (its wheels ship libcudart under site-packages/nvidia/cuda_runtime/lib), "
                    + "or set "
                    + LIBRARY_VARIABLE + " to a libcudart.so";

    // cudaError_t values Jccl tells apart.
    static final int SUCCESS = 0;
    static final int ERROR_INVALID_VALUE = 1;
    static final int ERROR_INSUFFICIENT_DRIVER = 35;
    static final int ERROR_NO_DEVICE = 100;
    static final int ERROR_NOT_READY = 600;

    // cudaMemcpyKind.
    static final int HOST_TO_DEVICE = 1;
    static final int DEVICE_TO_HOST = 2;
    static final int DEVICE_TO_DEVICE = 3;

    static final int STREAM_NON_BLOCKING = 0x01;
    static final int EVENT_DISABLE_TIMING = 0x02;
    static final int HOST_ALLOC_PORTABLE = 0x01;

    private static final Map<String, CudaRuntime> LOADED = new ConcurrentHashMap<>();

    private final String library;
    private final NativeFunction getDeviceCount;
    private final NativeFunction runtimeGetVersion;
    private final NativeFunction driverGetVersion;
    private final NativeFunction setDevice;
    private final NativeFunction malloc;
    private final NativeFunction free;
    private final NativeFunction hostAlloc;
    private final NativeFunction freeHost;
    private final NativeFunction memcpy;
    private final NativeFunction memcpyAsync;
    private final NativeFunction memset;
    private final NativeFunction streamCreateWithFlags;
    private final NativeFunction streamDestroy;
    private final NativeFunction streamQuery;
    private final NativeFunction streamSynchronize;
    private final NativeFunction eventCreateWithFlags;
    private final NativeFunction eventRecord;
    private final NativeFunction eventQuery;
    private final NativeFunction eventDestroy;
    private final NativeFunction getErrorString;
    private final NativeFunction getErrorName;
    private final NativeFunction deviceGetPciBusId;
    private final NativeFunction getDeviceProperties2;
    private final NativeFunction getDeviceProperties;
    private final NativeFunction pointerGetAttributes;

    /** Eight bytes per thread for out-parameters. */
    private static final ThreadLocal<MemorySegment> OUT =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(8, 8));

    private CudaRuntime(NativeLibraries.Loaded lib) {
        this.library = lib.name();
        java.util.function.Function<String, RuntimeException> missing = why -> new CudaUnavailableException(
                why + ": not a CUDA runtime, or one too old for Jccl (CUDA 11 or newer); " + INSTALL);
        var bind = new NativeFunction.Binder(lib.lookup(), library, missing);
        getDeviceCount = bind.returningInt("cudaGetDeviceCount", JAVA_LONG);
        runtimeGetVersion = bind.returningInt("cudaRuntimeGetVersion", JAVA_LONG);
        driverGetVersion = bind.returningInt("cudaDriverGetVersion", JAVA_LONG);
        setDevice = bind.returningInt("cudaSetDevice", JAVA_INT);
        malloc = bind.returningInt("cudaMalloc", JAVA_LONG, JAVA_LONG);
        free = bind.returningInt("cudaFree", JAVA_LONG);
        hostAlloc = bind.returningInt("cudaHostAlloc", JAVA_LONG, JAVA_LONG, JAVA_INT);
        freeHost = bind.returningInt("cudaFreeHost", JAVA_LONG);
        memcpy = bind.returningInt("cudaMemcpy", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT);
        memcpyAsync = bind.returningInt("cudaMemcpyAsync", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG);
        memset = bind.returningInt("cudaMemset", JAVA_LONG, JAVA_INT, JAVA_LONG);
        streamCreateWithFlags = bind.returningInt("cudaStreamCreateWithFlags", JAVA_LONG, JAVA_INT);
        streamDestroy = bind.returningInt("cudaStreamDestroy", JAVA_LONG);
        streamQuery = bind.returningInt("cudaStreamQuery", JAVA_LONG);
        streamSynchronize = bind.returningInt("cudaStreamSynchronize", JAVA_LONG);
        eventCreateWithFlags = bind.returningInt("cudaEventCreateWithFlags", JAVA_LONG, JAVA_INT);
        eventRecord = bind.returningInt("cudaEventRecord", JAVA_LONG, JAVA_LONG);
        eventQuery = bind.returningInt("cudaEventQuery", JAVA_LONG);
        eventDestroy = bind.returningInt("cudaEventDestroy", JAVA_LONG);
        getErrorString = bind.function("cudaGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getErrorName = bind.function("cudaGetErrorName", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        deviceGetPciBusId = bind.returningInt("cudaDeviceGetPCIBusId", JAVA_LONG, JAVA_INT, JAVA_INT);
        getDeviceProperties2 = bind.returningInt("cudaGetDeviceProperties_v2", JAVA_LONG, JAVA_INT);
        getDeviceProperties = bind.returningInt("cudaGetDeviceProperties", JAVA_LONG, JAVA_INT);
        pointerGetAttributes = bind.returningInt("cudaPointerGetAttributes", JAVA_LONG, JAVA_LONG);
    }

    /** {@link #load(Map)} with the process environment. */
    public static CudaRuntime load() {
        return load(System.getenv());
    }

    /**
     * Finds and loads libcudart, reading {@value #LIBRARY_VARIABLE} from {@code env}; throws
     * {@link CudaUnavailableException} saying what was tried and what to install. Does not touch a device (see
     * {@link #probe}).
     */
    public static CudaRuntime load(Map<String, String> env) {
        NativeLibraries.Loaded lib;
        try {
            // A machine may have several runtimes (a CUDA toolkit, PyTorch's wheels): take the first the driver
            // supports.
            lib = NativeLibraries.load(SEARCH, env, CudaRuntime::supportedByDriver);
        } catch (NativeLibraries.NotFound e) {
            throw new CudaUnavailableException(
                    "no CUDA runtime: libcudart not found (" + e.getMessage() + "); " + INSTALL, e);
        } catch (IllegalCallerException e) {
            throw new CudaUnavailableException(
                    "native access is denied to Jccl; run java with --enable-native-access=ALL-UNNAMED", e);
        }
        CudaRuntime rt = LOADED.computeIfAbsent(lib.name(), n -> new CudaRuntime(lib));
        if (!rt.getDeviceCount.exists() || !rt.getErrorString.exists()) {
            throw new CudaUnavailableException(lib.name()
                    + " has no cudaGetDeviceCount/cudaGetErrorString: it is not the CUDA runtime; " + INSTALL);
        }
        return rt;
    }

    /** Whether {@code lib} is a CUDA runtime that the installed driver supports (so that it can see devices). */
    private static boolean supportedByDriver(NativeLibraries.Loaded lib) {
        try {
            CudaRuntime rt = LOADED.computeIfAbsent(lib.name(), n -> new CudaRuntime(lib));
            if (!rt.getDeviceCount.exists() || !rt.runtimeGetVersion.exists() || !rt.driverGetVersion.exists()) {
                return false;
            }
            int driver = rt.driverVersion();
            return driver > 0 && driver >= rt.runtimeVersion();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@link #probe(Map)} with the process environment. */
    public static CudaProbe probe() {
        return probe(System.getenv());
    }

    /**
     * Whether CUDA can be used here: library, driver, devices, each failure in a sentence. Never throws for a missing
     * piece; that is what it reports.
     */
    public static CudaProbe probe(Map<String, String> env) {
        CudaRuntime rt;
        try {
            rt = load(env);
        } catch (CudaUnavailableException e) {
            return CudaProbe.unavailable(null, 0, 0, e.getMessage());
        }
        try {
            int runtime = rt.runtimeVersion();
            int driver = rt.driverVersion();
            if (driver == 0) {
                return CudaProbe.unavailable(
                        rt.library,
                        runtime,
                        0,
                        "no NVIDIA driver: the CUDA " + version(runtime) + " runtime at " + rt.library
                                + " finds no driver (libcuda.so.1); install the NVIDIA driver, or in a container "
                                + "pass the GPUs in (docker --gpus all, "
                                + "the NVIDIA device plugin on Kubernetes)");
            }
            int code = rt.rawDeviceCount();
            if (code == ERROR_INSUFFICIENT_DRIVER) {
                return CudaProbe.unavailable(
                        rt.library,
                        runtime,
                        driver,
                        "the NVIDIA driver supports CUDA up to " + version(driver) + " but "
                                + rt.library + " is CUDA " + version(runtime) + ": update the driver, or point "
                                + LIBRARY_VARIABLE
                                + " at a libcudart no newer than " + version(driver));
            }
            if (code == ERROR_NO_DEVICE) return CudaProbe.unavailable(rt.library, runtime, driver, noDevice(env));
            if (code != SUCCESS) {
                return CudaProbe.unavailable(
                        rt.library, runtime, driver, "cudaGetDeviceCount failed: " + rt.describeError(code));
            }
            int count = OUT.get().get(JAVA_INT, 0);
            if (count == 0) return CudaProbe.unavailable(rt.library, runtime, driver, noDevice(env));
            return new CudaProbe(true, rt.library, runtime, driver, count, null);
        } catch (CudaUnavailableException | CudaException e) {
            return CudaProbe.unavailable(rt.library, 0, 0, e.getMessage());
        }
    }

    private static String noDevice(Map<String, String> env) {
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        return "no CUDA device visible" + (visible == null ? "" : " (CUDA_VISIBLE_DEVICES=" + visible + ")")
                + "; check nvidia-smi, and in a container that the GPUs are passed in";
    }

    /** {@code 12040} → {@code 12.4}, CUDA's encoding of versions ({@code 1000 × major + 10 × minor}). */
    public static String version(int code) {
        return code / 1000 + "." + (code % 1000) / 10;
    }

    /** Where the library was loaded from (a name for the dynamic loader, or a path). */
    public String library() {
        return library;
    }

    /** This libcudart's CUDA version code ({@code 12040} for 12.4; {@link #version} spells it). */
    public int runtimeVersion() {
        MemorySegment out = OUT.get();
        check(call(runtimeGetVersion, out.address()), "cudaRuntimeGetVersion");
        return out.get(JAVA_INT, 0);
    }

    /** The newest CUDA the installed driver supports; 0 when there is no driver. */
    public int driverVersion() {
        MemorySegment out = OUT.get();
        out.set(JAVA_INT, 0, 0);
        check(call(driverGetVersion, out.address()), "cudaDriverGetVersion");
        return out.get(JAVA_INT, 0);
    }

    /**
     * How many devices this process sees ({@code cudaGetDeviceCount}, which honours {@code CUDA_VISIBLE_DEVICES});
     * throws {@link CudaException} where CUDA cannot count them (no device, a driver older than the runtime).
     */
    public int deviceCount() {
        check(rawDeviceCount(), "cudaGetDeviceCount");
        return OUT.get().get(JAVA_INT, 0);
    }

    private int rawDeviceCount() {
        MemorySegment out = OUT.get();
        out.set(JAVA_INT, 0, 0);
        return call(getDeviceCount, out.address());
    }

    /** Makes {@code device} the calling thread's current device, which this thread's later calls act on. */
    public void setDevice(int device) {
        check(call(setDevice, device), "cudaSetDevice(" + device + ")");
    }

    /** The device's name ({@code cudaDeviceProp.name}), or null if the runtime will not say. */
    public String deviceName(int device) {
        NativeFunction f = getDeviceProperties2.exists() ? getDeviceProperties2 : getDeviceProperties;
        // cudaDeviceProp is about 1 KiB and grows with CUDA releases; its first field, char name[256], never moved.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment props = arena.allocate(8192, 8);
            if (call(f, props.address(), device) != SUCCESS) return null;
            return props.getString(0);
        } catch (CudaUnavailableException e) {
            return null;
        }
    }

    /** The device's PCI address ({@code 0000:1B:00.0}). */
    public String pciBusId(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(64);
            check(call(deviceGetPciBusId, text.address(), 64, device), "cudaDeviceGetPCIBusId(" + device + ")");
            return text.getString(0);
        }
    }

    /**
     * {@code cudaMemoryTypeDevice} and {@code cudaMemoryTypeManaged}: memory a kernel (and NCCL) reads on the device.
     */
    private static final int MEMORY_TYPE_DEVICE = 2;

    private static final int MEMORY_TYPE_MANAGED = 3;

    /**
     * Room for {@code struct cudaPointerAttributes}, which the runtime writes whole: 24 bytes in CUDA 11, 88 since
     * {@code long reserved[8]} was added (CUDA 12 and 13). A 24-byte buffer was enough for the fields read here but not
     * for what CUDA 13 writes: on an H200 the 64 bytes past it corrupted the native heap, and the JVM aborted later in
     * malloc ("invalid size"). Kept well above 88 for fields a later CUDA may add.
     */
    static final int POINTER_ATTRIBUTES_BYTES = 256;

    /**
     * The ordinal of the GPU whose memory {@code pointer} is (device or managed memory), or -1 for host memory, pinned
     * or not ({@code cudaPointerGetAttributes}: type, device, device pointer, host pointer, then reserved words).
     */
    public int deviceOf(long pointer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attributes = arena.allocate(POINTER_ATTRIBUTES_BYTES, 8);
            if (call(pointerGetAttributes, attributes.address(), pointer) != SUCCESS) {
                return -1;
            } // older CUDA: unregistered host memory
            int type = attributes.get(JAVA_INT, 0);
            return type == MEMORY_TYPE_DEVICE || type == MEMORY_TYPE_MANAGED ? attributes.get(JAVA_INT, 4) : -1;
        }
    }

    /** Allocates {@code bytes} on the calling thread's current device ({@code cudaMalloc}) and returns the address. */
    public long malloc(long bytes) {
        MemorySegment out = OUT.get();
        check(call(malloc, out.address(), bytes), "cudaMalloc(" + bytes + " bytes)");
        return out.get(JAVA_LONG, 0);
    }

    /** Frees device memory from {@link #malloc} ({@code cudaFree}). */
    public void free(long pointer) {
        check(call(free, pointer), "cudaFree");
    }

    /** Page-locked host memory, usable by every device ({@code cudaHostAllocPortable}). */
    public long hostAlloc(long bytes) {
        MemorySegment out = OUT.get();
        check(call(hostAlloc, out.address(), bytes, HOST_ALLOC_PORTABLE), "cudaHostAlloc(" + bytes + " bytes)");
        return out.get(JAVA_LONG, 0);
    }

    /** Frees page-locked host memory from {@link #hostAlloc} ({@code cudaFreeHost}). */
    public void freeHost(long pointer) {
        check(call(freeHost, pointer), "cudaFreeHost");
    }

    /** Synchronous copy; {@code kind} is a {@code cudaMemcpyKind}. */
    public void memcpy(long dst, long src, long bytes, int kind) {
        check(call(memcpy, dst, src, bytes, kind), "cudaMemcpy(" + bytes + " bytes, " + kindName(kind) + ")");
    }

    /**
     * Queues a copy of {@code bytes} bytes from {@code src} to {@code dst} on {@code stream} ({@code cudaMemcpyAsync})
     * without waiting for it; {@code kind} is a {@code cudaMemcpyKind}, and host memory must stay valid until the copy
     * has run.
     */
    public void memcpyAsync(long dst, long src, long bytes, int kind, long stream) {
        check(
                callAsync(memcpyAsync, dst, src, bytes, kind, stream),
                "cudaMemcpyAsync(" + bytes + " bytes, " + kindName(kind) + ")");
    }

    /**
     * Sets {@code bytes} bytes of device memory at {@code dst} to the low byte of {@code value} ({@code cudaMemset}).
     */
    public void memset(long dst, int value, long bytes) {
        check(call(memset, dst, value, bytes), "cudaMemset(" + bytes + " bytes)");
    }

    /** A stream that does not synchronise with the legacy default stream ({@code cudaStreamNonBlocking}). */
    public long streamCreate() {
        MemorySegment out = OUT.get();
        check(call(streamCreateWithFlags, out.address(), STREAM_NON_BLOCKING), "cudaStreamCreateWithFlags");
        return out.get(JAVA_LONG, 0);
    }

    /** Destroys a stream from {@link #streamCreate} ({@code cudaStreamDestroy}). */
    public void streamDestroy(long stream) {
        check(call(streamDestroy, stream), "cudaStreamDestroy");
    }

    /** True when the stream's work is done, false while it runs; throws if it failed. */
    public boolean streamQuery(long stream) {
        return isDone(call(streamQuery, stream), "cudaStreamQuery");
    }

    /**
     * Blocks the calling thread, with no deadline, until everything queued on {@code stream} has finished
     * ({@code cudaStreamSynchronize}); throws {@link CudaException} if some of it failed.
     */
    public void streamSynchronize(long stream) {
        check(call(streamSynchronize, stream), "cudaStreamSynchronize");
    }

    /** An event without timing ({@code cudaEventDisableTiming}), the cheapest kind to record and query. */
    public long eventCreate() {
        MemorySegment out = OUT.get();
        check(call(eventCreateWithFlags, out.address(), EVENT_DISABLE_TIMING), "cudaEventCreateWithFlags");
        return out.get(JAVA_LONG, 0);
    }

    /** Records {@code event} on {@code stream}, after the work queued so far ({@code cudaEventRecord}). */
    public void eventRecord(long event, long stream) {
        check(call(eventRecord, event, stream), "cudaEventRecord");
    }

    /** True when the work before the event is done, false while it runs; throws if it failed. */
    public boolean eventQuery(long event) {
        return isDone(call(eventQuery, event), "cudaEventQuery");
    }

    /** Destroys an event from {@link #eventCreate} ({@code cudaEventDestroy}). */
    public void eventDestroy(long event) {
        check(call(eventDestroy, event), "cudaEventDestroy");
    }

    /** {@code cudaErrorInvalidValue (invalid argument)}: CUDA's name and sentence for an error code. */
    public String describeError(int error) {
        String name = text(getErrorName, error);
        String sentence = text(getErrorString, error);
        return (name == null ? "cudaError " + error : name) + (sentence == null ? "" : " (" + sentence + ")");
    }

    private String text(NativeFunction f, int error) {
        try {
            return f.callForString(h -> (MemorySegment) h.invokeExact(error));
        } catch (CudaUnavailableException e) {
            return null;
        }
    }

    private void check(int rc, String call) {
        if (rc != SUCCESS) throw new CudaException(rc, call + " failed: " + describeError(rc));
    }

    /** A query's answer: done (true), still running (false, {@code cudaErrorNotReady}), or the failure it reports. */
    private boolean isDone(int rc, String call) {
        if (rc == ERROR_NOT_READY) return false;
        check(rc, call);
        return true;
    }

    static String kindName(int kind) {
        return switch (kind) {
            case HOST_TO_DEVICE -> "host to device";
            case DEVICE_TO_HOST -> "device to host";
            case DEVICE_TO_DEVICE -> "device to device";
            default -> "kind " + kind;
        };
    }

    // One invoker per shape, so that invokeExact sees exact types.
    private static int call(NativeFunction f, long a) {
        return f.call(h -> (int) h.invokeExact(a));
    }

    private static int call(NativeFunction f, int a) {
        return f.call(h -> (int) h.invokeExact(a));
    }

    private static int call(NativeFunction f, long a, long b) {
        return f.call(h -> (int) h.invokeExact(a, b));
    }

    private static int call(NativeFunction f, long a, int b) {
        return f.call(h -> (int) h.invokeExact(a, b));
    }

    private static int call(NativeFunction f, long a, long b, int c) {
        return f.call(h -> (int) h.invokeExact(a, b, c));
    }

    private static int call(NativeFunction f, long a, int b, long c) {
        return f.call(h -> (int) h.invokeExact(a, b, c));
    }

    private static int call(NativeFunction f, long a, int b, int c) {
        return f.call(h -> (int) h.invokeExact(a, b, c));
    }

    private static int call(NativeFunction f, long a, long b, long c, int d) {
        return f.call(h -> (int) h.invokeExact(a, b, c, d));
    }

    private static int callAsync(NativeFunction f, long a, long b, long c, int d, long e) {
        return f.call(h -> (int) h.invokeExact(a, b, c, d, e));
    }
}
