package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import java.lang.foreign.MemorySegment;

/**
 * Where {@code jccl perf}'s buffers live and what runs the operations on them: host memory and the communicator
 * ({@link HostTarget}, the default), or device memory and a device communicator ({@link DeviceTarget}, {@code --device
 * cuda}).
 *
 * <p>The benchmark always works on two host buffers (send and receive, each as large as the sweep's largest row), where
 * the checks write inputs and read results. A target mirrors them: it maps every slice of a host buffer to the same
 * range of its own buffer, so the benchmark works with host slices and the operations run on what they stand for
 * ({@link #operand}). {@link #toDevice} and {@link #toHost} move the checked data across; the host target needs
 * neither.
 */
public interface PerfTarget extends AutoCloseable {
    /** Called once the host buffers exist, before any operation: make the mirrors. */
    void bind(MemorySegment hostSend, MemorySegment hostRecv);

    /** The communicator that runs the operations. */
    Communicator communicator();

    /**
     * What an operation takes in place of a host slice (null stays null): its mirror. Host memory needs no mirror, so
     * by default the slice itself.
     */
    default MemorySegment operand(MemorySegment hostSlice) {
        return hostSlice;
    }

    /** After the checks wrote inputs into the host slices: copy them (send, then the receive region) to the mirrors. */
    void toDevice(MemorySegment send, MemorySegment recv);

    /** Before the checks read a result: copy the receive slice's mirror back to it. */
    void toHost(MemorySegment recv);

    /**
     * This rank's memory for the table's device lines: {@code cpu [host memory]}, {@code cuda:0 [0000:1B:00.0] NVIDIA
     * H100 …}.
     */
    String device();

    /** One header line on how device buffers move (path and why), or null for host memory. */
    String pathLine();

    /** The transport column of the report, given the host communicator's. */
    String transport(String hostTransport);

    /** The algorithm the report names, given the host planner's; null to keep the host planner's per-size list. */
    String algorithm(String hostAlgorithm);

    /** Frees the mirrors (after the last operation). */
    void unbind();

    /** Releases what the target owns (a device communicator and its memory). */
    @Override
    void close();
}
