package dev.jccl.tools.perf;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.nio.file.Path;
import java.util.List;

/**
 * One {@code jccl perf} run's settings, already checked.
 *
 * @param warmupSeconds JVM warm-up before the first row ({@code --warmup-time}): timed calls run compiled code only
 *     once the JIT has compiled it, which takes the JVM about a second
 * @param calls how the timed calls are made ({@code -z})
 * @param roots the roots to run ({@code -r}); null means every rank ({@code -r all})
 * @param average how rank times combine ({@code -a}): 0 rank 0's, 1 mean, 2 min, 3 max
 * @param corrupt hidden debug switch: damage one received element before checking, to prove the check catches it
 * @param json where rank 0 writes the report, or null
 * @param plot where rank 0 draws busbw against size for this run (PNG), or null
 * @param progress whether rank 0 may draw a progress line on stderr (only on a terminal)
 * @param arguments the perf arguments as given, for the report
 * @param aggIters operations per timed iteration ({@code -m}), issued together and waited for together
 */
public record PerfOptions(
        PerfCollective collective,
        SizeSweep sweep,
        int iters,
        int warmupIters,
        double warmupSeconds,
        int checks,
        List<ReduceOp> ops,
        List<DataType> types,
        List<Integer> roots,
        Calls calls,
        int average,
        boolean corrupt,
        Path json,
        Path plot,
        boolean progress,
        List<String> arguments,
        int aggIters) {

    /** {@code -z}: how the timed iterations call the communicator. */
    public enum Calls {
        /** {@code -z 0}, nccl-tests' default: every iteration issued asynchronously, one wait at the end. */
        ASYNC,
        /** {@code -z 1}, as nccl-tests: blocking calls, with a barrier after each (the barrier is timed too). */
        BLOCKING_WITH_BARRIER,
        /** {@code -z 2}, Jccl's: blocking calls back to back, as MPI benchmarks (OSU, IMB) time one call. */
        BLOCKING;

        public static Calls of(int z) {
            return switch (z) {
                case 0 -> ASYNC;
                case 1 -> BLOCKING_WITH_BARRIER;
                case 2 -> BLOCKING;
                default -> throw new IllegalArgumentException("-z (blocking) must be 0, 1 or 2, got " + z);
            };
        }

        public boolean blocking() {
            return this != ASYNC;
        }
    }

    /** True for the blocking modes ({@code -z 1} and {@code -z 2}). */
    public boolean blocking() {
        return calls.blocking();
    }

    public PerfOptions {
        if (iters < 1) throw new IllegalArgumentException("-n (iters) must be at least 1, got " + iters);
        if (warmupIters < 0) {
            throw new IllegalArgumentException("-w (warmup_iters) must not be negative, got " + warmupIters);
        }
        if (!(warmupSeconds >= 0) || warmupSeconds > 3600) {
            throw new IllegalArgumentException(
                    "--warmup-time must be between 0 and 3600 seconds, got " + warmupSeconds);
        }
        if (checks < 0) throw new IllegalArgumentException("-c (check) must not be negative, got " + checks);
        if (average < 0 || average > 3) {
            throw new IllegalArgumentException(
                    "-a (average) must be 0 (rank 0), 1 (mean), 2 (min) or 3 (max), got " + average);
        }
        if (aggIters < 1) throw new IllegalArgumentException("-m (agg_iters) must be at least 1, got " + aggIters);
        ops = List.copyOf(ops);
        types = List.copyOf(types);
        roots = roots == null ? null : List.copyOf(roots);
        arguments = List.copyOf(arguments);
    }
}
