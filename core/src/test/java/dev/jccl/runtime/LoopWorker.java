package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;

/**
 * A rank in its own JVM that runs AllReduces until something fails: {@code LoopWorker <rank> <size> <unique id>
 * <count>}. Prints {@code looping} once it is in the loop, and on failure the exception's class and message, then exits
 * 3. Settings come from the environment.
 */
public final class LoopWorker {
    private LoopWorker() {}

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        UniqueId id = UniqueId.parse(args[2]);
        float[] data = new float[Integer.parseInt(args[3])];
        try (Communicator c = Jccl.init(rank, size, id, Config.fromEnvironment())) {
            for (long i = 0; ; i++) {
                c.allReduce(data, ReduceOp.SUM);
                if (i == 100) {
                    System.out.println("looping");
                    System.out.flush();
                }
            }
        } catch (Throwable t) {
            System.out.println(
                    "failed at " + System.nanoTime() + ": " + t.getClass().getName() + ": " + t.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
