package dev.jccl.plan;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every collective's schedules, simulated for sizes 1–6 over a grid of counts, chunk sizes, ops, roots, out of place
 * and in place, must produce exactly the reference result.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlanConformanceTest {
    static final int[] COUNTS = {0, 1, 2, 3, 5, 7, 13, 64, 97, 1000};
    static final long[] CHUNKS = {1, 2, 3, 7, 64, 1 << 20};
    static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG};
    static final Collective[] COLLECTIVES = {
        Collective.ALL_REDUCE, Collective.REDUCE_SCATTER, Collective.ALL_GATHER,
        Collective.BROADCAST, Collective.REDUCE, Collective.ALL_TO_ALL,
    };

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Collective c : COLLECTIVES) {
            for (int size = 1; size <= 6; size++) {
                for (int count : COUNTS) {
                    cases.add(Arguments.of(c, size, count));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} size {1} count {2}")
    @MethodSource("cases")
    void matchesReference(Collective c, int size, int count) {
        boolean reduces = c == Collective.ALL_REDUCE || c == Collective.REDUCE || c == Collective.REDUCE_SCATTER;
        boolean rooted = c == Collective.BROADCAST || c == Collective.REDUCE;
        ReduceOp[] ops = reduces ? OPS : new ReduceOp[] {null};
        for (long chunk : CHUNKS) {
            for (ReduceOp op : ops) {
                for (int root = rooted ? 0 : -1; root < (rooted ? size : 0); root++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        new OperationRun(c, size, count, chunk, op, root, inPlace).check();
                    }
                }
            }
        }
    }
}
