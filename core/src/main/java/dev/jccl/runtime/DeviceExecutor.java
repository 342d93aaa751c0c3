package dev.jccl.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * Runs a communicator's operations on device (GPU) memory, in the same order as its host operations. Attached to a
 * communicator with {@link RuntimeCommunicator#attach}, after which the communicator's ordinary methods accept segments
 * of device addresses: the checks of {@link OperationChecks} apply, this executor classifies each buffer
 * ({@link #kindOf}), and the {@link Sequencer} gives device operations their turn like any other.
 */
public interface DeviceExecutor extends OperationChecks.MemoryKinds {
    /**
     * Starts {@code op}, whose turn it is, on the calling thread. Returns once the next operation may start; the future
     * completes when {@code op}'s result is in place. An executor that queues work on the device (NCCL) returns once it
     * is queued; one that runs it through host memory (staged) runs it to the end and returns a completed future.
     *
     * @param label names the operation in errors and traces ({@code AllReduce #7})
     * @param host the host path, for operations on host memory run within {@code op}'s turn
     */
    CompletableFuture<Void> start(Operation op, String label, HostPath host);

    /** Refuses, before it is sequenced, an operation this executor cannot run (a type the NCCL found does not have). */
    default void check(Operation op, ArgumentChecks check) {}

    /** One line for logs and tools: the device and how its operations run. */
    String describe();

    /** Fails what is pending at once (the communicator is being aborted). Any thread. */
    void abort();

    /** Waits for what is queued (each within its deadline) and releases the executor's resources. */
    void close();
}
