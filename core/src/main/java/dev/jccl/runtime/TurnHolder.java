package dev.jccl.runtime;

import java.util.concurrent.CompletableFuture;

/** The {@link HostPath} a device operation sees while it holds the turn: host operations run at once, on its thread. */
final class TurnHolder implements HostPath {
    private final int rank;
    private final int size;
    private final OperationChecks checks;
    private final HostExecutor host;

    TurnHolder(int rank, int size, OperationChecks checks, HostExecutor host) {
        this.rank = rank;
        this.size = size;
        this.checks = checks;
        this.host = host;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public OperationChecks checks() {
        return checks;
    }

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
