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
 * AllReduce. A failure's agreed verdict is printed on a line of its own, {@code verdict: [culprits] text}. With
 * {@code JCCL_TEST_SHRINK=1} the rank then shrinks the failed communicator and checks the survivors' one.
 */
public final class LoopWorker {
    private static final long FAULT_AT = 150;

    private LoopWorker() {}

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        UniqueId id = UniqueId.parse(args[2]);
        float[] data = new float[Integer.parseInt(args[3])];
        boolean shrink = System.getenv().getOrDefault("JCCL_TEST_SHRINK", "").equals("1");
        int status = 3;
        try (Communicator c = Jccl.init(rank, size, id, Config.fromEnvironment())) {
            try {
                loop(c, data);
            } catch (JcclException e) {
                report(e);
                if (shrink) status = goOnWithTheSurvivors(c, rank);
            }
        } catch (Throwable t) {
            report(t);
        }
        System.exit(status);
    }

    private static void loop(Communicator c, float[] data) throws InterruptedException {
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
    }

    private static void report(Throwable t) {
        if (t instanceof JcclException e && e.verdict() != null) {
            System.out.println(
                    "verdict: " + e.verdict().culprits() + " " + e.verdict().describe());
        }
        System.out.println(
                "failed at " + System.nanoTime() + ": " + t.getClass().getName() + ": " + t.getMessage());
        System.out.flush();
    }

    /**
     * Shrinks and checks the new communicator: the members' old ranks (gathered) must be ascending, and an AllReduce of
     * each member's old rank + 1 must give their sum. Prints {@code shrunk: old ranks [...] rank r of n sum s
     * ok|WRONG}; exit status 4 if the check passed.
     */
    private static int goOnWithTheSurvivors(Communicator failed, int oldRank) {
        try (Communicator s = failed.shrink()) {
            int[] oldRanks = new int[s.size()];
            s.allGather(new int[] {oldRank}, oldRanks);
            long[] sum = {oldRank + 1L};
            s.allReduce(sum, ReduceOp.SUM);
            long expected = 0;
            boolean ascending = true;
            for (int i = 0; i < oldRanks.length; i++) {
                expected += oldRanks[i] + 1L;
                if (i > 0 && oldRanks[i] <= oldRanks[i - 1]) ascending = false;
            }
            boolean ok = ascending && sum[0] == expected && oldRanks[s.rank()] == oldRank;
            System.out.println("shrunk: old ranks " + java.util.Arrays.toString(oldRanks) + " rank " + s.rank() + " of "
                    + s.size() + " sum " + sum[0] + (ok ? " ok" : " WRONG"));
            System.out.flush();
            return ok ? 4 : 3;
        } catch (Throwable t) {
            System.out.println("shrink failed: " + t.getClass().getName() + ": " + t.getMessage());
            System.out.flush();
            return 3;
        }
    }
}
