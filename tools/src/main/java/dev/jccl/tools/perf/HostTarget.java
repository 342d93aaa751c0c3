package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/** Host memory: the benchmark's buffers are the ones the communicator works on. */
public final class HostTarget implements PerfTarget {
    private final Communicator comm;

    public HostTarget(Communicator comm) {
        this.comm = comm;
    }

    @Override
    public void bind(MemorySegment hostSend, MemorySegment hostRecv) {}

    @Override
    public void run(
            PerfCollective c,
            MemorySegment send,
            MemorySegment recv,
            long count,
            DataType type,
            ReduceOp op,
            int root) {
        c.run(comm, send, recv, count, type, op, root);
    }

    @Override
    public CompletableFuture<Void> start(
            PerfCollective c,
            MemorySegment send,
            MemorySegment recv,
            long count,
            DataType type,
            ReduceOp op,
            int root) {
        return c.start(comm, send, recv, count, type, op, root);
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
