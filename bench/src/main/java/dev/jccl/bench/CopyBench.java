package dev.jccl.bench;

import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * {@code MemorySegment.copy} of {@code bytes} bytes from {@code b} to {@code dst} (for MIXED: the native staging buffer
 * into the heap array, as a receive without reduction does): the "limit" that {@link ReduceKernelBench} is compared
 * with.
 */
public class CopyBench extends TrialArenaBench {

    @Param({"4096", "1048576", "67108864"})
    public long bytes;

    @Param({"NATIVE", "HEAP", "MIXED"})
    public Memory memory;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        b = Buffers.allocate(memory.staging(), DataType.FLOAT32, bytes, arena, 2);
        dst = Buffers.allocate(memory.user(), DataType.FLOAT32, bytes, arena, 3);
    }

    @Benchmark
    public void copy() {
        MemorySegment.copy(b, 0, dst, 0, bytes);
    }
}
