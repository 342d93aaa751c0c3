package dev.jccl.bench;

import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code MemorySegment.copy} of {@code bytes} bytes from {@code b} to {@code dst} (for MIXED: the native staging buffer
 * into the heap array, as a receive without reduction does): the "limit" that {@link ReduceKernelBench} is compared
 * with.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public class CopyBench {

    @Param({"4096", "1048576", "67108864"})
    public long bytes;

    @Param({"NATIVE", "HEAP", "MIXED"})
    public Memory memory;

    private Arena arena;
    private MemorySegment b;
    private MemorySegment dst;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        b = Buffers.allocate(memory.b, DataType.FLOAT32, bytes, arena, 2);
        dst = Buffers.allocate(memory.dst, DataType.FLOAT32, bytes, arena, 3);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public void copy() {
        MemorySegment.copy(b, 0, dst, 0, bytes);
    }
}
