package dev.jccl.runtime;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/** Ranks on threads of this JVM whose debug output (System.out) a test reads. */
final class PrintingRanks {
    private PrintingRanks() {}

    /**
     * Runs {@code rank.apply(r)} for each of {@code n} ranks on a thread of its own, with System.out captured
     * meanwhile; waits up to {@code joinMillis} for each thread, and returns what they printed.
     */
    static String printedBy(int n, IntFunction<Runnable> rank, long joinMillis) throws InterruptedException {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            List<Thread> threads = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                Thread t = new Thread(rank.apply(r));
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) t.join(joinMillis);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
