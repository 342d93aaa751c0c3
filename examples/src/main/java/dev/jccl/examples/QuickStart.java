package dev.jccl.examples;

import dev.jccl.Communicator;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import java.util.Arrays;

/**
 * The smallest complete Jccl program: join the job, run three collectives on Java arrays, print what arrived and check
 * it. Every rank runs this same program.
 *
 * <pre>
 * ./jccl run -np 4 -- java -cp examples/target/classes:core/target/classes dev.jccl.examples.QuickStart
 * </pre>
 *
 * Without {@code jccl run}, set {@code JCCL_RANK}, {@code JCCL_WORLD_SIZE} and {@code JCCL_ID} (a {@code UniqueId}
 * string, e.g. from {@code ./jccl id}) for each process yourself; mpirun, srun and torchrun work too. Exits 0 when
 * every result is right, 1 otherwise.
 */
public final class QuickStart {
    private QuickStart() {}

    public static void main(String[] args) {
        boolean ok = true;
        try (Communicator comm = Jccl.fromEnvironment()) {
            int rank = comm.rank();
            int size = comm.size();
            String me = "rank " + rank + "/" + size;

            // AllReduce, in place: rank r holds (r+1)·(i+1); afterwards every rank holds the sum
            // over ranks, (1 + 2 + … + size)·(i+1).
            float[] values = new float[4];
            for (int i = 0; i < values.length; i++) values[i] = (rank + 1) * (i + 1);
            comm.allReduce(values, ReduceOp.SUM);
            System.out.println(me + " allReduce(SUM): " + Arrays.toString(values));
            float ranksSum = size * (size + 1) / 2f;
            for (int i = 0; i < values.length; i++) ok &= values[i] == ranksSum * (i + 1);

            // Broadcast, in place: the last rank's array replaces everyone's.
            int root = size - 1;
            int[] settings = rank == root ? new int[] {42, size, 7} : new int[3];
            comm.broadcast(settings, root);
            System.out.println(me + " broadcast(root " + root + "): " + Arrays.toString(settings));
            ok &= Arrays.equals(settings, new int[] {42, size, 7});

            // AllGather: rank r contributes {r, r²}; block r of the result is rank r's.
            long[] mine = {rank, (long) rank * rank};
            long[] all = new long[2 * size];
            comm.allGather(mine, all);
            System.out.println(me + " allGather: " + Arrays.toString(all));
            for (int r = 0; r < size; r++) ok &= all[2 * r] == r && all[2 * r + 1] == (long) r * r;

            System.out.println(me + (ok ? " OK" : " WRONG"));
        }
        System.exit(ok ? 0 : 1);
    }
}
