package dev.jccl.cuda;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.runtime.HostPath;
import dev.jccl.runtime.RuntimeCommunicator;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Gives a communicator a GPU: after {@link #attach} (or {@link #cuda}) its ordinary methods accept device buffers
 * ({@link DeviceBuffer#segment()}) as well as host ones, with the same checks, in one order with its host operations,
 * from any thread. Attaching is collective (every rank calls it together) and picks one of two paths, the same on every
 * rank:
 *
 * <ul>
 *   <li>{@link DevicePath#NCCL}: NCCL itself, found at run time (libnccl.so.2, or the file {@code JCCL_NCCL_LIB}
 *       names), when every rank can load it and each rank has its own GPU. The NCCL communicator is set up through
 *       Jccl's bootstrap; Jccl's deadlines and error messages apply.
 *   <li>{@link DevicePath#STAGED}: otherwise, or when {@code JCCL_CUDA_PATH=staged}. Chunks are copied to pinned host
 *       memory, combined on the host path, and copied back, pipelined so copies in both directions overlap the network
 *       ({@link StagedCollectives}).
 * </ul>
 *
 * <h2>Streams and memory</h2>
 *
 * Device buffers must hold their data when the call is made (synchronize the stream that wrote them first), and hold
 * the result once the call returns or its future completes. They are the caller's: nothing here frees them. A failure
 * on the device (a CUDA error, a lost peer, a deadline) fails the communicator as a host failure does; later calls are
 * refused.
 *
 * <p>The device side closes with the communicator, or before it with {@link #close} (which waits for queued device
 * operations): the communicator then goes on with host buffers and refuses device ones.
 */
public final class CudaSupport implements AutoCloseable {
    /**
     * Settings.
     *
     * @param path what to use ({@code JCCL_CUDA_PATH}: auto, staged or nccl)
     * @param chunkBytes staging slot size (default {@code JCCL_BUFFSIZE}); every rank must use the same
     * @param slots staging slots in flight, at least 2 (default 4)
     * @param listener told of every staged chunk's phases (tests, tracing)
     * @param environment where {@code JCCL_NCCL_LIB} is read
     */
    public record Options(
            DevicePath.Request path,
            long chunkBytes,
            int slots,
            StagingListener listener,
            Map<String, String> environment) {
        /** Staging slots in flight in {@link #fromEnvironment}'s settings. */
        public static final int DEFAULT_SLOTS = 4;

        /**
         * Checks the settings and copies {@code environment}: throws {@link NullPointerException} for a null path,
         * listener or environment, and {@link IllegalArgumentException} for chunks under 16 bytes or fewer than 2
         * slots.
         */
        public Options {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(listener, "listener");
            environment = Map.copyOf(environment);
            if (chunkBytes < 16) {
                throw new IllegalArgumentException("staging chunk must be at least 16 bytes, got " + chunkBytes);
            }
            if (slots < 2) throw new IllegalArgumentException("staging needs at least 2 slots, got " + slots);
        }

        /** From {@code JCCL_CUDA_PATH} in {@code env}, and {@code JCCL_BUFFSIZE} through {@code config}. */
        public static Options fromEnvironment(Map<String, String> env, Config config) {
            return new Options(
                    DevicePath.Request.parse(env.get(DevicePath.VARIABLE)),
                    config.buffSize(),
                    DEFAULT_SLOTS,
                    StagingListener.NONE,
                    env);
        }

        /** These settings with the path {@code p} instead. */
        public Options withPath(DevicePath.Request p) {
            return new Options(p, chunkBytes, slots, listener, environment);
        }

        /** These settings with staging slots of {@code bytes} bytes (at least 16, the same on every rank) instead. */
        public Options withChunkBytes(long bytes) {
            return new Options(path, bytes, slots, listener, environment);
        }

        /** These settings with {@code n} staging slots in flight (at least 2) instead. */
        public Options withSlots(int n) {
            return new Options(path, chunkBytes, n, listener, environment);
        }

        /** These settings with {@code l} told of every staged chunk's phases instead (not null). */
        public Options withListener(StagingListener l) {
            return new Options(path, chunkBytes, slots, l, environment);
        }
    }

    private final RuntimeCommunicator communicator;
    private final DeviceMemory memory;
    private final DevicePath path;
    private final CudaExecutor executor;

    private CudaSupport(RuntimeCommunicator communicator, DeviceMemory memory, DevicePath path, CudaExecutor executor) {
        this.communicator = communicator;
        this.memory = memory;
        this.path = path;
        this.executor = executor;
    }

    /** {@link #attach(Communicator, DeviceMemory, Options)} with settings from the process environment. */
    public static CudaSupport attach(Communicator comm, DeviceMemory memory) {
        return attach(comm, memory, Options.fromEnvironment(System.getenv(), comm.config()));
    }

    /**
     * Collective: every rank of {@code comm} calls it, each with the memory of its own device (or a device it shares).
     * Chooses the path (see the class comment), sets NCCL up where it is chosen, and fails on every rank alike when
     * {@code JCCL_CUDA_PATH=nccl} cannot be honoured. The device side closes with {@code comm}; {@code memory} stays
     * the caller's.
     */
    public static CudaSupport attach(Communicator comm, DeviceMemory memory, Options options) {
        return attach(comm, memory, false, options, realNccl(memory, options));
    }

    /** Opens CUDA device {@code device} ({@link CudaDeviceMemory}, closed with {@code comm}) and attaches it. */
    public static CudaSupport cuda(Communicator comm, int device) {
        CudaDeviceMemory memory = CudaDeviceMemory.open(device);
        try {
            Options options = Options.fromEnvironment(System.getenv(), comm.config());
            return attach(comm, memory, true, options, realNccl(memory, options));
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }

    /**
     * As {@link #attach(Communicator, DeviceMemory, Options)}, with the NCCL library given (tests put a stand-in here).
     */
    static CudaSupport attach(
            Communicator comm, DeviceMemory memory, boolean ownsMemory, Options options, Supplier<NcclApi> loadNccl) {
        return attach(comm, memory, ownsMemory, options, loadNccl, UnaryOperator.identity());
    }

    /** As above, with the staged pipeline's host path wrapped by {@code hostPaths} (tests slow it down). */
    static CudaSupport attach(
            Communicator comm,
            DeviceMemory memory,
            boolean ownsMemory,
            Options options,
            Supplier<NcclApi> loadNccl,
            UnaryOperator<HostPath> hostPaths) {
        if (!(comm instanceof RuntimeCommunicator runtime)) {
            throw new IllegalArgumentException(
                    "device memory can be attached to a communicator made by Jccl.init or split, not to a "
                            + comm.getClass().getName());
        }
        PathSelection.Choice choice = PathSelection.choose(comm, memory, options.path(), loadNccl);
        CudaExecutor executor;
        if (choice.path() == DevicePath.NCCL) {
            memory.bindThread();
            NcclCommunicator nccl = NcclCommunicator.create(
                    choice.nccl(), comm, memory, comm.config().timeout());
            executor = new NcclExecutor(
                    memory, ownsMemory, comm.rank(), nccl, comm.config().timeout());
        } else {
            executor = new StagedExecutor(
                    memory,
                    ownsMemory,
                    comm.rank(),
                    comm.size(),
                    options,
                    comm.config().timeout(),
                    choice.reason(),
                    hostPaths);
        }
        try {
            runtime.attach(executor);
        } catch (RuntimeException e) {
            executor.close();
            throw e;
        }
        return new CudaSupport(runtime, memory, choice.path(), executor);
    }

    /** The real NCCL, for real GPU memory only: NCCL cannot reach a stand-in's host memory. */
    private static Supplier<NcclApi> realNccl(DeviceMemory memory, Options options) {
        return () -> {
            if (!memory.isCuda()) {
                throw new NcclUnavailableException(memory.describe() + " is not CUDA memory, and NCCL needs a GPU");
            }
            return NcclLibrary.load(options.environment());
        };
    }

    /** The communicator, which now accepts this device's buffers. */
    public Communicator communicator() {
        return communicator;
    }

    /** The device ordinal this rank works on. */
    public int device() {
        return memory.device();
    }

    /**
     * The device memory attached: the caller's, from {@link #attach}, or the one {@link #cuda} opened, which closes
     * with this.
     */
    public DeviceMemory memory() {
        return memory;
    }

    /** The path the ranks agreed on when attaching, the same on every rank; {@link #describePath} says why. */
    public DevicePath path() {
        return path;
    }

    /**
     * The path and why, in one line: {@code nccl: NCCL 2.21.5 (libnccl.so.2), a GPU per rank} or {@code staged through
     * pinned host memory (4 slots of 4 MiB); NCCL not used: <reason>}.
     */
    public String describePath() {
        return executor.describe();
    }

    /**
     * Waits for the device operations called so far (each within its deadline), then releases streams, staging memory
     * and the NCCL communicator; closes the device memory if {@link #cuda} opened it. The communicator stays open for
     * host buffers.
     */
    @Override
    public void close() {
        communicator.awaitStarted();
        executor.close();
    }

    static String bytes(long b) {
        if (b >= (1 << 20) && b % (1 << 20) == 0) return (b >> 20) + " MiB";
        if (b >= 1024 && b % 1024 == 0) return (b >> 10) + " KiB";
        return b + " B";
    }
}
