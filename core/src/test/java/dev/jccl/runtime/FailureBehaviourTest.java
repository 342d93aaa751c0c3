package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.PeerFailedException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.TestRanks.Link;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What happens when ranks disagree, stall, or go away: a clear error, never a hang; over shared memory and over TCP.
 */
@Timeout(120)
class FailureBehaviourTest {

    @ParameterizedTest
    @EnumSource(Link.class)
    void differentCollectivesAtTheSameStepAreDescribedBothWays(Link link) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[100];
            if (rank == 0) c.allReduce(x, ReduceOp.SUM);
            else c.broadcast(x, 0);
            return "no error";
        });
        // Rank 1 reads rank 0's AllReduce chunk (TCP) or slot (shared memory) where it expects a Broadcast's.
        Throwable r1 = assertInstanceOf(JcclException.class, results.get(1));
        assertTrue(r1.getMessage().contains("called different operations"), r1.getMessage());
        assertTrue(mentionsAll(r1, "Broadcast #0", "AllReduce #0"), r1.getMessage());
        Throwable r0 = assertInstanceOf(JcclException.class, results.get(0));
        if (link == Link.TCP) {
            // Rank 0 learns of it from the abandon frame rank 1 sends before closing, long before its deadline.
            assertTrue(r0.getMessage().contains("rank 0 lost peer 1"), r0.getMessage());
        }
        // Either way, rank 0 too is told what the two ranks called.
        assertTrue(mentionsAll(r0, "called different operations", "Broadcast #0", "AllReduce #0"), r0.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void differentCollectivesOfAFewBytesAreDescribedBothWays(Link link) throws Exception {
        // 8 bytes: over shared memory the chunk goes to a small record, which holds a digest of the operation only.
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[2];
            if (rank == 0) c.allReduce(x, ReduceOp.SUM);
            else c.broadcast(x, 0);
            return "no error";
        });
        assertEveryRankDescribesBothSides(results, "Broadcast #0", "AllReduce #0");
    }

    /** Over shared memory 1 and 2 floats lie in the chunk header's line, 100 and 101 after it. */
    static Stream<Arguments> linksAndCounts() {
        return Stream.of(Link.values()).flatMap(link -> Stream.of(Arguments.of(link, 1), Arguments.of(link, 100)));
    }

    @ParameterizedTest
    @MethodSource("linksAndCounts")
    void differentCountsAreAMismatchNotCorruption(Link link, int count) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[rank == 0 ? count : count + 1];
            c.allReduce(x, ReduceOp.SUM);
            return "no error";
        });
        assertEveryRankDescribesBothSides(results, count + " × FLOAT32", count + 1 + " × FLOAT32");
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aBroadcastOfAFewBytesWithAnotherCountIsAMismatch(Link link) throws Exception {
        // Over shared memory the root's 4 bytes go to a small record, which holds only a digest of the operation.
        // The root publishes and is done; the reader finds the digest wrong and names both sides.
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            c.broadcast(new float[rank == 0 ? 1 : 2], 0);
            return "no error";
        });
        Throwable r1 = assertInstanceOf(JcclException.class, results.get(1));
        assertTrue(
                mentionsAll(
                        r1, "called different operations", "Broadcast #0 (1 × FLOAT32", "Broadcast #0 (2 × FLOAT32"),
                r1.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aStalledPeerTimesOutNamingItAndTheOperation(Link link) throws Exception {
        long start = System.nanoTime();
        List<Object> results = withAStalledRank(link, 2, 1, (rank, c) -> {
            c.allReduce(new float[10], ReduceOp.SUM); // rank 1 never calls the collective
            return "no error";
        });
        JcclTimeoutException t = assertInstanceOf(JcclTimeoutException.class, results.get(0));
        assertTrue(t.getMessage().contains("AllReduce #0 (10 × FLOAT32, SUM) timed out"), t.getMessage());
        assertTrue(t.getMessage().contains("rank 1 ("), t.getMessage());
        assertTrue((System.nanoTime() - start) / 1e9 < 15, "timed out late");
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aRankThatGoesAwayFailsItsPeersFast(Link link) throws Exception {
        float[][] x = new float[3][1 << 16];
        survivorsOfRank2GoingAway(link, (rank, c) -> c.allReduce(x[rank], ReduceOp.SUM));
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void abortFromAnotherThreadUnblocksAPendingOperation(Link link) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(60)), (rank, c) -> {
            if (rank == 1) {
                // Idle while rank 0 aborts; its next operation must then fail fast, not at the 60 s timeout.
                release.await(30, TimeUnit.SECONDS);
                return allReduceFailingWithin(c, 5, "rank 1 learning of the abort");
            }
            Thread aborter = new Thread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException ignored) {
                    return;
                }
                c.abort();
            });
            aborter.start();
            try {
                return allReduceFailingWithin(c, 10, "the abort");
            } finally {
                release.countDown();
            }
        });
        JcclException e = assertInstanceOf(JcclException.class, results.get(0));
        assertTrue(e.getMessage().contains("aborted"), e.getMessage());
        JcclException peer = assertInstanceOf(JcclException.class, results.get(1));
        assertTrue(peer.getMessage().contains("rank 1") && peer.getMessage().contains("0"), peer.getMessage());
        System.out.println(link + ": the aborted rank's peer was told: " + peer.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aFailedCommunicatorRefusesFurtherWorkAndClosesPromptly(Link link) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(1)), (rank, c) -> {
            if (rank == 1) {
                Thread.sleep(2500);
                return "idle";
            }
            assertThrows(JcclTimeoutException.class, () -> c.allReduce(new float[4], ReduceOp.SUM));
            JcclException next = assertThrows(JcclException.class, () -> c.barrier());
            assertTrue(next.getMessage().contains("failed earlier"), next.getMessage());
            long t0 = System.nanoTime();
            c.close();
            return (System.nanoTime() - t0) / 1e9;
        });
        assertTrue((double) results.get(0) < 1.0, "close took " + results.get(0) + " s");
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void sendRecvAgainstACollectiveIsDescribedBothWays(Link link) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[100];
            if (rank == 0) c.sendRecv(x, 1, new float[100], 1);
            else c.allReduce(x, ReduceOp.SUM);
            return "no error";
        });
        // Rank 1 reads rank 0's Send chunk where it expects an AllReduce chunk, and rank 0 the other way round.
        String all = results.toString();
        assertTrue(all.contains("called different operations"), all);
        assertTrue(
                all.contains("SendRecv #0/#0 (100 × FLOAT32, to 1, from 1)")
                        || all.contains("Send #0 (100 × FLOAT32) step 0"),
                all);
        for (Object r : results) assertInstanceOf(JcclException.class, r);
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void sendRecvWithDifferentCountsIsAMismatchNotCorruption(Link link) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[rank == 0 ? 100 : 101];
            c.sendRecv(x, 1 - rank, x, 1 - rank);
            return "no error";
        });
        assertEveryRankDescribesBothSides(results, "SendRecv #0/#0", "100 × FLOAT32", "101 × FLOAT32");
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aSendRecvWhosePeerNeverSendsTimesOutNamingBothHalves(Link link) throws Exception {
        List<Object> results = withAStalledRank(link, 3, 2, (rank, c) -> {
            if (rank == 0) {
                c.sendRecv(new float[10], 1, new float[10], 2);
                return "no error";
            }
            c.recv(new float[10], 0); // rank 1 takes the send half; rank 2 never sends
            return "received";
        });
        assertEquals("received", results.get(1));
        JcclTimeoutException t = assertInstanceOf(JcclTimeoutException.class, results.get(0));
        assertTrue(t.getMessage().contains("SendRecv #0/#0 (10 × FLOAT32, to 1, from 2) timed out"), t.getMessage());
        assertTrue(t.getMessage().contains("rank 2 ("), t.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aRankThatGoesAwayFailsItsSendRecvPeersFast(Link link) throws Exception {
        float[][] out = new float[3][1 << 18];
        float[][] in = new float[3][1 << 18];
        List<JcclException> survivors = survivorsOfRank2GoingAway(
                link, (rank, c) -> c.sendRecv(out[rank], (rank + 1) % 3, in[rank], (rank + 2) % 3));
        for (JcclException e : survivors) assertTrue(e.getMessage().contains("SendRecv #"), e.getMessage());
    }

    /**
     * An AllReduce that must fail, and fast: its failure, or an AssertionError saying that {@code what} took longer
     * than {@code seconds}; "no error" if it succeeds.
     */
    private static Object allReduceFailingWithin(Communicator c, double seconds, String what) {
        long t0 = System.nanoTime();
        try {
            c.allReduce(new float[10], ReduceOp.SUM);
            return "no error";
        } catch (JcclException e) {
            double s = (System.nanoTime() - t0) / 1e9;
            return s < seconds ? e : new AssertionError(what + " took " + s + " s", e);
        }
    }

    /**
     * Runs {@code work} on every rank but {@code stalled}, which calls nothing: it waits, answering "idle", until the
     * others have finished (or 30 s), so that they meet a peer that stalls, not one that has gone. Operations time out
     * after 2 s.
     */
    private static List<Object> withAStalledRank(Link link, int ranks, int stalled, TestRanks.RankBody<Object> work)
            throws Exception {
        CountDownLatch done = new CountDownLatch(ranks - 1);
        return TestRanks.run(ranks, link.config(Duration.ofSeconds(2)), (rank, c) -> {
            if (rank == stalled) {
                done.await(30, TimeUnit.SECONDS);
                return "idle";
            }
            try {
                return work.run(rank, c);
            } finally {
                done.countDown();
            }
        });
    }

    private interface Step {
        void run(int rank, Communicator c) throws Exception;
    }

    /**
     * Three ranks repeat {@code step} until rank 2 leaves before its sixth, aborting as if its process died (its
     * sockets close); ranks 0 and 1 must fail well before the 60 s timeout, saying they lost a peer. Returns their
     * failures.
     */
    private static List<JcclException> survivorsOfRank2GoingAway(Link link, Step step) throws Exception {
        Config config = link.config(Duration.ofSeconds(60));
        long start = System.nanoTime();
        List<Object> results = TestRanks.run(3, config, (rank, c) -> {
            for (int i = 0; ; i++) {
                if (rank == 2 && i == 5) {
                    c.abort();
                    return "left";
                }
                step.run(rank, c);
            }
        });
        assertEquals("left", results.get(2));
        List<JcclException> survivors = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            JcclException e = assertInstanceOf(JcclException.class, results.get(r));
            assertTrue(e instanceof PeerFailedException || e.getMessage().contains("lost peer"), e.getMessage());
            survivors.add(e);
        }
        assertTrue((System.nanoTime() - start) / 1e9 < 20, "peers must fail long before the 60 s timeout");
        return survivors;
    }

    /** Every rank failed with a mismatch whose message describes both sides: it mentions each of {@code sides}. */
    private static void assertEveryRankDescribesBothSides(List<Object> results, String... sides) {
        for (Object r : results) {
            Throwable t = assertInstanceOf(JcclException.class, r);
            assertTrue(
                    mentionsAll(t, "called different operations") && mentionsAll(t, sides),
                    "every rank describes both sides: " + t.getMessage());
        }
    }

    private static boolean mentionsAll(Throwable t, String... texts) {
        for (String text : texts) {
            if (!t.getMessage().contains(text)) return false;
        }
        return true;
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void badArgumentsThrowBeforeAnythingMovesAndTheCommunicatorStaysUsable(Link link) throws Exception {
        List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(20)), (rank, c) -> {
            MemorySegment small = MemorySegment.ofArray(new float[3]);
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> c.allReduce(small, small, 4, DataType.FLOAT32, ReduceOp.SUM));
            assertTrue(e.getMessage().contains("holds 12 bytes but 4 × FLOAT32 needs 16"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> c.broadcast(small, small, -1, DataType.FLOAT32, 0));
            assertThrows(IllegalArgumentException.class, () -> c.broadcast(small, small, 1, DataType.FLOAT32, 2));
            assertThrows(IllegalArgumentException.class, () -> c.send(small, 1, DataType.FLOAT32, rank));
            IllegalArgumentException oneWay = assertThrows(
                    IllegalArgumentException.class,
                    () -> c.sendRecv(small, rank, MemorySegment.ofArray(new float[3]), 1 - rank, 1, DataType.FLOAT32));
            assertTrue(
                    oneWay.getMessage()
                            .contains("sendPeer " + rank + " is this rank but recvPeer " + (1 - rank) + " is not"),
                    oneWay.getMessage());
            IllegalArgumentException overlap = assertThrows(
                    IllegalArgumentException.class,
                    () -> c.sendRecv(
                            small.asSlice(0, 8), 1 - rank, small.asSlice(4, 8), 1 - rank, 2, DataType.FLOAT32));
            assertTrue(overlap.getMessage().contains("overlap"), overlap.getMessage());
            float[] x = {rank + 1};
            c.allReduce(x, ReduceOp.SUM);
            return x[0];
        });
        assertEquals(List.of(3.0f, 3.0f), results);
    }
}
