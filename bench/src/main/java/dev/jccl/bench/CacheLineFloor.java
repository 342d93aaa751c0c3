package dev.jccl.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * The floor under a small collective between two processes on this machine: two JVMs bounce a counter through one cache
 * line each of a shared-memory file, spinning, with nothing else in the way. A two-rank AllReduce of 8 bytes needs at
 * least one such hand-off (each rank writes its value, then reads the other's); whatever Jccl or MPI take beyond it is
 * per-call work. {@code bench/floor.sh} runs it; run by hand:
 *
 * <pre>
 * java bench/src/main/java/dev/jccl/bench/CacheLineFloor.java pong /dev/shm/floor &amp;
 * java bench/src/main/java/dev/jccl/bench/CacheLineFloor.java ping /dev/shm/floor
 * </pre>
 *
 * Uses only the JDK, so that the source launcher runs it without a build.
 */
public final class CacheLineFloor {
    private static final long PING = 0;
    private static final long PONG = 128; // another cache line (and another adjacent-line prefetch pair)
    private static final int ROUNDS = 7;
    private static final int PER_ROUND = 2_000_000;
    /** Acquire and release accesses: a plain read in a spin loop may be hoisted out of it by the JIT. */
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private CacheLineFloor() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !(args[0].equals("ping") || args[0].equals("pong"))) {
            System.err.println("usage: CacheLineFloor ping|pong FILE (start pong first; both map FILE)");
            System.exit(2);
        }
        boolean ping = args[0].equals("ping");
        Path file = Path.of(args[1]);
        try (FileChannel ch = FileChannel.open(
                        file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared()) {
            MemorySegment lines = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            long total = (long) ROUNDS * PER_ROUND + PER_ROUND; // a warm-up round first
            if (!ping) {
                for (long i = 1; i <= total; i++) {
                    while ((long) LONG.getAcquire(lines, PING) != i) Thread.onSpinWait();
                    LONG.setRelease(lines, PONG, i);
                }
                return;
            }
            long i = 0;
            double[] nanos = new double[ROUNDS];
            for (int round = -1; round < ROUNDS; round++) {
                long t0 = System.nanoTime();
                for (int k = 0; k < PER_ROUND; k++) {
                    i++;
                    LONG.setRelease(lines, PING, i);
                    while ((long) LONG.getAcquire(lines, PONG) != i) Thread.onSpinWait();
                }
                if (round >= 0) nanos[round] = (System.nanoTime() - t0) / (double) PER_ROUND;
            }
            Arrays.sort(nanos);
            System.out.printf(
                    Locale.ROOT,
                    "cache-line round trip between two processes: median %.0f ns (min %.0f, max %.0f) over %d rounds"
                            + " of %d; one way %.0f ns%n",
                    nanos[ROUNDS / 2],
                    nanos[0],
                    nanos[ROUNDS - 1],
                    ROUNDS,
                    PER_ROUND,
                    nanos[ROUNDS / 2] / 2);
        }
    }
}
