package dev.jccl.examples;

import dev.jccl.Communicator;
import dev.jccl.ReduceOp;
import java.io.PrintStream;
import java.util.Locale;

/**
 * After training: what one AllReduce of the model's gradients costs on this communicator, measured the way {@code jccl
 * perf} measures it (a few untimed calls, then the mean of timed ones; the slowest rank's mean), so that the training
 * run also says how fast Jccl moved its data. A buffer of its own: the model's weights are not touched.
 */
final class AllReduceBandwidth {
    /** Calls between two checks of whether every rank has warmed up for {@link #WARMUP_NANOS}. */
    private static final int WARMUP_CALLS = 5;

    private static final long WARMUP_NANOS = 2_000_000_000L;
    private static final int TIMED_CALLS = 10;

    private AllReduceBandwidth() {}

    /** Runs on every rank (it is collective); returns the line to print on rank 0 (whose {@code out} is not null). */
    static String measure(Communicator comm, int floats, PrintStream out) {
        float[] buffer = new float[floats];
        // Warm-up by time, agreed by all ranks: this call's shape (one whole-model AllReduce) is not the
        // training's (buckets); in a fresh JVM its first hundred calls ran 4x slower than steady state on a
        // 2-core VM with 4 ranks while the JIT compiled it. Every rank leaves once every rank has warmed up.
        // (Measured 2026-11-26, 4 ranks on 2 cores: after training, 5 MiB takes 20-40 ms where `jccl perf`
        // reports 6-7 ms. It is not the training: `jccl perf --warmup-time 0` reports 22-28 ms too, and a
        // fresh JVM that only warms up and measures gets 12-46 ms, varying from run to run. With
        // JCCL_OVERSUBSCRIBED=0 (waiters spin instead of yielding) the same fresh JVM got 7-8 ms in two of three
        // measurements, but `jccl perf` showed no steady gain from it (16 MiB: 22-24 ms either way). Four ranks
        // on two cores run large AllReduces at unsteady speed; issue 17 tracks it.)
        long warmUpStart = System.nanoTime();
        int[] warm = {0};
        while (warm[0] == 0) {
            for (int i = 0; i < WARMUP_CALLS; i++) comm.allReduce(buffer, ReduceOp.SUM);
            warm[0] = System.nanoTime() - warmUpStart >= WARMUP_NANOS ? 1 : 0;
            comm.allReduce(warm, ReduceOp.MIN);
        }
        comm.barrier();
        long start = System.nanoTime();
        for (int i = 0; i < TIMED_CALLS; i++) comm.allReduce(buffer, ReduceOp.SUM);
        double[] seconds = {(System.nanoTime() - start) / 1e9 / TIMED_CALLS};
        comm.allReduce(seconds, ReduceOp.MAX);
        if (out == null) return null;
        long bytes = 4L * floats;
        int n = comm.size();
        double algbw = bytes / seconds[0] / 1e9;
        // busbw as nccl-tests defines it for AllReduce: the traffic on the busiest link, 2(n-1)/n of the data.
        double busbw = n > 1 ? algbw * 2 * (n - 1) / n : algbw;
        return String.format(
                Locale.ROOT,
                "AllReduce of the %s of gradients on %d rank%s: %.2f ms per call, algbw %.2f GB/s, busbw %.2f"
                        + " GB/s (mean of %d calls, slowest rank; `./jccl perf all_reduce -np %d` measures more)",
                bytes >= 1 << 20
                        ? String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20))
                        : String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0),
                n,
                n == 1 ? "" : "s",
                seconds[0] * 1e3,
                algbw,
                busbw,
                TIMED_CALLS,
                n);
    }
}
