package dev.jccl.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link DeviceMemory} without a GPU, for tests and for trying the device path anywhere: "device" memory is native
 * host memory, and each stream is a thread that performs its copies one after another, asynchronously to the caller, as
 * a CUDA stream does. Copies can be slowed down (to make copy and network time comparable and show the overlap),
 * traced, and made to fail (to show that a failed copy surfaces as an error and never as a hang).
 *
 * <p>Like CUDA, a copy that touches memory outside the allocations made here is refused at once
 * ({@code cudaErrorInvalidValue}), which turns an offset mistake in the code above into a test failure rather than
 * silent corruption. An injected failure is asynchronous and sticky, as CUDA's are: the stream's later work does not
 * run and every later event on it reports the error.
 */
public final class StandInDeviceMemory implements DeviceMemory {
    /** Which way a copy went. */
    public enum Direction {
        /** From device memory into host memory ({@link DeviceStream#copyToHost}). */
        DEVICE_TO_HOST,
        /** From host memory into device memory ({@link DeviceStream#copyToDevice}). */
        HOST_TO_DEVICE,
        /** Between two device buffers ({@link DeviceStream#copyOnDevice}). */
        DEVICE_TO_DEVICE
    }

    /**
     * Told of every copy a stream performed, with its start and end ({@link System#nanoTime}); called on the stream's
     * thread.
     */
    @FunctionalInterface
    public interface CopyListener {
        /**
         * Called after {@code bytes} bytes were copied on the stream with handle {@code stream}; not called for
         * zero-byte copies, the injected failure, or copies skipped after it.
         */
        void copied(long stream, Direction direction, long bytes, long startNanos, long endNanos);
    }

    /** CUDA's error for an access outside any allocation, used for injected failures. */
    static final int ILLEGAL_ADDRESS = 700;

    private static final AtomicLong NEXT_HANDLE = new AtomicLong(0x5000);
    private static final Map<Long, Stream> STREAMS = new ConcurrentHashMap<>();

    private final int device;
    private final String key;
    private final long copyDelayNanos;
    private final CopyListener listener;
    private final int failingCopy;
    private final AtomicInteger copies = new AtomicInteger();
    private final NavigableMap<Long, Allocation> allocations = new ConcurrentSkipListMap<>();
    /**
     * Every live stand-in's device allocations by start address, so that {@link #deviceOf} knows other devices' memory,
     * as CUDA does.
     */
    private static final NavigableMap<Long, StandInDeviceMemory> DEVICE_MEMORY_OWNERS = new ConcurrentSkipListMap<>();

    private final List<Stream> streams = new ArrayList<>();
    private volatile boolean closed;

    private record Allocation(Arena arena, MemorySegment segment, boolean pinned) {}

    private StandInDeviceMemory(Builder b) {
        this.device = b.device;
        this.key = b.key != null
                ? b.key
                : "stand-in@" + Integer.toHexString(System.identityHashCode(this)) + "/cuda:" + b.device;
        this.copyDelayNanos = b.copyDelay.toNanos();
        this.listener = b.listener;
        this.failingCopy = b.failingCopy;
    }

    /** A stand-in for device {@code device}: instant copies, no failures. */
    public static StandInDeviceMemory create(int device) {
        return builder().device(device).build();
    }

    /** Settings to build a stand-in from: device 0, instant copies, no listener and no failure unless changed. */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a stand-in. */
    public static final class Builder {
        private int device;
        private String key;
        private Duration copyDelay = Duration.ZERO;
        private CopyListener listener;
        private int failingCopy = -1;

        private Builder() {}

        /** The ordinal it pretends to be ({@code cuda:device}). */
        public Builder device(int device) {
            if (device < 0) throw new IllegalArgumentException("device ordinal must be >= 0, got " + device);
            this.device = device;
            return this;
        }

        /**
         * The physical-device identity ({@link DeviceMemory#deviceKey}); equal keys on two ranks mean "one shared GPU".
         */
        public Builder deviceKey(String key) {
            this.key = key;
            return this;
        }

        /** Every copy takes at least this long on its stream. */
        public Builder copyDelay(Duration delay) {
            if (delay.isNegative()) throw new IllegalArgumentException("copy delay must not be negative");
            this.copyDelay = delay;
            return this;
        }

        /** Told of every copy this stand-in's streams perform, on the stream's thread; null (the default) for none. */
        public Builder listener(CopyListener listener) {
            this.listener = listener;
            return this;
        }

        /** The copy with this index (0 = the first one issued on any stream of this instance) fails asynchronously. */
        public Builder failCopy(int index) {
            this.failingCopy = index;
            return this;
        }

        /** A new stand-in with these settings. */
        public StandInDeviceMemory build() {
            return new StandInDeviceMemory(this);
        }
    }

    @Override
    public int device() {
        return device;
    }

    @Override
    public String describe() {
        return "cuda:" + device + " stand-in (host memory, a thread per stream"
                + (copyDelayNanos > 0 ? ", copies delayed " + copyDelayNanos / 1000 + " µs" : "") + ")";
    }

