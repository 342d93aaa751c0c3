package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real dumps: three ranks as threads of this JVM (TestRanks, from the core's test jar), rank 1 calling one AllReduce
 * fewer than the others, each rank writing its flight recorder; then {@code jccl trace} on them must name rank 1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraceEndToEndTest {
    @TempDir
    Path dir;

    /** Ranks 0 and 2 are in their fifth AllReduce when every rank calls dumpTrace; rank 1 stopped after four. */
    @Test
    void dumpsTakenWhileTwoRanksWaitNameTheRankThatStayedOut() throws Exception {
        Path dumps = Files.createDirectory(dir.resolve("dumps"));
        Config config = TestRanks.loopback(Duration.ofSeconds(30)).toBuilder()
                .traceBuffer(64)
                .traceDir(dir.resolve("on-failure").toString()) // aborting below must not add dumps to `dumps`
                .build();
        CountDownLatch allDumped = new CountDownLatch(3);
        List<Object> results = TestRanks.run(3, config, (rank, c) -> {
            for (int i = 0; i < (rank == 1 ? 4 : 5); i++) {
                if (rank != 1 && i == 4) {
                    CompletableFuture<Void> waiting = c.allReduceAsync(new float[256], ReduceOp.SUM);
                    dumpOnceStarted(c, dumps.resolve("rank" + rank + ".json"));
                    allDumped.countDown();
                    allDumped.await();
                    c.abort(); // rank 1 will never come: end the wait now rather than at the 30 s deadline
                    return waiting.handle((ok, failure) -> "aborted").get(30, TimeUnit.SECONDS);
                }
                c.allReduce(new float[256], ReduceOp.SUM);
            }
            c.dumpTrace(dumps.resolve("rank1.json"));
            allDumped.countDown();
            allDumped.await(); // stay in the communicator until the others have dumped
            return "stayed out";
        });
        assertEquals(List.of("aborted", "stayed out", "aborted"), results, results::toString);

        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "trace", dumps.toString());

        assertEquals(0, r.code(), r::toString);
        String words = oneLine(r.out());
        assertTrue(words.contains(": dumps from 3 of 3 ranks, written "), r::toString);
        assertTrue(
                words.contains("behind rank 1 is behind: it last completed #3 AllReduce and never started #4"
                        + " AllReduce, which ranks 0, 2 are waiting in"),
                r::toString);
        assertTrue(
                words.contains("no disagreement in the 4 collective operations every dump holds (#0–#3)"), r::toString);
        assertTrue(words.contains("in flight #4 AllReduce (256 × FLOAT32, SUM), running "), r::toString);
        assertTrue(words.contains("verdict none: no dump carries one"), r::toString);

        JsonNode behind = json(dumps).get("communicators").get(0).get("behind");
        assertEquals("[1]", behind.get("ranks").toString(), behind::toString);
        assertEquals(3, behind.get("lastCompletedSeq").asLong(), behind::toString);
        assertEquals(4, behind.get("neverStartedSeq").asLong(), behind::toString);
    }

    /**
     * A real failure: ranks 0 and 2 reach their deadline in an AllReduce that rank 1 never enters, and write their
     * dumps with the verdict into JCCL_TRACE_DIR themselves; rank 1 adds its own with dumpTrace.
     */
    @Test
    void dumpsWrittenOnFailureCarryTheVerdictAndNameTheRankThatStayedOut() throws Exception {
        Config config = TestRanks.loopback(Duration.ofSeconds(2)).toBuilder()
                .traceDir(dir.toString())
                .build();
        CountDownLatch othersFailed = new CountDownLatch(2);
        List<Object> results = TestRanks.run(3, config, (rank, c) -> {
            c.allReduce(new float[10], ReduceOp.SUM);
            c.allReduce(new float[10], ReduceOp.SUM);
            if (rank == 1) {
                assertTrue(othersFailed.await(60, TimeUnit.SECONDS), "ranks 0 and 2 did not fail");
                return c.dumpTrace(dir.resolve("rank1-on-request.json"));
            }
            JcclException e = assertThrows(JcclException.class, () -> c.allReduce(new float[10], ReduceOp.SUM));
            othersFailed.countDown();
            return e;
        });
        assertInstanceOf(JcclException.class, results.get(0), results::toString);
        assertInstanceOf(Path.class, results.get(1), results::toString);
        assertInstanceOf(JcclException.class, results.get(2), results::toString);
        try (var files = Files.list(dir)) {
            assertEquals(3, files.filter(f -> f.toString().endsWith(".json")).count(), "two failure dumps and one");
        }

        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "trace", dir.toString());

        assertEquals(0, r.code(), r::toString);
        String words = oneLine(r.out());
        assertTrue(
                words.contains("behind rank 1 is behind: it last completed #1 AllReduce and never started #2"
                        + " AllReduce, which ranks 0, 2 failed in"),
                r::toString);
        assertTrue(words.contains("verdict (carried by ranks 0, 2; rank 1's dump has none) Root cause"), r::toString);
        assertTrue(words.contains("failed #2 AllReduce (10 × FLOAT32, SUM) after "), r::toString);

        JsonNode comm = json(dir).get("communicators").get(0);
        assertEquals("[1]", comm.get("behind").get("ranks").toString(), comm::toString);
        assertEquals(2, comm.get("behind").get("neverStartedSeq").asLong(), comm::toString);
        assertEquals("[1]", comm.get("verdict").get("ranksWithout").toString(), comm::toString);
    }

    /** The report with every run of white space (line breaks of the wrapped prose, table padding) made one space. */
    private static String oneLine(String report) {
        return report.replaceAll("\\s+", " ");
    }

    private static JsonNode json(Path dir) throws Exception {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "trace", dir.toString(), "--json");
        assertEquals(0, r.code(), r::toString);
        return new ObjectMapper().readTree(r.out());
    }

    /** Dumps until the ring shows the pending operation as started: the executor thread may not have begun it yet. */
    private static void dumpOnceStarted(Communicator c, Path file) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        do {
            c.dumpTrace(file);
            if (Files.readString(file).contains("\"state\": \"started\"")) return;
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("the fifth AllReduce never showed as started in " + file);
    }
}
