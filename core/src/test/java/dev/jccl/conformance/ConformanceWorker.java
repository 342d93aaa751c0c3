package dev.jccl.conformance;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.UniqueId;
import java.util.List;

/**
 * One rank of {@link ProcessRanksConformanceTest}, in its own JVM: {@code ConformanceWorker <rank> <size> <unique id>}
 * (or {@code --from-environment}, as a launcher such as {@code mpirun} starts it), running
 * {@link ConformanceBody.Plan#PROCESS}. Settings come from the environment ({@code JCCL_SOCKET_IFNAME},
 * {@code JCCL_TIMEOUT}). Exits 0 when the whole battery passed on this rank, 1 with the failures on stdout otherwise, 2
 * when the communicator could not be made.
 */
public final class ConformanceWorker {
    private ConformanceWorker() {}

    public static void main(String[] args) {
        boolean fromLauncher = args.length == 1 && args[0].equals("--from-environment");
        if (args.length != 3 && !fromLauncher) {
            System.err.println("usage: ConformanceWorker <rank> <size> <unique id> | --from-environment");
            System.exit(2);
        }
        int rank = fromLauncher ? -1 : Integer.parseInt(args[0]);
        int size = fromLauncher ? -1 : Integer.parseInt(args[1]);
        long start = System.nanoTime();
        Communicator comm;
        try {
            // Under mpirun, srun and the like, the launcher's variables say who is who.
            comm = fromLauncher
                    ? Jccl.fromEnvironment()
                    : Jccl.init(rank, size, UniqueId.parse(args[2]), Config.fromEnvironment());
            rank = comm.rank();
            size = comm.size();
        } catch (Throwable t) {
            System.out.println("rank " + rank + "/" + size + ": init failed: " + ThreadRanks.stack(t));
            System.out.flush();
            System.exit(2);
            return;
        }
        List<String> failures;
        try {
            failures = ConformanceBody.run(
                    comm, ConformanceBody.Plan.PROCESS, rank == 0 ? System.out::println : line -> {});
        } catch (Throwable t) {
            failures = List.of("rank " + rank + ": the body threw " + ThreadRanks.stack(t));
            comm.abort();
        }
        try {
            comm.close();
        } catch (Throwable t) {
            failures = new java.util.ArrayList<>(failures);
            failures.add("rank " + rank + ": close threw " + ThreadRanks.stack(t));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (failures.isEmpty()) {
            // One write per line (printf writes piece by piece): under mpirun, ranks' pieces would interleave.
            System.out.print(String.format("rank %d/%d: PASS in %.1f s%n", rank, size, seconds));
            System.out.flush();
            System.exit(0);
        }
        System.out.print(String.format("rank %d/%d: %d failure(s) in %.1f s%n", rank, size, failures.size(), seconds));
        for (String f : failures) System.out.println("  " + f);
        System.out.flush();
        System.exit(1);
    }
}
