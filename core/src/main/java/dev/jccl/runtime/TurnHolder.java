package dev.jccl.runtime;

import java.util.concurrent.CompletableFuture;

/** The {@link HostPath} a device operation sees while it holds the turn: host operations run at once, on its thread. */
record TurnHolder(int rank, int size, OperationChecks checks, HostExecutor host) implements HostPath {
    @Override
    public CompletableFuture<Void> run(Operation op) {
        if (op.kind() != MemoryKind.HOST) {
            throw new IllegalArgumentException("the host path runs operations on host memory only, got " + op.kind());
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        host.runInto(done, op, host.choose(op));
        return done;
    }
}
