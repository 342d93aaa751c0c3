package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * What each collective must leave in RECV, computed directly from the definitions and nothing the planner shares.
 * {@code inputs[j]} is rank j's SEND; {@code n} is the request's count.
 */
final class Reference {
    private Reference() {}

    /** Rank {@code rank}'s expected RECV, or null where the operation leaves it alone (Reduce off the root). */
    static long[] recv(Collective c, ReduceOp op, int root, long[][] inputs, int n, int rank) {
        int size = inputs.length;
        long[] out;
        switch (c) {
            case ALL_REDUCE -> out = reduce(op, inputs, 0, n);
            case REDUCE -> out = rank == root ? reduce(op, inputs, 0, n) : null;
            case REDUCE_SCATTER -> out = reduce(op, inputs, rank * n, n);
            case BROADCAST -> out = inputs[root].clone();
            case ALL_GATHER -> {
                out = new long[size * n];
                for (int j = 0; j < size; j++) {
                    System.arraycopy(inputs[j], 0, out, j * n, n);
                }
            }
            case ALL_TO_ALL -> {
                out = new long[size * n];
                for (int j = 0; j < size; j++) {
                    System.arraycopy(inputs[j], rank * n, out, j * n, n);
                }
            }
            default -> throw new IllegalArgumentException(c.toString());
        }
        return out;
    }

    /** Element-wise reduction of {@code inputs[*][from .. from+n)} over all ranks. */
    static long[] reduce(ReduceOp op, long[][] inputs, int from, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            long acc = inputs[0][from + i];
            for (int j = 1; j < inputs.length; j++) {
                long x = inputs[j][from + i];
                acc = switch (op) {
                    case SUM, AVG -> acc + x;
                    case PROD -> acc * x;
                    case MAX -> Math.max(acc, x);
                    case MIN -> Math.min(acc, x);
                };
            }
            out[i] = op == ReduceOp.AVG ? acc / inputs.length : acc;
        }
        return out;
    }
}
