package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.time.Duration;
import java.util.List;
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
}
