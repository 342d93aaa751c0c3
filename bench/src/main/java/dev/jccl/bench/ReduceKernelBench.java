package dev.jccl.bench;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.reduce.ReduceKernel;
import dev.jccl.reduce.ReduceKernels;
import java.lang.foreign.Arena;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * One reduce kernel, {@code dst = a op b} over {@code bytes} bytes of each operand, as the runtime calls it. Time per
 * call in ns; {@code bytes / ns} is GB/s of reduced data (bench/kernels.sh prints that next to {@link CopyBench}'s copy
 * of the same bytes, the limit a kernel can approach: it reads twice what a copy reads).
 *
 * <p>{@code kernel} is {@code TYPE_OP}; {@code FLOAT32_AVG} is the SUM kernel followed by the division by 2 ranks over
 * the result, what a 2-rank AVG costs in all. {@code kernels} picks the family: {@code vector} (the Vector API's, which
 * the forked JVM has) or {@code scalar} (what a JVM without {@code --add-modules jdk.incubator.vector} runs).
 */
@Fork(
        value = 1,
        jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx2g", "--add-modules", "jdk.incubator.vector"})
public class ReduceKernelBench extends TrialArenaBench {

    @Param({
        "INT8_SUM",
        "UINT8_SUM",
        "INT32_SUM",
        "UINT32_SUM",
        "INT64_SUM",
        "UINT64_SUM",
        "FLOAT16_SUM",
        "BFLOAT16_SUM",
        "FLOAT32_SUM",
        "FLOAT64_SUM",
        "FLOAT16_MAX",
        "BFLOAT16_MAX",
        "INT8_MIN",
        "UINT64_MAX",
        "FLOAT32_PROD",
        "FLOAT32_MIN",
        "FLOAT32_MAX",
        "FLOAT32_AVG"
    })
    public String kernel;

    @Param({"vector", "scalar"})
    public String kernels;

    @Param({"4096", "1048576", "67108864"})
    public long bytes;

    @Param({"NATIVE", "HEAP", "MIXED"})
    public Memory memory;

    private DataType type;
    private boolean average;
    private ReduceKernel reduce;
    private long count;

    @Setup(Level.Trial)
    public void setUp() {
        // Before ReduceKernels is first touched in this fork: it picks its family once.
        System.setProperty("jccl.vectorKernels", Boolean.toString(kernels.equals("vector")));
        if (kernels.equals("vector") && !ReduceKernels.vectorKernels()) {
            throw new IllegalStateException("no Vector API: " + ReduceKernels.describe());
        }
        int split = kernel.lastIndexOf('_');
        type = DataType.valueOf(kernel.substring(0, split));
        ReduceOp op = ReduceOp.valueOf(kernel.substring(split + 1));
        average = op == ReduceOp.AVG;
        reduce = ReduceKernels.forOperationBytes(type, op, bytes);
        count = bytes / type.byteSize();
        arena = Arena.ofShared();
        allocateOperands(memory, type, bytes);
    }

    @Benchmark
    public void reduce() {
        reduce.apply(a, 0, b, 0, dst, 0, count);
        if (average) {
            ReduceKernels.divideBySize(dst, 0, count, type, 2);
        }
    }
}
