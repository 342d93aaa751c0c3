package dev.jccl.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * The host side of a communicator as a {@link DeviceExecutor} sees it while one of its operations holds the turn:
 * operations on host memory run at once, on the calling thread, numbered after those before them, so that a device
 * operation staged through host memory runs its chunks as one unit in the communicator's order, whatever other threads
 * call meanwhile. A device operation that fails fails the communicator (which tells its peers), as a host operation
 * does.
 */
public interface HostPath {
    int rank();

    int size();

    /** Builds and checks host operations (on the staging buffers). */
    OperationChecks checks();

    /** Runs a host operation now, within the current turn; the future is already complete (or failed) when returned. */
    CompletableFuture<Void> run(Operation op);
}
