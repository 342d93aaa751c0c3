package dev.jccl.tools;

import java.io.PrintStream;
import java.time.Duration;

/**
 * {@code perf -T}: ends the process with exit status 124 (timeout(1)'s) once the limit has passed, whatever it is
 * doing, the way nccl-tests' {@code -T} ends a test that runs too long. A daemon thread: a run that ends first exits
 * normally.
 */
final class Watchdog {
    static final int TIMED_OUT_EXIT = 124;

    private Watchdog() {}

    static void exitAfter(Duration limit, PrintStream err) {
        Thread t = new Thread(
                () -> {
                    try {
                        Thread.sleep(limit);
                    } catch (InterruptedException e) {
                        return;
                    }
                    err.println("jccl perf: still running after " + limit.toSeconds() + " s (-T/--timeout); stopping");
                    err.flush();
                    System.exit(TIMED_OUT_EXIT);
                },
                "jccl perf timeout");
        t.setDaemon(true);
        t.start();
    }
}
