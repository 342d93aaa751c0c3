package dev.jccl.cuda;

import dev.jccl.runtime.HostPath;
import dev.jccl.runtime.Operation;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * Runs device operations through pinned host memory ({@link StagedCollectives}): on the thread holding the turn, to the
 * end, with each chunk's host collective on the communicator's host path. Works with any GPU and any number of ranks
 * per GPU.
 */
final class StagedExecutor extends CudaExecutor {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final StagedCollectives staged;
    private final String reason;
    /** The host path as the pipeline sees it: itself, or what a test puts around it (a slow network). */
    private final UnaryOperator<HostPath> hostPaths;
    /** Whether an operation is running: the slots are not freed under it. */
    private volatile boolean running;

    StagedExecutor(
            DeviceMemory memory,
            boolean ownsMemory,
            int rank,
            int size,
            CudaSupport.Options options,
            Duration timeout,
            String reason,
            UnaryOperator<HostPath> hostPaths) {
        super(memory, ownsMemory, rank);
        this.hostPaths = hostPaths;
        this.staged =
                new StagedCollectives(size, memory, options.chunkBytes(), options.slots(), timeout, options.listener());
        this.reason = reason;
    }

    @Override
    public CompletableFuture<Void> start(Operation op, String label, HostPath host) {
        running = true;
        try {
            if (closed) throw new IllegalStateException("rank " + rank + ": " + label + " on a closed device executor");
            memory.bindThread();
            staged.run(
                    StagedOp.of(op, memory.device(), host.rank(), host.size(), staged.slotBytes()),
                    label,
                    hostPaths.apply(host));
            return DONE;
        } finally {
            running = false;
        }
    }

    @Override
    public String describe() {
        return "staged through pinned host memory (" + staged.slotCount() + " slots of "
                + CudaSupport.bytes(staged.slotBytes()) + "); NCCL not used: " + reason;
    }

    @Override
    public void abort() {
        // The pipeline sees the host communicator fail and settles its copies itself.
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        // An operation still running (past its deadline) keeps its slots: freeing them under its copies would corrupt
        // memory.
        if (running) return;
        try {
            staged.close();
        } finally {
            releaseMemory();
        }
    }
}
