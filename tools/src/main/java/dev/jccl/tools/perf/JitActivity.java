package dev.jccl.tools.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's just-in-time compiler has settled: it spent less than {@link #QUIET_SHARE} of the last
 * {@link #WINDOW_NANOS} compiling. Several JVMs sharing few CPUs (four ranks on two cores) compile their hot paths for
 * many seconds, and their compiler threads take CPU time from the ranks; a fixed warm-up then times the compiler, not
 * the collective (measured: a 4-rank TCP AllReduce of 1 MiB on 2 CPUs, 5.0-5.3 ms after 4 s of warm-up, 2.0-2.6 ms
 * after 10 s, while the ranks still compiled ~100 methods a second at 7 s). Where the JVM does not account its
 * compilation time, the compiler counts as quiet, and the warm-up falls back to its duration.
 */
final class JitActivity {
    static final long WINDOW_NANOS = 1_000_000_000L;
    static final double QUIET_SHARE = 0.01;

    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private final boolean measurable = compiler != null && compiler.isCompilationTimeMonitoringSupported();
    private long windowStartNanos = System.nanoTime();
    private long windowStartCompileMillis = compileMillis();
    private boolean quiet;

    private long compileMillis() {
        return measurable ? compiler.getTotalCompilationTime() : 0;
    }

    /** Looks again; true once a whole window has passed with the compiler (nearly) idle. */
    boolean quiet() {
        if (!measurable) return true;
        long now = System.nanoTime();
        if (now - windowStartNanos < WINDOW_NANOS) return quiet;
        long compileMillis = compileMillis();
        quiet = (compileMillis - windowStartCompileMillis) * 1e6 < QUIET_SHARE * (now - windowStartNanos);
        windowStartNanos = now;
        windowStartCompileMillis = compileMillis;
        return quiet;
    }
}
