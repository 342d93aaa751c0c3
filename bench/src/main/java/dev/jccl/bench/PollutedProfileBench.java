package dev.jccl.bench;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * A kernel that the JIT first compiled while it saw only native segments (a process whose first collectives ran on
 * native buffers), then called on {@code memory}: the order that sent C2 into a deoptimise/recompile cycle on JDK 25
 * (profiled loop predication). Compare with {@link ReduceKernelBench} for the same kernel, size and memory.
 */
public class PollutedProfileBench extends TrialArenaBench {

    @Param({"FLOAT32_SUM", "BFLOAT16_SUM", "FLOAT16_SUM", "INT32_SUM"})
    public String kernel;

    @Param({"1048576"})
    public long bytes;

    @Param({"HEAP", "MIXED"})
    public Memory memory;

    private ReduceKernel reduce;
    private long count;

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        int split = kernel.lastIndexOf('_');
        DataType type = DataType.valueOf(kernel.substring(0, split));
        reduce = ReduceKernels.of(type, ReduceOp.valueOf(kernel.substring(split + 1)));
        count = bytes / type.byteSize();
        arena = Arena.ofShared();
        MemorySegment x = Buffers.allocate(Buffers.Kind.NATIVE, type, 64 * 1024, arena, 4);
        MemorySegment y = Buffers.allocate(Buffers.Kind.NATIVE, type, 64 * 1024, arena, 5);
        long warmCount = 64 * 1024 / type.byteSize();
        for (int i = 0; i < 20_000; i++) {
            reduce.apply(x, 0, y, 0, x, 0, warmCount);
        }
        Thread.sleep(500); // let C2 finish what the loop queued
        allocateOperands(memory, type, bytes);
    }

    @Benchmark
    public void reduce() {
        reduce.apply(a, 0, b, 0, dst, 0, count);
    }
}
