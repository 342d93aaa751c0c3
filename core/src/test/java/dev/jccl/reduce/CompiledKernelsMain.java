package dev.jccl.reduce;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs every kernel check (the staged and the streaming kernels, or the Vector API's where the JVM has it) in a JVM
 * started so that each kernel is compiled by C2 during its warm-up (see
 * {@link ReduceKernelsTest#sameResultsFromC2CompiledKernels}). Prints the failures and exits non-zero on any; prints
 * which kernels ran.
 */
public final class CompiledKernelsMain {

    private CompiledKernelsMain() {}

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        warmUp();
        List<String> failures = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                if (op != ReduceOp.AVG) { // the same kernel as SUM
                    failures.addAll(KernelChecks.everyCase(type, op, seed));
                    ReduceKernel streaming = ReduceKernels.streaming(type, op);
                    if (streaming != ReduceKernels.of(type, op)) {
                        failures.addAll(KernelChecks.everyCase(streaming, type, op, seed));
                    }
                }
            }
            // AVG's division, compiled too.
            for (int count : new int[] {0, 1, 7, 1023}) {
                for (TestBuffers.Memory memory : TestBuffers.Memory.values()) {
                    for (int size : new int[] {1, 2, 3, 7, 1000}) {
                        failures.addAll(DivideBySizeTest.checkCase(type, count, memory, size, seed + count + size));
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            System.out.println(Failures.summary(failures));
            System.exit(1);
        }
        System.out.println("all kernel checks passed; kernels: " + ReduceKernels.describe());
    }

    /**
     * Calls every kernel often enough for C2 (-Xbatch compiles at once): the checks alone call a vector kernel too few
     * times, each call doing a few dozen elements a step.
     */
    private static void warmUp() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(4096, 64);
            MemorySegment b = arena.allocate(4096, 64);
            MemorySegment d = arena.allocate(4096, 64);
            for (DataType type : DataType.values()) {
                for (ReduceOp op : ReduceOp.values()) {
                    if (op == ReduceOp.AVG) continue;
                    ReduceKernel[] kernels = {ReduceKernels.of(type, op), ReduceKernels.streaming(type, op)};
                    for (ReduceKernel k : kernels) {
                        for (int i = 0; i < WARM_UP_CALLS; i++) {
                            k.apply(a, 0, b, 0, d, 0, 4096 / type.byteSize() - i % 3);
                        }
                    }
                }
                for (int i = 0; i < WARM_UP_CALLS; i++) {
                    ReduceKernels.divideBySize(d, 0, 4096 / type.byteSize() - i % 3, type, 3);
                }
            }
        }
    }

    private static final int WARM_UP_CALLS = 6000;
}
