package dev.jccl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs N ranks as threads of this JVM, each with its own communicator over loopback. */
public final class TestRanks {
    @FunctionalInterface
    public interface RankBody<T> {
        T run(int rank, Communicator comm) throws Exception;
    }

    private TestRanks() {}

    /** The ways ranks of one host can be connected: shared memory (the default), or TCP over loopback. */
    public enum Link {
        SHM,
        TCP;

        public Config config(Duration timeout) {
            return Config.builder()
                    .socketIfname("lo")
                    .timeout(timeout)
                    .shmDisable(this == TCP)
                    .build();
        }
    }

    /** Loopback settings with shared memory between the ranks (the default for ranks of one host). */
    public static Config loopback(Duration timeout) {
        return Link.SHM.config(timeout);
    }

    /** Starts N ranks, runs {@code body} on each, and returns each rank's result or throwable. */
    public static <T> List<Object> run(int n, Config config, RankBody<T> body) throws Exception {
        UniqueId id = UniqueId.create(config);
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                futures.add(pool.submit(() -> {
                    try (Communicator c = Jccl.init(rank, n, id, config)) {
                        return (Object) body.run(rank, c);
                    } catch (Throwable t) {
                        return t;
                    }
                }));
            }
            List<Object> out = new ArrayList<>();
            long waitSeconds = config.timeout().toSeconds() * 3 + 30;
            for (Future<Object> f : futures) out.add(f.get(waitSeconds, TimeUnit.SECONDS));
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A UniqueId on loopback for ranks in other JVMs, whose rank 0 binds the root port itself. */
    public static UniqueId loopbackIdForOtherProcesses() {
        return UniqueId.createForAnotherProcess(
                Config.builder().socketIfname("lo").build());
    }

    /** True if {@code command} is an executable on this process's PATH (tests that need a tool skip without it). */
    public static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, command))) return true;
        }
        return false;
    }
}