    @Override
    public String deviceKey() {
        return key;
    }

    @Override
    public boolean isCuda() {
        return false;
    }

    @Override
    public void bindThread() {
        // one host, no per-thread device
    }

    /** Copies issued so far, on every stream. */
    public int copiesIssued() {
        return copies.get();
    }

    @Override
    public DeviceBuffer allocate(long bytes) {
        if (bytes == 0) return new DeviceBuffer(0, 0, device);
        MemorySegment s = register(bytes, false);
        return new DeviceBuffer(s.address(), bytes, device);
    }

    @Override
    public int deviceOf(long address) {
        var owner = DEVICE_MEMORY_OWNERS.floorEntry(address);
        if (owner == null) return -1;
        Allocation a = owner.getValue().allocations.get(owner.getKey());
        return a != null
                        && !a.pinned()
                        && address - owner.getKey() < a.segment().byteSize()
                ? owner.getValue().device
                : -1;
    }

    @Override
    public void free(DeviceBuffer buffer) {
        if (buffer.address() == 0) return;
        release(buffer.address(), false);
    }

    @Override
    public MemorySegment allocatePinned(long bytes) {
        return register(bytes, true);
    }

    @Override
    public void freePinned(MemorySegment pinned) {
        release(pinned.address(), true);
    }

    private MemorySegment register(long bytes, boolean pinned) {
        if (closed) throw new IllegalStateException(describe() + " is closed");
        Arena arena = Arena.ofShared();
        MemorySegment s = arena.allocate(Math.max(1, bytes), 64);
        allocations.put(s.address(), new Allocation(arena, s, pinned));
        if (!pinned) DEVICE_MEMORY_OWNERS.put(s.address(), this);
        return s.asSlice(0, bytes);
    }

    private void release(long address, boolean pinned) {
        Allocation a = allocations.get(address);
        if (a == null || a.pinned() != pinned) {
            throw new IllegalArgumentException("0x" + Long.toHexString(address) + " was not allocated by this stand-in "
                    + (pinned ? "with allocatePinned" : "with allocate") + ", or was freed already");
        }
        allocations.remove(address);
        DEVICE_MEMORY_OWNERS.remove(address, this);
        a.arena().close();
    }

    /** The device memory a buffer names, or a CudaException as CUDA would give for memory it does not know. */
    MemorySegment resolve(DeviceBuffer b, String call) {
        if (b.device() != device) {
            throw new CudaException(
                    CudaRuntime.ERROR_INVALID_VALUE,
                    call + " failed: cudaErrorInvalidValue (stand-in: invalid argument): " + b + " is not on cuda:"
                            + device);
        }
        if (b.byteSize() == 0) return MemorySegment.NULL;
        var e = allocations.floorEntry(b.address());
        if (e == null
                || e.getValue().pinned()
                || b.address() - e.getKey() + b.byteSize()
                        > e.getValue().segment().byteSize()) {
            throw new CudaException(
                    CudaRuntime.ERROR_INVALID_VALUE,
                    call + " failed: cudaErrorInvalidValue (stand-in: invalid argument): " + b
                            + " is not inside one device allocation");
        }
        return e.getValue().segment().asSlice(b.address() - e.getKey(), b.byteSize());
    }

    @Override
    public DeviceStream createStream() {
        if (closed) throw new IllegalStateException(describe() + " is closed");
        Stream s = new Stream(NEXT_HANDLE.getAndIncrement());
        synchronized (streams) {
            streams.add(s);
        }
        return s;
    }

    /**
     * The stream with this handle, for stand-ins of libraries that take a {@code cudaStream_t} (a fake NCCL in tests).
     */
    static Stream stream(long handle) {
        Stream s = STREAMS.get(handle);
        if (s == null) throw new IllegalArgumentException("no stand-in stream 0x" + Long.toHexString(handle));
        return s;
    }

    @Override
    public void upload(MemorySegment src, DeviceBuffer dst) {
        MemorySegment d = resolve(dst, "cudaMemcpy");
        if (dst.byteSize() > 0) d.copyFrom(src.asSlice(0, dst.byteSize()));
    }

    @Override
    public void download(DeviceBuffer src, MemorySegment dst) {
        MemorySegment s = resolve(src, "cudaMemcpy");
        if (src.byteSize() > 0) dst.asSlice(0, src.byteSize()).copyFrom(s);
    }

    @Override
    public void fill(DeviceBuffer dst, byte value) {
        MemorySegment d = resolve(dst, "cudaMemset");
        if (dst.byteSize() > 0) d.fill(value);
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        List<Stream> open;
        synchronized (streams) {
            open = new ArrayList<>(streams);
        }
        for (Stream s : open) s.close();
        for (var e : allocations.entrySet()) {
            DEVICE_MEMORY_OWNERS.remove(e.getKey(), this);
            e.getValue().arena().close();
        }
        allocations.clear();
    }

