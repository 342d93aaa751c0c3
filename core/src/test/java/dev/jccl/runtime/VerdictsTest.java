package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.FailureVerdict;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdict as a function of what the ranks report, case by case, without processes. */
class VerdictsTest {
    private static final List<String> WHERE = List.of("a:pid 10", "a:pid 11", "b:pid 12", "b:pid 13", "c:pid 14");

    private static RankStatus in(int rank, Collective c, long seq, long count) {
        OpContext op = new OpContext(
                c,
                count,
                DataType.FLOAT32,
                c == Collective.ALL_REDUCE ? ReduceOp.SUM : null,
                c == Collective.BROADCAST ? 0 : -1,
                seq,
                System.nanoTime());
        return new RankStatus(rank, seq, op.descriptor(), count, op.describe(), 1_000, seq, "");
    }

    private static FailureVerdict decide(RankStatus... status) {
        String[] unreachable = new String[status.length];
        for (int r = 0; r < status.length; r++) {
            if (status[r] == null) unreachable[r] = "did not answer";
        }
        return Verdicts.decide(0, status, unreachable, WHERE.subList(0, status.length));
    }

    @Test
    void ranksThatDoNotAnswerAreTheCauseWhateverTheOthersSay() {
        FailureVerdict v = decide(in(0, Collective.ALL_REDUCE, 7, 4), null, in(2, Collective.ALL_REDUCE, 7, 4), null);
        assertEquals(List.of(1, 3), v.culprits());
        assertTrue(
                v.explanation()
                        .startsWith("AllReduce #7 (4 × FLOAT32, SUM) cannot finish: rank 1 (a:pid 11) did "
                                + "not answer; rank 3 (b:pid 13) did not answer."),
                v.explanation());
        assertTrue(v.explanation().endsWith("last collective completed: ranks 0,2: #6; ranks 1,3: unknown."));
    }

    @Test
    void theMinorityThatCalledAnotherOperationIsNamed() {
        FailureVerdict v = decide(
                in(0, Collective.ALL_REDUCE, 3, 8),
                in(1, Collective.ALL_REDUCE, 3, 8),
                in(2, Collective.ALL_REDUCE, 3, 9), // another count is another operation
                in(3, Collective.ALL_REDUCE, 3, 8));
        assertEquals(List.of(2), v.culprits());
        assertTrue(
                v.explanation()
                        .startsWith("rank 2 called AllReduce #3 (9 × FLOAT32, SUM) where ranks 0-1,3 called "
                                + "AllReduce #3 (8 × FLOAT32, SUM)"),
                v.explanation());
    }

    @Test
    void inATieTheGroupOfTheLowestRankIsTheReference() {
        FailureVerdict v = decide(in(0, Collective.ALL_REDUCE, 3, 8), in(1, Collective.BROADCAST, 3, 8));
        assertEquals(List.of(1), v.culprits());
    }

    @Test
    void aRankBehindIsNamedButNotOneThatFinishedTheOperation() {
        RankStatus idleBehind = RankStatus.idle(1, 5, "");
        RankStatus finishedAhead = RankStatus.idle(3, 7, ""); // a Broadcast's root may finish first
        FailureVerdict v =
                decide(in(0, Collective.BROADCAST, 5, 2), idleBehind, in(2, Collective.BROADCAST, 5, 2), finishedAhead);
        assertEquals(List.of(1), v.culprits());
        assertTrue(
                v.explanation()
                        .contains("rank 1 (a:pid 11) never entered it: it has completed 5 collective(s) and "
                                + "is not in any operation"),
                v.explanation());
        assertEquals("Broadcast #5 (2 × FLOAT32, root 0)", v.operation());
    }

    @Test
    void whenEveryRankIsInTheOperationNoneIsBlamedAndTheFirstReportIsGiven() {
        RankStatus failed = new RankStatus(
                1,
                4,
                in(1, Collective.ALL_REDUCE, 4, 1).descriptor(),
                1,
                "AllReduce #4 (1 × FLOAT32, SUM)",
                1,
                4,
                "rank 1: connection reset by rank 0");
        FailureVerdict v = decide(in(0, Collective.ALL_REDUCE, 4, 1), failed);
        assertEquals(List.of(), v.culprits());
        assertTrue(
                v.explanation()
                        .contains("none is missing or in another operation. Rank 1 reported: rank 1: "
                                + "connection reset by rank 0"),
                v.explanation());
    }

    @Test
    void rankListsAreCompressedIntoRanges() {
        assertEquals("rank 4", Verdicts.ranks(List.of(4)));
        assertEquals("ranks 0-3,5,7-8", Verdicts.ranks(List.of(0, 1, 2, 3, 5, 7, 8)));
    }
}
