package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import dev.jccl.cuda.CudaSupport;
import dev.jccl.cuda.DeviceBuffer;
import dev.jccl.cuda.DeviceMemory;
import dev.jccl.cuda.DevicePath;
import java.lang.foreign.MemorySegment;

/**
 * {@code jccl perf --device cuda}: the operations run on device buffers through a communicator with the GPU attached
 * ({@link CudaSupport}: NCCL or staged, whichever it chose), and the checks' data crosses between the host buffers and
 * their device mirrors outside the timed loops.
 */
public final class DeviceTarget implements PerfTarget {
    private final CudaSupport gpu;
    private final Communicator comm;
    private final DeviceMemory memory;
    private final boolean owns;
    private MemorySegment hostSend;
    private MemorySegment hostRecv;
    private DeviceBuffer deviceSend;
    private DeviceBuffer deviceRecv;

    /** @param owns whether {@link #close} closes the device side and the memory (perf made them) */
    public DeviceTarget(CudaSupport gpu, boolean owns) {
        this.gpu = gpu;
        this.comm = gpu.communicator();
        this.memory = gpu.memory();
        this.owns = owns;
    }

    @Override
    public void bind(MemorySegment send, MemorySegment recv) {
        hostSend = send;
        hostRecv = recv;
        deviceSend = memory.allocate(send.byteSize());
        deviceRecv = memory.allocate(recv.byteSize());
        memory.fill(deviceSend, (byte) 0);
        memory.fill(deviceRecv, (byte) 0);
    }

    /** A device range as the communicator takes it. */
    private static MemorySegment segment(DeviceBuffer b) {
        return b == null ? null : b.segment();
    }

    /** The device range a host slice stands for. */
    private DeviceBuffer mirror(MemorySegment slice) {
        if (slice == null) return null;
        long s = slice.address() - hostSend.address();
        if (s >= 0 && s + slice.byteSize() <= hostSend.byteSize()) return deviceSend.slice(s, slice.byteSize());
        long r = slice.address() - hostRecv.address();
        if (r >= 0 && r + slice.byteSize() <= hostRecv.byteSize()) return deviceRecv.slice(r, slice.byteSize());
        throw new IllegalArgumentException("perf passed memory that is not a slice of its send or receive buffer");
    }

    @Override
    public Communicator communicator() {
        return comm;
    }

    @Override
    public MemorySegment operand(MemorySegment hostSlice) {
        return segment(mirror(hostSlice));
    }

    @Override
    public void toDevice(MemorySegment send, MemorySegment recv) {
        // In place the send slice lies inside the receive slice: both are views of one host buffer, so either order
        // leaves the same bytes.
        memory.upload(send, mirror(send));
        memory.upload(recv, mirror(recv));
    }

    @Override
    public void toHost(MemorySegment recv) {
        memory.download(mirror(recv), recv);
    }

    @Override
    public String device() {
        return memory.describe() + " " + (gpu.path() == DevicePath.NCCL ? "nccl" : "staged");
    }

    @Override
    public String pathLine() {
        return "Device buffers: " + gpu.describePath();
    }

    @Override
    public String transport(String hostTransport) {
        return gpu.path() == DevicePath.NCCL ? "nccl" : "staged+" + hostTransport;
    }

    @Override
    public String algorithm(String hostAlgorithm) {
        return gpu.path() == DevicePath.NCCL ? "NCCL" : hostAlgorithm;
    }

    @Override
    public void unbind() {
        if (deviceSend != null) memory.free(deviceSend);
        if (deviceRecv != null) memory.free(deviceRecv);
        deviceSend = null;
        deviceRecv = null;
    }

    @Override
    public void close() {
        if (!owns) return;
        try {
            gpu.close();
        } finally {
            memory.close();
        }
    }
}
