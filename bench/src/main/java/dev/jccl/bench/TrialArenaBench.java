package dev.jccl.bench;

import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the copy and kernel benches share (JMH inherits class annotations; a subclass's own win): time per call in ns
 * over 3 + 5 one-second iterations in one fork, and an arena that the subclass's set-up opens for the trial's buffers
 * and that is closed when the trial ends.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g"})
public abstract class TrialArenaBench {
    Arena arena;
    MemorySegment a;
    MemorySegment b;
    MemorySegment dst;

    /** Allocates, in the trial's arena, the operands of {@code bytes} bytes each where {@code memory} puts them. */
    final void allocateOperands(Memory memory, DataType type, long bytes) {
        a = Buffers.allocate(memory.user(), type, bytes, arena, 1);
        b = Buffers.allocate(memory.staging(), type, bytes, arena, 2);
        dst = Buffers.allocate(memory.user(), type, bytes, arena, 3);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }
}
