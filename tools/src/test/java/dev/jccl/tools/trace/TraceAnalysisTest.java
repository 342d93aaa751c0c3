package dev.jccl.tools.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The analysis of dumps written as FlightRecorder writes them, one situation per test. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TraceAnalysisTest {
    @TempDir
    Path dir;

    @Test
    void theRankThatNeverStartedTheCollectiveOthersWaitInIsBehind() {
        DumpFile.rank(0, 3).allReduces(0, 149).running(150, "AllReduce").writeTo(dir);
        DumpFile.rank(1, 3).allReduces(0, 149).writeTo(dir);
        DumpFile.rank(2, 3).allReduces(0, 149).running(150, "AllReduce").writeTo(dir);

        TraceAnalysis a = analyse(10);

        assertEquals(TraceAnalysis.Behind.BEHIND, a.behind().status());
        assertEquals(List.of(1), a.behind().ranks());
        assertEquals(149L, a.behind().lastCompletedSeq());
        assertEquals(150L, a.behind().neverStartedSeq());
        assertEquals(
                "rank 1 is behind: it last completed #149 AllReduce and never started #150 AllReduce,"
                        + " which ranks 0, 2 are waiting in",
                a.behind().summary());
        assertEquals(List.of(), a.missingRanks());
        assertNull(a.agreement().firstDisagreement());
        assertEquals(
                "no disagreement in the 150 collective operations every dump holds (#0–#149),"
                        + " nor in the 1 more that some of them hold",
                a.agreement().summary());
        TraceAnalysis.RankSummary rank0 = a.rankStates().getFirst();
        assertEquals(149, rank0.lastCompleted().seq());
        assertEquals(150, rank0.inFlight().seq());
        assertEquals(5_000_000 - 150_000, rank0.inFlight().micros(), "running from its start to the dump");
        assertNull(a.rankStates().get(1).inFlight());
    }

    @Test
    void aRankThatSkippedACallDisagreesFromThereOnAndTheOthersWaitForIt() {
        // The program calls AllReduce of 10, 20, 30 elements; rank 1 skipped the second, so its #1 is the third.
        for (int r : new int[] {0, 2}) {
            DumpFile.rank(r, 3)
                    .op(0, "AllReduce", 10, "FLOAT32", "SUM", -1, DumpFile.T0, 12L, "completed")
                    .op(1, "AllReduce", 20, "FLOAT32", "SUM", -1, DumpFile.T0 + 1000, 15L, "completed")
                    .op(2, "AllReduce", 30, "FLOAT32", "SUM", -1, DumpFile.T0 + 2000, null, "started")
                    .writeTo(dir);
        }
        DumpFile.rank(1, 3)
                .op(0, "AllReduce", 10, "FLOAT32", "SUM", -1, DumpFile.T0, 12L, "completed")
                .op(1, "AllReduce", 30, "FLOAT32", "SUM", -1, DumpFile.T0 + 1000, 15L, "completed")
                .writeTo(dir);

        TraceAnalysis a = analyse(10);

        TraceAnalysis.Disagreement d = a.agreement().firstDisagreement();
        assertEquals(1, d.seq());
        assertEquals(List.of("count"), d.differIn());
        assertEquals(List.of(0, 2), d.sides().get(0).ranks());
        assertEquals(List.of(1), d.sides().get(1).ranks());
        assertEquals(
                "at #1 rank 1 ran AllReduce (30 × FLOAT32, SUM) where ranks 0, 2 ran AllReduce (20 × FLOAT32, SUM):"
                        + " they differ in count",
                a.agreement().summary());
        assertEquals(
                "rank 1 is behind: it last completed #1 AllReduce and never started #2 AllReduce,"
                        + " which ranks 0, 2 are waiting in",
                a.behind().summary());
    }

    @Test
    void aRankThatCalledAnotherCollectiveAtTheSameSeqIsNamedWithBothSides() {
        dumpsOfRanksRunning(140, 150, "AllReduce", "Broadcast", "AllReduce");

        TraceAnalysis a = analyse(3);

        TraceAnalysis.Disagreement d = a.agreement().firstDisagreement();
        assertEquals(150, d.seq());
        assertEquals(List.of("op", "reduceOp", "root"), d.differIn());
        assertEquals(
                List.of(
                        new TraceAnalysis.Side(List.of(0, 2), "AllReduce", "AllReduce (1024 × FLOAT32, SUM)"),
                        new TraceAnalysis.Side(List.of(1), "Broadcast", "Broadcast (1024 × FLOAT32, root 0)")),
                d.sides());
        assertEquals(
                "at #150 rank 1 ran Broadcast (1024 × FLOAT32, root 0) where ranks 0, 2 ran AllReduce"
                        + " (1024 × FLOAT32, SUM): they differ in op, reduceOp, root",
                a.agreement().summary());
        assertEquals(TraceAnalysis.Behind.LEVEL, a.behind().status());
        assertEquals(
                "all ranks are level: each is waiting in #150 AllReduce; no rank stayed out of it, so look at the"
                        + " verdict, the network or a rank's host",
                a.behind().summary());
        TraceAnalysis.TimelineRow row = a.timeline().getLast();
        assertEquals("AllReduce", row.op(), "the row is named by most ranks' op");
        assertEquals("Broadcast", row.cells().get(1).op(), "the odd one out says what it ran");
        assertNull(row.cells().get(0).op());
    }

    @Test
    void wrappedRingsStartingAtDifferentSeqsAreComparedWhereTheyOverlap() {
        DumpFile.rank(0, 3)
                .recorded(5000)
                .allReduces(90, 149)
                .running(150, "AllReduce")
                .writeTo(dir);
        DumpFile.rank(1, 3)
                .recorded(4000)
                .allReduces(95, 149)
                .running(150, "AllReduce")
                .writeTo(dir);
        DumpFile.rank(2, 3).recorded(3000).allReduces(100, 149).writeTo(dir);

        TraceAnalysis a = analyse(10);

        assertEquals(50, a.agreement().heldByAll());
        assertEquals(100L, a.agreement().heldByAllFrom());
        assertEquals(149L, a.agreement().heldByAllTo());
        assertEquals(56, a.agreement().compared(), "#95–#150 are in two dumps or more");
        assertEquals(
                "no disagreement in the 50 collective operations every dump holds (#100–#149),"
                        + " nor in the 6 more that some of them hold",
                a.agreement().summary());
        assertEquals(List.of(2), a.behind().ranks());
        assertEquals(
                "rank 2 is behind: it last completed #149 AllReduce and never started #150 AllReduce,"
                        + " which ranks 0, 1 are waiting in",
                a.behind().summary());
        assertEquals(90L, a.rankStates().get(0).firstSeq());
        assertEquals(100L, a.rankStates().get(2).firstSeq());
        assertTrue(
                a.notes()
                        .contains("rank 0's ring had wrapped: it holds the last 61 of the 5000 operations it recorded"
                                + " (JCCL_TRACE_BUFFER keeps more)"),
                a.notes()::toString);
        assertEquals(
                List.of(141L, 142L, 143L, 144L, 145L, 146L, 147L, 148L, 149L, 150L),
                a.timeline().stream().map(TraceAnalysis.TimelineRow::seq).toList());
        assertEquals(
                List.of("started", "started", TraceAnalysis.Cell.ABSENT),
                a.timeline().getLast().cells().stream()
                        .map(TraceAnalysis.Cell::state)
                        .toList());
    }

    @Test
    void aMissingRankIsNamedAndSuspectedWhenTheOthersWait() {
        for (int r = 0; r < 3; r++) {
            DumpFile.rank(r, 4).allReduces(0, 4).running(5, "AllReduce").writeTo(dir);
        }

        TraceAnalysis a = analyse(10);

        assertEquals(List.of(0, 1, 2), a.ranks());
        assertEquals(List.of(3), a.missingRanks());
        assertEquals(TraceAnalysis.Behind.LEVEL, a.behind().status());
        assertEquals(
                "ranks 0, 1, 2 are level: each is waiting in #5 AllReduce; rank 3 left no dump: it may be the rank"
                        + " the others wait for",
                a.behind().summary());
        assertTrue(
                TraceText.render(a).contains("  no dump from rank 3 — its process may have died before writing one\n"));
    }

    @Test
    void ranksThatCompletedTheSameCollectivesAreLevel() {
        for (int r = 0; r < 3; r++) DumpFile.rank(r, 3).allReduces(0, 9).writeTo(dir);

        TraceAnalysis a = analyse(10);

        assertEquals(TraceAnalysis.Behind.LEVEL, a.behind().status());
        assertEquals(List.of(), a.behind().ranks());
        assertEquals(
                "all ranks are level: each last completed #9 AllReduce and none is in a later collective",
                a.behind().summary());
        assertEquals(
                "no disagreement in the 10 collective operations every dump holds (#0–#9)",
                a.agreement().summary());
    }

    @Test
    void aRankStillInACollectiveTheOthersCompletedIsBehind() {
        // A Broadcast's root may finish before a receiver: the receiver is the one still in it.
        DumpFile.rank(0, 3)
                .allReduces(0, 3)
                .completed(4, "Broadcast")
                .running(5, "AllReduce")
                .writeTo(dir);
        DumpFile.rank(1, 3).allReduces(0, 3).running(4, "Broadcast").writeTo(dir);
        DumpFile.rank(2, 3)
                .allReduces(0, 3)
                .completed(4, "Broadcast")
                .running(5, "AllReduce")
                .writeTo(dir);

        TraceAnalysis a = analyse(10);

        assertEquals(List.of(1), a.behind().ranks());
        assertEquals(4L, a.behind().stuckInSeq());
        assertNull(a.behind().neverStartedSeq());
        assertEquals(
                "rank 1 is behind: it is still in #4 Broadcast (running 5.0s at dump time), which ranks 0, 2"
                        + " completed; ranks 0, 2 are waiting in #5 AllReduce",
                a.behind().summary());
    }

    @Test
    void theRankBehindIsSaidToBeInItsPointToPointOperation() {
        DumpFile.rank(0, 2).allReduces(0, 2).running(3, "AllReduce").writeTo(dir);
        DumpFile.rank(1, 2)
                .allReduces(0, 2)
                .pointToPoint(7, "Recv", 0, DumpFile.T0 + 3_000_000, null, "started")
                .writeTo(dir);

        TraceAnalysis a = analyse(10);

        assertEquals(
                "rank 1 is behind: it last completed #2 AllReduce and never started #3 AllReduce, which rank 0 is"
                        + " waiting in; rank 1 is in point-to-point #7 Recv (10 × INT32, peer 0), running 2.0s at"
                        + " dump time",
                a.behind().summary());
        assertEquals("point-to-point #7 Recv", label(a.rankStates().get(1).inFlight()));
    }

    @Test
    void failedOperationsAreListedAndShownInTheTimeline() {
        DumpFile.rank(0, 2).allReduces(0, 1).failed(2, "AllReduce", 2_000_000).writeTo(dir);
        DumpFile.rank(1, 2).allReduces(0, 1).writeTo(dir);

        TraceAnalysis a = analyse(2);

        assertEquals(
                List.of(new TraceAnalysis.Step(
                        2, "AllReduce", true, "AllReduce (1024 × FLOAT32, SUM)", "failed", 2_000_000)),
                a.rankStates().get(0).failed());
        assertEquals(
                "rank 1 is behind: it last completed #1 AllReduce and never started #2 AllReduce, which rank 0"
                        + " failed in",
                a.behind().summary());
        assertEquals(
                List.of("ok 12µs", "ok 12µs", "FAILED 2.0s", "-"),
                a.timeline().stream()
                        .flatMap(row -> row.cells().stream())
                        .map(TraceText::cell)
                        .toList());
    }

    @Test
    void theVerdictIsShownOnceWhenAllAgreeAndSideBySideWhenNot() {
        String v = "Root cause (decided by rank 0): rank 1 never entered AllReduce #2";
        DumpFile.rank(0, 3).allReduces(0, 1).verdict(v).writeTo(dir);
        DumpFile.rank(1, 3).allReduces(0, 1).verdict(v).writeTo(dir);
        DumpFile.rank(2, 3).allReduces(0, 1).verdict(v).writeTo(dir);
        TraceAnalysis same = analyse(10);
        assertEquals(v, same.verdict().agreed());
        assertTrue(TraceText.render(same).contains("verdict (the same in every dump)\n  " + v + "\n"));

        DumpFile.rank(2, 3)
                .allReduces(0, 1)
                .verdict("Root cause (decided by rank 2): something else")
                .writeTo(dir);
        TraceAnalysis split = analyse(10);
        assertNull(split.verdict().agreed());
        assertTrue(
                TraceText.render(split)
                        .contains("verdict: the dumps disagree\n  ranks 0, 1: " + v + "\n  rank 2: Root cause (decided"
                                + " by rank 2): something else\n"),
                TraceText.render(split));

        DumpFile.rank(2, 3).allReduces(0, 1).writeTo(dir);
        TraceAnalysis partly = analyse(10);
        assertEquals(v, partly.verdict().agreed());
        assertEquals(List.of(2), partly.verdict().ranksWithout());
        assertTrue(TraceText.render(partly).contains("verdict (carried by ranks 0, 1; rank 2's dump has none)\n"));
    }

    private static String label(TraceAnalysis.Step s) {
        return (s.collective() ? "#" : "point-to-point #") + s.seq() + " " + s.op();
    }

    /** A dump of each rank: AllReduces #from to #seq - 1 completed, then still in {@code opOfRank[rank]} #seq. */
    private void dumpsOfRanksRunning(long from, long seq, String... opOfRank) {
        for (int r = 0; r < opOfRank.length; r++) {
            DumpFile.rank(r, opOfRank.length)
                    .allReduces(from, seq - 1)
                    .running(seq, opOfRank[r])
                    .writeTo(dir);
        }
    }

    private TraceAnalysis analyse(int last) {
        return TraceAnalysis.of(TraceFiles.readDirectory(dir).dumps(), last);
    }
}
