package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code shrink()} in one JVM: the survivors of an aborted communicator make a new one that computes correctly; and
 * every misuse gets a clear error, without a hang. Killed ranks in their own JVMs are {@link VerdictTest}'s.
 */
@Timeout(120)
class ShrinkTest {
    private static final Config CONFIG = TestRanks.loopback(Duration.ofSeconds(5));

    @Test
    void afterAnAbortEveryRankShrinksIntoOneCommunicatorThatComputes() throws Exception {
        List<Object> results = TestRanks.run(3, CONFIG, (rank, c) -> {
            c.allReduce(new int[] {1}, ReduceOp.SUM);
            c.abort();
            try (Communicator s = c.shrink()) {
                int[] ranks = new int[s.size()];
                s.allGather(new int[] {rank}, ranks);
                long[] sum = {rank + 1L};
                s.allReduce(sum, ReduceOp.SUM);
                return new int[] {s.rank(), s.size(), ranks[0], ranks[1], ranks[2], (int) sum[0]};
            }
        });
        for (int r = 0; r < 3; r++) {
            Object res = results.get(r);
            if (res instanceof Throwable t) throw new AssertionError("rank " + r, t);
            assertArrayEquals(new int[] {r, 3, 0, 1, 2, 6}, (int[]) res, "rank " + r);
        }
    }

    @Test
    void leavingOutARankRenumbersTheRestInTheirOldOrder() throws Exception {
        List<Object> results = TestRanks.run(4, CONFIG, (rank, c) -> {
            c.abort();
            if (rank == 1) return "left out";
            try (Communicator s = ((RuntimeCommunicator) c).shrinkExcluding(Set.of(1))) {
                int[] old = new int[s.size()];
                s.allGather(new int[] {rank}, old);
                double[] x = {rank};
                s.allReduce(x, ReduceOp.MAX);
                return s.rank() + ":" + s.size() + ":" + old[0] + old[1] + old[2] + ":" + x[0];
            }
        });
        assertEquals(List.of("0:3:023:3.0", "left out", "1:3:023:3.0", "2:3:023:3.0"), results);
    }

    @Test
    void ranksThatLeaveOutDifferentRanksGetAnErrorNotTwoCommunicators() throws Exception {
        List<Object> results = TestRanks.run(3, CONFIG, (rank, c) -> {
            c.abort();
            return ((RuntimeCommunicator) c).shrinkExcluding(rank == 2 ? Set.of(1) : Set.of());
        });
        for (int r = 0; r < 3; r++) {
            if (r == 1) continue; // it joined too, expecting to be a member; it gets the same refusal
            JcclException e = assertInstanceOf(JcclException.class, results.get(r), "rank " + r);
            assertTrue(e.getMessage().contains("disagree on which ranks failed"), e.getMessage());
            assertTrue(e.getMessage().contains("rank 2 leaves out [1]"), e.getMessage());
        }
    }

    /**
     * Two halves that each believe the other failed (a partition): the half with rank 0 goes on, the other refuses, so
     * there is never a second communicator.
     */
    @Test
    void ofTwoHalvesOnlyTheOneWithRankZeroGoesOn() throws Exception {
        List<Object> results = TestRanks.run(4, CONFIG, (rank, c) -> {
            c.abort();
            Set<Integer> otherSide = rank < 2 ? Set.of(2, 3) : Set.of(0, 1);
            try (Communicator s = ((RuntimeCommunicator) c).shrinkExcluding(otherSide)) {
                return "rank " + s.rank() + " of " + s.size();
            }
        });
        assertEquals("rank 0 of 2", results.get(0));
        assertEquals("rank 1 of 2", results.get(1));
        for (int r = 2; r < 4; r++) {
            JcclException e = assertInstanceOf(JcclException.class, results.get(r), "rank " + r);
            assertTrue(
                    e.getMessage()
                            .contains("only 2 of 4 ranks [2, 3] take part, not a majority (half, without " + "rank 0)"),
                    e.getMessage());
        }
    }

    @Test
    void misuseIsRefusedAtOnce() throws Exception {
        List<Object> results = TestRanks.run(2, CONFIG, (rank, c) -> {
            JcclException healthy = assertThrows(JcclException.class, c::shrink);
            assertTrue(healthy.getMessage().contains("nothing has failed here"), healthy.getMessage());
            assertTrue(healthy.getMessage().contains("split(color, key)"), healthy.getMessage());
            c.abort();
            try (Communicator s = c.shrink()) {
                assertEquals(2, s.size());
            }
            JcclException twice = assertThrows(JcclException.class, c::shrink);
            assertTrue(twice.getMessage().contains("already called"), twice.getMessage());
            c.close();
            JcclException closed = assertThrows(JcclException.class, c::shrink);
            assertTrue(closed.getMessage().contains("closed communicator"), closed.getMessage());
            return "ok";
        });
        assertEquals(List.of("ok", "ok"), results);
    }

    @Test
    void aSurvivorThatNeverComesIsLeftOutAtTheDeadline() throws Exception {
        Config quick = TestRanks.loopback(Duration.ofSeconds(2));
        CountDownLatch lateOneAnswered = new CountDownLatch(1);
        List<Object> results = TestRanks.run(3, quick, (rank, c) -> {
            c.abort();
            if (rank == 2) {
                Thread.sleep(4_000); // past the deadline: the others go on without it
                String refusal = assertThrows(JcclException.class, c::shrink).getMessage();
                lateOneAnswered.countDown();
                return refusal;
            }
            try (Communicator s = c.shrink()) {
                int[] one = {1};
                s.allReduce(one, ReduceOp.SUM);
                // The coordinator's old communicator must still be open to tell the late rank it is out.
                assertTrue(lateOneAnswered.await(30, TimeUnit.SECONDS));
                return s.size() + "/" + one[0];
            }
        });
        // Every rank's outcome in the message: a failure on one rank is often explained by another's.
        assertEquals("2/2", results.get(0), results::toString);
        assertEquals("2/2", results.get(1), results::toString);
        assertTrue(((String) results.get(2)).contains("not a member"), results::toString);
    }
}
