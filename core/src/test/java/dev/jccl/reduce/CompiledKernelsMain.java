package dev.jccl.reduce;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs every kernel check in a JVM started so that each kernel is compiled by C2 during its warm-up
 * (see {@link ReduceKernelsTest#sameResultsFromC2CompiledKernels}). Prints the failures and exits
 * non-zero on any.
 */
public final class CompiledKernelsMain {

    private CompiledKernelsMain() {
    }

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        List<String> failures = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (ReduceOp op : ReduceOp.values()) {
                if (op != ReduceOp.AVG) { // the same kernel as SUM
                    failures.addAll(KernelChecks.everyCase(type, op, seed));
                }
            }
        }
        if (!failures.isEmpty()) {
            System.out.println(Failures.summary(failures));
            System.exit(1);
        }
        System.out.println("all kernel checks passed");
    }
}
