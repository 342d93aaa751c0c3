package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.TestRanks.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code abort()} releases every waiter of every local rank: a process holds ranks 0 to 2 of four (as a process with
 * one rank per GPU does), rank 3 never comes, and ranks 0 to 2 wait in an AllReduce (rank 0 with two more queued behind
 * it), each waited on by its own thread, with a 60 s deadline. A watchdog thread aborts the three local communicators:
 * every one of those waits must end with an error long before the deadline. The times are printed (the issue asks for
 * under a second); the bound asserted leaves room for a loaded CI machine.
 *
 * <p>And when only rank 0 aborts, the ranks of the same collective learn of it long before their deadline, even one
 * that is waiting on another rank (rank 3) at the time: over shared memory, where every rank's page shows it. Not yet
 * over TCP: there ranks 1 and 2 wait to connect to the absent rank 3 and hear of rank 0's abort only at the deadline
 * (it closes its sockets, but they have none open to it yet); a notice over the control channel would fix that.
 */
@Timeout(120)
class AbortTest {
    private static final double BOUND_SECONDS = 5;

    @ParameterizedTest
    @EnumSource(Link.class)
    void abortReleasesEveryWaiterOfEveryLocalRank(Link link) throws Exception {
        run(link, true);
    }

    @ParameterizedTest
    @EnumSource(value = Link.class, names = "SHM") // TCP: see the class comment
    void oneRanksAbortReleasesTheOtherRanksOfTheCollective(Link link) throws Exception {
        run(link, false);
    }

    /**
     * Abort and close may come from two threads at once (a watchdog aborts while the owner closes; Spark's kill
     * listener while the task ends): exactly one of them releases, and neither throws. Twenty rounds per link, each
     * rank's two calls released together by a barrier.
     */
    @ParameterizedTest
    @EnumSource(Link.class)
    void abortAndCloseRacingFromTwoThreadsNeitherThrows(Link link) throws Exception {
        for (int round = 0; round < 20; round++) {
            List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(30)), (rank, c) -> {
                int[] one = {1};
                c.allReduce(one, ReduceOp.SUM);
                CyclicBarrier together = new CyclicBarrier(2);
                // Threads of their own: the common pool has a single worker on a 2-core machine.
                CompletableFuture<Void> abort = new CompletableFuture<>();
                CompletableFuture<Void> close = new CompletableFuture<>();
                Thread.ofPlatform().start(() -> race(together, c::abort, abort));
                Thread.ofPlatform().start(() -> race(together, c::close, close));
                abort.get(30, TimeUnit.SECONDS);
                close.get(30, TimeUnit.SECONDS);
                return one[0];
            });
            assertEquals(List.of(2, 2), results, "round " + round + " over " + link + ": " + results);
        }
    }

    private static void race(CyclicBarrier together, Runnable call, CompletableFuture<Void> outcome) {
        try {
            together.await(30, TimeUnit.SECONDS);
            call.run();
            outcome.complete(null);
        } catch (Throwable e) {
            outcome.completeExceptionally(e);
        }
    }

    private static void run(Link link, boolean abortEveryLocalRank) throws Exception {
        CountDownLatch waiting = new CountDownLatch(3);
        CountDownLatch done = new CountDownLatch(3);
        long[] abortedAt = new long[1];
        dev.jccl.Communicator[] local = new dev.jccl.Communicator[3];
        List<Object> results = TestRanks.run(4, link.config(Duration.ofSeconds(60)), (rank, c) -> {
            if (rank == 3) {
                done.await(90, TimeUnit.SECONDS); // never calls the AllReduce
                return "absent";
            }
            local[rank] = c;
            List<CompletableFuture<Void>> queued = new ArrayList<>();
            float[] a = new float[1000];
            float[] b = new float[1000];
            float[] d = new float[1000];
            CompletableFuture<Void> first = c.allReduceAsync(a, ReduceOp.SUM);
            if (rank == 0) {
                queued.add(c.allReduceAsync(b, ReduceOp.SUM));
                queued.add(c.allReduceAsync(d, ReduceOp.SUM));
                Thread.ofPlatform().start(() -> {
                    try {
                        waiting.await(30, TimeUnit.SECONDS);
                        Thread.sleep(500); // all are blocked by now
                        abortedAt[0] = System.nanoTime();
                        if (abortEveryLocalRank) {
                            for (dev.jccl.Communicator l : local) l.abort();
                        } else {
                            c.abort();
                        }
                    } catch (InterruptedException ignored) {
                        // the test is over
                    }
                });
            }
            waiting.countDown();
            List<Double> released = new ArrayList<>();
            for (CompletableFuture<Void> f : concat(first, queued)) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                    return "an operation completed without rank 3";
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof JcclException)) throw e;
                    released.add((System.nanoTime() - abortedAt[0]) / 1e9);
                }
            }
            done.countDown();
            return released;
        });
        assertEquals("absent", results.get(3));
        for (int r = 0; r < 3; r++) {
            Object res = results.get(r);
            if (res instanceof Throwable t) throw new AssertionError("rank " + r, t);
            @SuppressWarnings("unchecked")
            List<Double> released = (List<Double>) assertInstanceOf(List.class, res, "rank " + r + ": " + res);
            assertEquals(r == 0 ? 3 : 1, released.size());
            System.out.printf(
                    "%s: rank %d's %d waiter(s) released %s s after %s abort()%n",
                    link,
                    r,
                    released.size(),
                    released.stream().map(s -> String.format("%.3f", s)).toList(),
                    abortEveryLocalRank ? "every local rank's" : "rank 0's");
            for (double s : released) assertTrue(s < BOUND_SECONDS, "rank " + r + " released only after " + s + " s");
        }
    }

    private static List<CompletableFuture<Void>> concat(
            CompletableFuture<Void> first, List<CompletableFuture<Void>> more) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        all.add(first);
        all.addAll(more);
        return all;
    }
}
