package dev.jccl.tools.perf;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Rank 0's progress line under a long sweep: drawn over itself (carriage return, erase line) once the sweep has run
 * longer than a delay, so that a short sweep shows none, and erased before a table row is printed.
 */
final class ProgressLine {
    private final PrintStream out;
    private final long delayNanos;
    private long sweepStart;
    private boolean shown;

    ProgressLine(PrintStream out, long delayNanos) {
        this.out = out;
        this.delayNanos = delayNanos;
    }

    void sweepStarted() {
        sweepStart = System.nanoTime();
    }

    /** Whether the sweep has run long enough for the line to be drawn. */
    boolean due() {
        return System.nanoTime() - sweepStart >= delayNanos;
    }

    /** Draws {@code what} with the time elapsed since the sweep started. */
    void show(String what) {
        long secs = (System.nanoTime() - sweepStart) / 1_000_000_000L;
        out.printf(Locale.ROOT, "\r\033[K# %s, %d:%02d elapsed", what, secs / 60, secs % 60);
        out.flush();
        shown = true;
    }

    void erase() {
        if (!shown) return;
        out.print("\r\033[K");
        out.flush();
        shown = false;
    }
}
