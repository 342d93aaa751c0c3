package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A short LL call that ended at once lets the next take its start time instead of reading the clock (see
 * {@link Sequencer#CLOCK_REUSE_MAX}). That start may lie long before the call: the program may have computed for
 * minutes in between. A call that then waits must count its timeout from its own start, not from the earlier one.
 */
@Timeout(60)
class ReusedStartTimeTest {

    @Test
    void aCallAfterAPauseLongerThanTheTimeoutStillGetsItsWholeTimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        List<Object> results = TestRanks.run(2, TestRanks.loopback(timeout), (rank, c) -> {
            float[] x = {rank + 1f, 1f};
            for (int i = 0; i < 20; i++) c.allReduce(x, ReduceOp.SUM); // 8 bytes over the LL protocol, at once
            // Both ranks pause past the timeout; rank 1 a little longer, so that rank 0's next call waits.
            Thread.sleep(timeout.toMillis() + (rank == 1 ? 1500 : 500));
            float[] y = {rank + 1f, 2f};
            long start = System.nanoTime();
            c.allReduce(y, ReduceOp.SUM);
            double waited = (System.nanoTime() - start) / 1e9;
            return y[0] + "," + y[1] + "," + (rank == 0 ? waited > 0.5 : "-");
        });
        assertEquals("3.0,4.0,true", results.get(0), "rank 0 waited for rank 1 and did not time out");
        assertEquals("3.0,4.0,-", results.get(1));
    }

    @Test
    void anAsyncCallAfterSuchAPauseToo() throws Exception {
        // Async: the call starts on the caller's thread, spins, and hands the rest to the progress thread.
        Duration timeout = Duration.ofSeconds(2);
        List<Object> results = TestRanks.run(2, TestRanks.loopback(timeout), (rank, c) -> {
            float[] x = {rank + 1f, 1f};
            for (int i = 0; i < 20; i++) c.allReduceAsync(x, ReduceOp.SUM).join();
            Thread.sleep(timeout.toMillis() + (rank == 1 ? 1500 : 500));
            float[] y = {rank + 1f, 2f};
            c.allReduceAsync(y, ReduceOp.SUM).join();
            return y[0] + "," + y[1];
        });
        assertEquals(List.of("3.0,4.0", "3.0,4.0"), results);
    }

    /**
     * Where ranks share CPUs an async call yields its CPU while it waits for its peers, for a while only: it still
     * returns long before a late peer comes, and the progress thread finishes it with its whole timeout.
     */
    @Test
    void anAsyncCallOfRanksThatShareCpusReturnsBeforeItsLatePeerAndFinishesLater() throws Exception {
        Duration timeout = Duration.ofSeconds(10);
        Config shared = TestRanks.loopback(timeout).toBuilder()
                .oversubscription(Config.Oversubscription.YES)
                .proto("LL") // the tuner's pick for 2 ranks that share CPUs is a ring
                .build();
        List<Object> results = TestRanks.run(2, shared, (rank, c) -> {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment x = arena.allocate(8); // 8 bytes: over the LL protocol
                for (int i = 0; i < 20; i++) {
                    c.broadcastAsync(x, x, 1, DataType.INT64, 1).join();
                }
                Thread.sleep(rank == 1 ? 2500 : 500); // the root, rank 1, comes 2 s late
                x.set(ValueLayout.JAVA_LONG, 0, rank == 1 ? 42 : 0);
                long start = System.nanoTime();
                CompletableFuture<Void> f = c.broadcastAsync(x, x, 1, DataType.INT64, 1);
                double returnedAfter = (System.nanoTime() - start) / 1e9;
                f.join();
                return x.get(ValueLayout.JAVA_LONG, 0) + "," + (rank == 0 ? returnedAfter < 1.0 : "-");
            }
        });
        assertEquals("42,true", results.get(0), "rank 0's call returned before the root came, and finished");
        assertEquals("42,-", results.get(1));
    }
}
