package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import java.lang.foreign.MemorySegment;

/** Host memory: the benchmark's buffers are the ones the communicator works on. */
public final class HostTarget implements PerfTarget {
    private final Communicator comm;

    public HostTarget(Communicator comm) {
        this.comm = comm;
    }

    @Override
    public void bind(MemorySegment hostSend, MemorySegment hostRecv) {}

    @Override
    public Communicator communicator() {
        return comm;
    }

    @Override
    public void toDevice(MemorySegment send, MemorySegment recv) {}

    @Override
    public void toHost(MemorySegment recv) {}

    @Override
    public String device() {
        return "cpu [host memory]";
    }

    @Override
    public String pathLine() {
        return null;
    }

    @Override
    public String transport(String hostTransport) {
        return hostTransport;
    }

    @Override
    public String algorithm(String hostAlgorithm) {
        return hostAlgorithm;
    }

    @Override
    public void unbind() {}

    @Override
    public void close() {}
}
