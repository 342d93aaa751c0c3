package modulepath;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A program of the unnamed module that uses Jccl from the module path, as a modular application would see it. Lives
 * outside core's packages on purpose: a class of package {@code dev.jccl} on the class path would be hidden by the
 * named module. Prints one line per check; {@code ModulePathTest} reads them.
 */
public final class ModulePathProbe {
    private ModulePathProbe() {}

    public static void main(String[] args) throws Exception {
        Module core = Communicator.class.getModule();
        System.out.println("module " + core.getName());
        System.out.println("exported dev.jccl " + core.isExported("dev.jccl"));
        System.out.println("exported dev.jccl.runtime " + core.isExported("dev.jccl.runtime"));
        Config config = Config.builder()
                .socketIfname("lo")
                .timeout(Duration.ofSeconds(30))
                .build();
        UniqueId id = UniqueId.create(config);
        ExecutorService ranks = Executors.newFixedThreadPool(2);
        try {
            Future<?>[] results = new Future<?>[2];
            for (int r = 0; r < 2; r++) {
                int rank = r;
                results[r] = ranks.submit(() -> {
                    try (Communicator comm = Jccl.init(rank, 2, id, config)) {
                        double[] x = {rank + 1, 10 * (rank + 1)};
                        comm.allReduce(x, ReduceOp.SUM);
                        return x[0] + "," + x[1];
                    }
                });
            }
            System.out.println("allReduce " + results[0].get() + " " + results[1].get());
        } finally {
            ranks.shutdownNow();
        }
    }
}
