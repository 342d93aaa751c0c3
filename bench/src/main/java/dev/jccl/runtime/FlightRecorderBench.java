package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import dev.jccl.plan.Tuner;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the flight recorder adds to every operation: {@code started} and {@code ended} on a 2048-entry ring (the default
 * {@code JCCL_TRACE_BUFFER}), the two calls {@code HostExecutor} makes per operation. Compare with an 8-byte
 * AllReduce's latency from {@code jccl perf} (about 0.6 µs over shared memory here) for the recorder's share. In
 * package {@code dev.jccl.runtime} because the recorder's methods are the runtime's own.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
public class FlightRecorderBench {
    private final FlightRecorder recorder = new FlightRecorder(2048, 0, 2, "host:pid 1", 0x1234L);
    private final OpContext context = new OpContext(Collective.ALL_REDUCE, 2, DataType.FLOAT32, ReduceOp.SUM, -1, 0, 0);
    private final Tuner.Choice choice = new Tuner.Choice(Tuner.Algorithm.RING, Tuner.Protocol.LL);

    /** One operation's recording: its start, then its end (which reads the clock once). */
    @Benchmark
    public long startedAndEnded() {
        recorder.started(context, choice);
        recorder.ended(true);
        return recorder.held();
    }

    /** The clock read alone, which {@code ended} makes: most of the cost above. */
    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
