package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The progress thread's queue: tasks in order, and a caller held back while too many wait. */
@Timeout(60)
class ProgressThreadTest {

    @Test
    void tasksRunInTheOrderTheyWereSubmitted() throws Exception {
        try (ProgressThread t = new ProgressThread("test-progress")) {
            List<Integer> ran = new ArrayList<>();
            CompletableFuture<Void> last = new CompletableFuture<>();
            for (int i = 0; i < 5000; i++) {
                int n = i;
                t.submit(() -> ran.add(n));
            }
            t.submit(() -> last.complete(null));
            last.get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 5000; i++) assertEquals(i, ran.get(i));
        }
    }

    @Test
    void aCallerWaitsForRoomWhileTheQueueIsFullAndGoesOnOnceEveryTaskHasRun() throws Exception {
        try (ProgressThread t = new ProgressThread("test-progress")) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(1);
            t.submit(() -> {
                blocking.countDown();
                awaitQuietly(gate);
            });
            assertTrue(blocking.await(30, TimeUnit.SECONDS));
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < ProgressThread.MAX_QUEUED; i++) t.submit(ran::incrementAndGet);

            CountDownLatch returned = new CountDownLatch(1);
            Thread caller = new Thread(() -> {
                t.awaitRoom(TimeUnit.SECONDS.toNanos(30));
                returned.countDown();
            });
            caller.start();
            assertFalse(returned.await(300, TimeUnit.MILLISECONDS), "returned while the queue was full");

            gate.countDown();
            assertTrue(returned.await(30, TimeUnit.SECONDS), "still waiting after the queue drained");
            assertEquals(ProgressThread.MAX_QUEUED, ran.get(), "returned before every queued task had run");
            caller.join(30_000);
        }
    }

    @Test
    void theWaitForRoomEndsAtItsDeadlineAndNeverHoldsBackTheProgressThreadItself() throws Exception {
        try (ProgressThread t = new ProgressThread("test-progress")) {
            CountDownLatch gate = new CountDownLatch(1);
            CompletableFuture<Long> fromProgressThread = new CompletableFuture<>();
            t.submit(() -> {
                awaitQuietly(gate);
                long start = System.nanoTime();
                t.awaitRoom(TimeUnit.SECONDS.toNanos(30)); // the queue is still full here
                fromProgressThread.complete(System.nanoTime() - start);
            });
            for (int i = 0; i < ProgressThread.MAX_QUEUED; i++) t.submit(() -> {});

            long start = System.nanoTime();
            t.awaitRoom(TimeUnit.MILLISECONDS.toNanos(200));
            long waited = System.nanoTime() - start;
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(200), "returned early, after " + waited + " ns");

            gate.countDown();
            long progressWaited = fromProgressThread.get(30, TimeUnit.SECONDS);
            assertTrue(
                    progressWaited < TimeUnit.SECONDS.toNanos(10),
                    "the progress thread waited for room it alone can make: " + progressWaited + " ns");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
