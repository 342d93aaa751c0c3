package dev.jccl;

import dev.jccl.bootstrap.LaunchEnvironment;
import dev.jccl.runtime.RuntimeCommunicator;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Entry point: makes communicators.
 *
 * <pre>{@code
 * UniqueId id = UniqueId.create();                 // on one process; pass id.toString() to all
 * try (Communicator c = Jccl.init(rank, size, id)) {
 *     c.allReduce(gradients, ReduceOp.SUM);
 * }
 * }</pre>
 */
public final class Jccl {
    private Jccl() {}

    /** Joins communicator {@code id} as {@code rank} of {@code size}, with {@link Config#fromEnvironment()}. */
    public static Communicator init(int rank, int size, UniqueId id) {
        return init(rank, size, id, Config.fromEnvironment());
    }

    /**
     * Joins communicator {@code id} as {@code rank} of {@code size}. Blocks until all {@code size} ranks have arrived,
     * or fails within {@link Config#timeout()} with a {@link BootstrapException} naming the ranks that did not.
     */
    public static Communicator init(int rank, int size, UniqueId id, Config config) {
        if (size < 1) throw new IllegalArgumentException("size must be at least 1, got " + size);
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is outside 0.." + (size - 1) + " for size " + size);
        }
        if (id == null) {
            throw new IllegalArgumentException("id is null; make one with UniqueId.create() and share its toString()");
        }
        if (config == null) throw new IllegalArgumentException("config is null; use Config.fromEnvironment()");
        return RuntimeCommunicator.create(rank, size, id, config);
    }

    /**
     * Joins the communicator a launcher describes in the environment: {@code jccl run}, Open MPI's {@code mpirun},
     * Slurm's {@code srun}, torchrun, or a Kubernetes indexed Job (see the README).
     */
    public static Communicator fromEnvironment() {
        return fromEnvironment(Config.fromEnvironment());
    }

    /** As {@link #fromEnvironment()}, with explicit settings. */
    public static Communicator fromEnvironment(Config config) {
        LaunchEnvironment.Launch launch = LaunchEnvironment.detect(System.getenv());
        return init(launch.rank(), launch.size(), launch.id(), config);
    }

    /** Jccl's version, e.g. {@code 0.1.0}. */
    public static String version() {
        try (InputStream in = Jccl.class.getResourceAsStream("version.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