    @Override
    public String toString() {
        return describe();
    }

    /** A stream: one thread, running its queue in order. */
    final class Stream implements DeviceStream {
        private final long handle;
        private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        private final Thread worker;
        private final AtomicInteger pending = new AtomicInteger();
        /** Set by the first failed task; later tasks are skipped and later events fail with it. */
        private volatile CudaException failure;

        private volatile boolean closed;

        Stream(long handle) {
            this.handle = handle;
            STREAMS.put(handle, this);
            worker = Thread.ofPlatform()
                    .daemon()
                    .name("jccl-standin-stream-" + Long.toHexString(handle))
                    .start(this::run);
        }

        private void run() {
            while (true) {
                Runnable task;
                try {
                    task = queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                if (task == POISON) return;
                task.run();
            }
        }

        @Override
        public long handle() {
            return handle;
        }

        /**
         * Runs {@code work} on the stream's thread after everything queued before it (skipped once the stream failed).
         */
        void submit(Runnable work) {
            if (closed) throw new IllegalStateException("stand-in stream 0x" + Long.toHexString(handle) + " is closed");
            pending.incrementAndGet();
            queue.add(() -> {
                try {
                    if (failure == null) work.run();
                } catch (CudaException e) {
                    failure = e;
                } catch (RuntimeException e) {
                    failure = new CudaException(ILLEGAL_ADDRESS, "stand-in stream work failed: " + e, e);
                } finally {
                    pending.decrementAndGet();
                }
            });
        }

        private void copy(Direction direction, String call, MemorySegment from, MemorySegment to, long bytes) {
            if (bytes == 0) return;
            int index = copies.getAndIncrement();
            boolean fail = index == failingCopy;
            submit(() -> {
                long start = System.nanoTime();
                if (fail) {
                    throw new CudaException(
                            ILLEGAL_ADDRESS,
                            call + " failed: cudaErrorIllegalAddress (stand-in: the copy failed)"
                                    + " [stand-in: failure injected into copy #" + index + ", " + bytes + " bytes "
                                    + direction + "]");
                }
                MemorySegment.copy(from, 0, to, 0, bytes);
                if (copyDelayNanos > 0) {
                    long until = start + copyDelayNanos;
                    for (long left; (left = until - System.nanoTime()) > 0; ) LockSupport.parkNanos(left);
                }
                if (listener != null) listener.copied(handle, direction, bytes, start, System.nanoTime());
            });
        }

        @Override
        public void copyToHost(DeviceBuffer src, MemorySegment dst) {
            MemorySegment s = resolve(src, "cudaMemcpyAsync");
            checkHost(dst, src.byteSize());
            copy(Direction.DEVICE_TO_HOST, "cudaMemcpyAsync", s, dst, src.byteSize());
        }

        @Override
        public void copyToDevice(MemorySegment src, DeviceBuffer dst) {
            MemorySegment d = resolve(dst, "cudaMemcpyAsync");
            checkHost(src, dst.byteSize());
            copy(Direction.HOST_TO_DEVICE, "cudaMemcpyAsync", src, d, dst.byteSize());
        }

        @Override
        public void copyOnDevice(DeviceBuffer src, DeviceBuffer dst) {
            MemorySegment s = resolve(src, "cudaMemcpyAsync");
            MemorySegment d = resolve(dst, "cudaMemcpyAsync");
            if (dst.byteSize() < src.byteSize()) throw new IllegalArgumentException(dst + " is smaller than " + src);
            copy(Direction.DEVICE_TO_DEVICE, "cudaMemcpyAsync", s, d, src.byteSize());
        }

        @Override
        public DeviceEvent record() {
            if (closed) throw new IllegalStateException("stand-in stream 0x" + Long.toHexString(handle) + " is closed");
            Event e = new Event();
            pending.incrementAndGet();
            queue.add(() -> {
                CudaException f = failure;
                if (f != null) e.failed = f;
                else e.done = true;
                pending.decrementAndGet();
            });
            return e;
        }

        @Override
        public boolean isIdle() {
            CudaException f = failure;
            if (f != null) throw new CudaException(f.error(), f.getMessage(), f);
            return pending.get() == 0;
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            queue.add(POISON);
            STREAMS.remove(handle);
            synchronized (streams) {
                streams.remove(this);
            }
        }
    }

    private static final Runnable POISON = () -> {};

    private static void checkHost(MemorySegment s, long bytes) {
        Objects.requireNonNull(s, "host buffer");
        if (s.byteSize() < bytes) {
            throw new IllegalArgumentException(
                    "host buffer of " + s.byteSize() + " bytes is smaller than the " + bytes + " to copy");
        }
    }

    private static final class Event implements DeviceEvent {
        volatile boolean done;
        volatile CudaException failed;

        @Override
        public boolean isComplete() {
            CudaException f = failed;
            if (f != null) throw new CudaException(f.error(), f.getMessage(), f);
            return done;
        }

        @Override
        public void close() {}
    }
}
