package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.UniqueId;

/** Placeholder while the runtime is written. */
public final class RuntimeCommunicator {
    public static Communicator create(int rank, int size, UniqueId id, Config config) {
        throw new UnsupportedOperationException("runtime not yet built");
    }
}
