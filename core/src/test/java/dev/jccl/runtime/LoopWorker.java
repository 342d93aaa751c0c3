package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;

/**
 * A rank in its own JVM that runs AllReduces until something fails: {@code LoopWorker <rank> <size> <unique id>
 * <count>}. Prints {@code looping} once it is in the loop, and on failure the exception's class and message, then exits
 * 3. Settings come from the environment.
 *
 * <p>{@code JCCL_TEST_FAULT} makes this rank misbehave at iteration 150: {@code skip} stops calling collectives (the
 * process stays, its communicator open, for a minute), {@code other} calls a Broadcast where the others call an
 * AllReduce. A failure's agreed verdict is printed on a line of its own, {@code verdict: [culprits] text}.
 */
public final class LoopWorker {
    private static final long FAULT_AT = 150;

    private LoopWorker() {}

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        UniqueId id = UniqueId.parse(args[2]);
        float[] data = new float[Integer.parseInt(args[3])];
        try (Communicator c = Jccl.init(rank, size, id, Config.fromEnvironment())) {
            String fault = System.getenv().getOrDefault("JCCL_TEST_FAULT", "");
            for (long i = 0; ; i++) {
                if (i == FAULT_AT && fault.equals("skip")) {
                    Thread.sleep(60_000);
                    return;
                }
                if (i == FAULT_AT && fault.equals("other")) c.broadcast(data, 0);
                else c.allReduce(data, ReduceOp.SUM);
                if (i == 100) {
                    System.out.println("looping");
                    System.out.flush();
                }
            }
        } catch (Throwable t) {
            if (t instanceof JcclException e && e.verdict() != null) {
                System.out.println(
                        "verdict: " + e.verdict().culprits() + " " + e.verdict().describe());
            }
            System.out.println(
                    "failed at " + System.nanoTime() + ": " + t.getClass().getName() + ": " + t.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
