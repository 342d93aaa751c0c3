package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tree and recursive algorithms, simulated like the ring's in {@link PlanConformanceTest}, on 2 to 9 ranks and on
 * 16 and 32: powers of two and not (the fold), odd counts, counts below the rank count (empty blocks), chunks of one
 * element, every op, roots at both ends and in the middle, in place and out of place.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AlgorithmConformanceTest {
    static final int[] SIZES = {2, 3, 4, 5, 6, 7, 8, 9, 16, 32};
    static final int[] COUNTS = {0, 1, 2, 3, 5, 7, 13, 31, 64, 97, 1000};
    static final long[] CHUNKS = {1, 3, 64, 1 << 20};
    static final ReduceOp[] OPS = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG};

    /** Each collective with the algorithms that have a schedule for it besides its ring, chain or pairwise one. */
    static final List<Arguments> PAIRS = List.of(
            Arguments.of(Collective.ALL_REDUCE, Tuner.Algorithm.TREE),
            Arguments.of(Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING),
            Arguments.of(Collective.ALL_REDUCE, Tuner.Algorithm.RABENSEIFNER),
            Arguments.of(Collective.BROADCAST, Tuner.Algorithm.TREE),
            Arguments.of(Collective.REDUCE, Tuner.Algorithm.TREE),
            Arguments.of(Collective.ALL_GATHER, Tuner.Algorithm.BRUCK),
            Arguments.of(Collective.ALL_TO_ALL, Tuner.Algorithm.BRUCK));

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Arguments pair : PAIRS) {
            for (int size : SIZES) cases.add(Arguments.of(pair.get()[0], pair.get()[1], size));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} on {2} ranks")
    @MethodSource("cases")
    void matchesReference(Collective c, Tuner.Algorithm algorithm, int size) {
        boolean reduces = c == Collective.ALL_REDUCE || c == Collective.REDUCE;
        boolean rooted = c == Collective.BROADCAST || c == Collective.REDUCE;
        ReduceOp[] ops = reduces ? OPS : new ReduceOp[] {null};
        int[] roots = !rooted ? new int[] {-1} : size <= 9 ? range(size) : new int[] {0, 1, size / 2 + 1, size - 1};
        for (int count : COUNTS) {
            for (long chunk : CHUNKS) {
                if (chunk == 1 && count > 97) continue; // a thousand one-element transfers per round add nothing
                // AllToAll moves size × count elements per rank, each block log2(size)/2 times: 1000 adds 20 s and no
                // case the odd counts below it miss.
                if (c == Collective.ALL_TO_ALL && count > 97) continue;
                for (ReduceOp op : ops) {
                    for (int root : roots) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            OperationRun run = new OperationRun(c, size, count, chunk, op, root, inPlace, algorithm);
                            List<Schedule> schedules = run.plan();
                            String expected = switch (algorithm) {
                                case TREE -> "tree";
                                case RECURSIVE_DOUBLING -> "recursive-doubling";
                                case RABENSEIFNER -> "rabenseifner";
                                case BRUCK -> "bruck";
                                default -> throw new AssertionError(algorithm);
                            };
                            if (count > 0) {
                                assertEquals(expected, schedules.getFirst().algorithm(), run::toString);
                            }
                            run.check(schedules);
                        }
                    }
                }
            }
        }
    }

    /** The step counts the planner's table promises: the point of these algorithms is fewer steps than the ring. */
    @Test
    void stepsAreLogarithmic() {
        assertEquals(5, steps(Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 32));
        assertEquals(3 + 2, steps(Collective.ALL_REDUCE, Tuner.Algorithm.RECURSIVE_DOUBLING, 9)); // fold: +2
        assertEquals(2 * 5, steps(Collective.ALL_REDUCE, Tuner.Algorithm.RABENSEIFNER, 32));
        assertEquals(2 * 5, steps(Collective.ALL_REDUCE, Tuner.Algorithm.TREE, 32));
        assertEquals(2 * 4, steps(Collective.ALL_REDUCE, Tuner.Algorithm.TREE, 9));
        assertEquals(4, steps(Collective.BROADCAST, Tuner.Algorithm.TREE, 9));
        assertEquals(5, steps(Collective.ALL_GATHER, Tuner.Algorithm.BRUCK, 17));
        assertEquals(5 + 1, steps(Collective.ALL_TO_ALL, Tuner.Algorithm.BRUCK, 17)); // + unpacking the last round
        assertEquals(17 + 1, steps(Collective.ALL_TO_ALL, Tuner.Algorithm.RING, 17)); // pairwise, odd: 17 rounds
        assertEquals(2 * 31, steps(Collective.ALL_REDUCE, Tuner.Algorithm.RING, 32));
    }

    /**
     * A tree AllReduce of several pieces pipelines them: a piece a step once the trees are full, after the 2·height
     * steps a piece takes up and down, where the unpipelined trees needed 2·⌈log2 size⌉ steps per piece.
     */
    @Test
    void theTreePipelinesItsPieces() {
        // 1000 elements, chunks of 64: halves of 500 in pieces of at least 64 / 16 = 4 elements, 125 of them.
        assertEquals(125, TreeAllReduce.pieces(500, 64));
        assertEquals(125 + 2 * 5 - 1, steps(Collective.ALL_REDUCE, Tuner.Algorithm.TREE, 32, 1000, 64));
        assertEquals(125 + 2 * 4 - 1, steps(Collective.ALL_REDUCE, Tuner.Algorithm.TREE, 9, 1000, 64));
        // No more than MAX_PIECES unless the chunk forces more; pieces within a chunk.
        assertEquals(TreeAllReduce.MAX_PIECES, TreeAllReduce.pieces(1 << 20, 1 << 16));
        assertEquals(1 << 10, TreeAllReduce.pieces(1 << 20, 1 << 10));
        // A half of at most a sixteenth of a chunk is one piece: the binomial trees.
        assertEquals(1, TreeAllReduce.pieces(4096, 65536));
    }

    /**
     * A Broadcast or Reduce of several pieces pipelines them down (up) the two rooted trees: pieces + height − 1 steps
     * (one more for AVG's division), where the binomial tree sends the whole message ⌈log2 size⌉ times. Two ranks keep
     * the one message.
     */
    @Test
    void theRootedTreesPipelineTheirPieces() {
        // 1000 elements, chunks of 64: 125 pieces per half. 32 ranks: the root over two trees of 31, height 5 + 1.
        int height = new RootedTrees(32, 0).height();
        assertEquals(6, height);
        assertEquals(125 + height - 1, steps(Collective.BROADCAST, Tuner.Algorithm.TREE, 32, 1000, 64));
        assertEquals(125 + height - 1, steps(Collective.REDUCE, Tuner.Algorithm.TREE, 32, 1000, 64));
        assertEquals(2, new RootedTrees(3, 0).height()); // the root, the top of a tree of two, its child
        assertEquals(125 + 2 - 1, steps(Collective.BROADCAST, Tuner.Algorithm.TREE, 3, 1000, 64));
        assertEquals(1, steps(Collective.BROADCAST, Tuner.Algorithm.TREE, 2, 1000, 64));
        assertEquals(1, TreeBroadcast.pieces(2, 1000, 64));
        assertEquals(125, TreeBroadcast.pieces(3, 1000, 64));
    }

    /**
     * A pipelined Broadcast's root copies SEND into RECV once its last piece has left, while the pipeline drains, so no
     * rank waits for the copy; where nothing drains (two ranks, one piece) it copies first. Which step the copy is in
     * is all that changed: the conformance runs above check the results.
     */
    @Test
    void aPipelinedBroadcastsRootCopiesAfterItsLastSend() {
        for (Tuner.Algorithm a : new Tuner.Algorithm[] {Tuner.Algorithm.TREE, Tuner.Algorithm.RING}) {
            for (int size : new int[] {3, 8, 32}) {
                Schedule root = rootOf(a, size, 1000, 64);
                int copy = stepOfCopy(root);
                assertTrue(copy > lastStepWithASend(root), a + " on " + size + " ranks copies at step " + copy);
            }
            assertEquals(0, stepOfCopy(rootOf(a, 2, 1000, 64)), a + " on 2 ranks");
        }
        assertEquals(0, stepOfCopy(rootOf(Tuner.Algorithm.TREE, 8, 8, 64)), "one piece: the binomial tree");
    }

    private static Schedule rootOf(Tuner.Algorithm a, int size, int count, long chunk) {
        return new OperationRun(Collective.BROADCAST, size, count, chunk, null, 0, false, a)
                .plan()
                .getFirst();
    }

    private static int stepOfCopy(Schedule s) {
        for (int k = 0; k < s.steps().size(); k++) {
            for (Action a : s.steps().get(k).actions()) {
                if (a instanceof Action.LocalCopy) return k;
            }
        }
        throw new AssertionError("no copy in " + s);
    }

    private static int lastStepWithASend(Schedule s) {
        int last = -1;
        for (int k = 0; k < s.steps().size(); k++) {
            for (Action a : s.steps().get(k).actions()) {
                if (a instanceof Action.Send) last = k;
            }
        }
        return last;
    }

    /**
     * Rabenseifner's halving rounds split what a pair holds evenly even when there are fewer elements than ranks: each
     * rank sends within one element of what it receives. (Blocks cut with the remainder in the first ones put a small
     * message wholly in the low half, so every round moved all of it one way.)
     */
    @Test
    void rabenseifnersHalvesAreEvenWithFewerElementsThanRanks() {
        for (int size : new int[] {16, 32}) {
            for (int count : new int[] {5, 13, 31}) {
                OperationRun run = new OperationRun(
                        Collective.ALL_REDUCE,
                        size,
                        count,
                        1 << 20,
                        ReduceOp.SUM,
                        -1,
                        false,
                        Tuner.Algorithm.RABENSEIFNER);
                List<Schedule> schedules = run.plan();
                int rounds = Integer.numberOfTrailingZeros(size);
                for (int rank = 0; rank < size; rank++) {
                    for (int step = 0; step < rounds; step++) {
                        long sent = 0;
                        long received = 0;
                        for (Action a : schedules.get(rank).steps().get(step).actions()) {
                            switch (a) {
                                case Action.Send send -> sent += send.from().count();
                                case Action.Receive receive ->
                                    received += receive.into().count();
                                default -> {}
                            }
                        }
                        assertTrue(
                                Math.abs(sent - received) <= 1,
                                size + " ranks, " + count + " elements, rank " + rank + " step " + step + ": sends "
                                        + sent + ", receives " + received);
                    }
                }
                run.check(schedules);
            }
        }
    }

    /** The most steps any rank's schedule has, for 8 elements in one chunk. */
    private static int steps(Collective c, Tuner.Algorithm algorithm, int size) {
        return steps(c, algorithm, size, 8, 1 << 20);
    }

    private static int steps(Collective c, Tuner.Algorithm algorithm, int size, int count, long chunk) {
        int root = c == Collective.BROADCAST || c == Collective.REDUCE ? 0 : -1;
        ReduceOp op = c == Collective.ALL_REDUCE || c == Collective.REDUCE ? ReduceOp.SUM : null;
        int most = 0;
        for (Schedule s : new OperationRun(c, size, count, chunk, op, root, false, algorithm).plan()) {
            most = Math.max(most, s.steps().size());
        }
        return most;
    }

    private static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = i;
        return r;
    }
}
