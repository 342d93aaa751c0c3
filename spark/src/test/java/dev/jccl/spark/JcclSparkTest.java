package dev.jccl.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.ReduceOp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.SparkException;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskKilledException;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jccl inside real Spark barrier stages, in local mode: four task threads of this JVM are the four ranks.
 * {@code local[4,4]} lets a task fail up to four times, so that a failed barrier stage is retried as on a cluster
 * (plain {@code local[4]} gives up after one failure).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class JcclSparkTest {
    private static final int RANKS = 4;
    private static JavaSparkContext spark;

    /** What tasks saw, by test; local mode runs them in this JVM, so a static collection reaches them. */
    static final Map<String, Throwable> FIRST_ATTEMPT_FAILURES = new ConcurrentHashMap<>();

    static final AtomicBoolean RELEASE_RANK_3 = new AtomicBoolean();

    static final AtomicLong RANK_2_FAILED_AT = new AtomicLong();

    static final AtomicLong LAST_FAILURE_AT = new AtomicLong();

    static final Set<Integer> ENTERED = ConcurrentHashMap.newKeySet();

    static final ConcurrentLinkedQueue<Communicator> OPENED = new ConcurrentLinkedQueue<>();

    @BeforeAll
    static void startSpark() {
        spark = SparkSessions.start("local[" + RANKS + "," + RANKS + "]", "JcclSparkTest");
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) spark.close();
    }

    @Test
    void ranksArePartitionIdsAndCollectivesMatchAReference() {
        int count = 1009; // prime: not a multiple of any chunk
        List<double[]> sums = JcclSpark.run(spark, RANKS, comm -> {
            BarrierTaskContext task = BarrierTaskContext.get();
            if (comm.rank() != task.partitionId() || comm.size() != RANKS) {
                throw new AssertionError(
                        "rank " + comm.rank() + "/" + comm.size() + " in partition " + task.partitionId());
            }
            double[] x = input(comm.rank(), count);
            comm.allReduce(x, ReduceOp.SUM);
            return x;
        });

        double[] expected = new double[count];
        for (int r = 0; r < RANKS; r++) {
            double[] x = input(r, count);
            for (int i = 0; i < count; i++) expected[i] += x[i];
        }
        assertEquals(RANKS, sums.size());
        for (int r = 0; r < RANKS; r++) {
            assertArrayEquals(expected, sums.get(r), 1e-9, "rank " + r + "'s AllReduce result");
        }

        List<long[]> gathered = JcclSpark.run(spark, RANKS, comm -> {
            long[] all = new long[comm.size()];
            all[comm.rank()] = 1000L + comm.rank();
            comm.allGather(new long[] {1000L + comm.rank()}, all);
            return all;
        });
        for (long[] all : gathered) assertArrayEquals(new long[] {1000, 1001, 1002, 1003}, all);
    }

    @Test
    void theCommunicatorIsClosedWhenTheTaskEnds() {
        OPENED.clear();
        List<Integer> ranks = spark.parallelize(List.of(0, 1, 2, 3), RANKS)
                .rdd()
                .barrier()
                .mapPartitions(new OpenAndLeave(), false, scala.reflect.ClassTag$.MODULE$.apply(Integer.class))
                .toJavaRDD()
                .collect();
        assertEquals(List.of(0, 1, 2, 3), ranks);
        assertEquals(RANKS, OPENED.size());
        for (Communicator comm : OPENED) {
            JcclException e = assertThrows(JcclException.class, () -> comm.allReduce(new int[1], ReduceOp.SUM));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    /** What a barrier stage's tasks run on their partition's rows: serializable, so that Spark can ship it. */
    abstract static class PartitionTask
            extends scala.runtime.AbstractFunction1<
                    scala.collection.Iterator<Integer>, scala.collection.Iterator<Integer>>
            implements java.io.Serializable {}

    /** Opens a communicator and returns without closing it: the task's completion listener must. */
    static final class OpenAndLeave extends PartitionTask {
        @Override
        public scala.collection.Iterator<Integer> apply(scala.collection.Iterator<Integer> rows) {
            Communicator comm = JcclSpark.communicator(BarrierTaskContext.get());
            OPENED.add(comm);
            int[] one = {1};
            comm.allReduce(one, ReduceOp.SUM);
            return scala.package$.MODULE$.Iterator().single(comm.rank() * one[0] / RANKS);
        }
    }

    /**
     * The promise to Spark users: one task that dies fails its whole gang at once (not after Jccl's ten-minute
     * timeout), and Spark's barrier retry then runs every rank again, to the right answer.
     */
    @Test
    void aFailedTaskFailsItsGangAndSparkRetriesTheStage() {
        FIRST_ATTEMPT_FAILURES.clear();
        LAST_FAILURE_AT.set(0);
        List<Double> sums = JcclSpark.run(spark, RANKS, comm -> {
            boolean firstAttempt = TaskContext.get().stageAttemptNumber() == 0;
            if (firstAttempt && comm.rank() == 2) {
                RANK_2_FAILED_AT.set(System.nanoTime());
                throw new IllegalStateException("rank 2 fails on purpose in the stage's first attempt");
            }
            double[] x = {comm.rank() + 1};
            try {
                comm.allReduce(x, ReduceOp.SUM);
            } catch (RuntimeException e) {
                if (firstAttempt) {
                    LAST_FAILURE_AT.accumulateAndGet(System.nanoTime(), Math::max);
                    FIRST_ATTEMPT_FAILURES.put("rank " + comm.rank(), e);
                }
                throw e;
            }
            return x[0];
        });
        assertEquals(List.of(10.0, 10.0, 10.0, 10.0), sums, "the retried stage's AllReduce");
        // Ranks 0, 1 and 3 of the first attempt cannot finish an AllReduce without rank 2: each failed in it, and
        // the failure ended it, not a timeout.
        assertEquals(Set.of("rank 0", "rank 1", "rank 3"), FIRST_ATTEMPT_FAILURES.keySet());
        System.out.printf(
                "rank 2 failed mid-stage: ranks 0, 1, 3 failed in their AllReduce within %.0f ms (Jccl's deadline:"
                        + " 600 s); Spark retried the stage%n",
                (LAST_FAILURE_AT.get() - RANK_2_FAILED_AT.get()) / 1e6);
        assertEachEndedByTheFailureNotATimeout();
    }

    /**
     * Spark kills the tasks of a cancelled job without interrupting their threads; ranks blocked in a collective must
     * still end, because the communicator is aborted when the task is killed.
     */
    @Test
    void cancellingTheJobEndsRanksBlockedInACollective() throws Exception {
        FIRST_ATTEMPT_FAILURES.clear();
        ENTERED.clear();
        RELEASE_RANK_3.set(false);
        ConcurrentLinkedQueue<Throwable> driverSide = new ConcurrentLinkedQueue<>();
        Thread job = Thread.ofPlatform().start(() -> {
            spark.setJobGroup("blocked", "ranks waiting for rank 3", false);
            try {
                JcclSpark.run(spark, RANKS, comm -> {
                    if (comm.rank() == 3) {
                        // Never joins the AllReduce, and keeps its communicator open (closing it would end the
                        // others' wait by itself) until the test has seen ranks 0-2 leave.
                        while (!RELEASE_RANK_3.get()) Thread.sleep(10);
                        return 0.0;
                    }
                    double[] x = {1};
                    ENTERED.add(comm.rank());
                    try {
                        comm.allReduce(x, ReduceOp.SUM);
                    } catch (RuntimeException e) {
                        FIRST_ATTEMPT_FAILURES.put("rank " + comm.rank(), e);
                        throw e;
                    }
                    return x[0];
                });
            } catch (Throwable e) { // SparkException is checked, but JavaSparkContext throws it undeclared
                driverSide.add(e);
            }
        });
        try {
            // Cancel once ranks 0-2 are about to enter their AllReduce (and a moment later, to be inside it).
            awaitUntil(() -> ENTERED.size() == 3, "ranks 0-2 reach their AllReduce");
            Thread.sleep(200);
            long cancelled = System.nanoTime();
            spark.cancelJobGroup("blocked");
            job.join(Duration.ofSeconds(60));
            assertFalse(job.isAlive(), "the cancelled job is still running a minute later");
            assertEquals(1, driverSide.size(), "the driver saw the job fail");
            assertInstanceOf(SparkException.class, driverSide.peek());
            // The driver hears of the cancellation at once; the tasks end on their own threads.
            awaitUntil(
                    () -> FIRST_ATTEMPT_FAILURES.size() == 3,
                    "ranks 0-2 leave their AllReduce: " + FIRST_ATTEMPT_FAILURES);
            System.out.printf(
                    "cancelled job: ranks 0-2 left their AllReduce %.0f ms after the cancel (Jccl's deadline: 600 s)%n",
                    (System.nanoTime() - cancelled) / 1e6);
        } finally {
            // Rank 3's task holds one of the four task slots until it returns; later tests need all four.
            RELEASE_RANK_3.set(true);
        }
        assertEachEndedByTheFailureNotATimeout();
    }

    /**
     * A rank that dies while the others are still joining (after the id went round, before the communicator formed):
     * the others are in Jccl's bootstrap, waiting for it, when Spark kills them. They must leave then, not when the
     * bootstrap times out (ten minutes here), or their task slots stay taken.
     */
    @Test
    void ranksStillJoiningLeaveWhenSparkKillsThem() throws Exception {
        FIRST_ATTEMPT_FAILURES.clear();
        long start = System.nanoTime();
        // The job fails: a barrier result stage is not retried.
        jobFailure(() -> spark.parallelize(List.of(0, 1, 2, 3), RANKS)
                .rdd()
                .barrier()
                .mapPartitions(new DieWhileOthersJoin(), false, scala.reflect.ClassTag$.MODULE$.apply(Integer.class))
                .toJavaRDD()
                .collect());
        awaitUntil(() -> FIRST_ATTEMPT_FAILURES.size() == 3, "ranks 0-2 leave their set-up: " + FIRST_ATTEMPT_FAILURES);
        System.out.printf(
                "rank 3 died while the others joined: the stage failed and ranks 0-2 left %.0f ms after it started"
                        + " (Jccl's deadline: 600 s)%n",
                (System.nanoTime() - start) / 1e6);
        for (var e : FIRST_ATTEMPT_FAILURES.entrySet()) {
            // Spark's kill ended the wait (a Jccl timeout would come ten minutes later, as a JcclTimeoutException).
            assertInstanceOf(TaskKilledException.class, e.getValue(), e.getKey());
        }
    }

    /** Rank 3 takes part in the id's allGather, then throws instead of joining; ranks 0-2 record how they end. */
    static final class DieWhileOthersJoin extends PartitionTask {
        @Override
        public scala.collection.Iterator<Integer> apply(scala.collection.Iterator<Integer> rows) {
            BarrierTaskContext task = BarrierTaskContext.get();
            if (task.partitionId() == 3) {
                task.allGather(""); // the allGather JcclSpark.communicator makes on the other ranks
                throw new IllegalStateException("rank 3 dies after the id went round, before joining");
            }
            try {
                JcclSpark.communicator(task).close();
            } catch (Throwable e) {
                FIRST_ATTEMPT_FAILURES.put("rank " + task.partitionId(), e);
                throw e;
            }
            FIRST_ATTEMPT_FAILURES.put("rank " + task.partitionId(), new AssertionError("joined without rank 3"));
            return scala.package$.MODULE$.Iterator().single(task.partitionId());
        }
    }

    @Test
    void anOrdinaryStageIsRefusedSayingToUseABarrierStage() {
        Throwable e = jobFailure(() -> spark.parallelize(List.of(0, 1), 2)
                .map(x -> JcclSpark.communicator().rank())
                .collect());
        assertTrue(e.getMessage().contains("rdd.barrier().mapPartitions(...) instead of"), e.getMessage());
    }

    @Test
    void aSecondCommunicatorInOneTaskIsRefused() {
        Throwable e = jobFailure(() -> JcclSpark.run(spark, RANKS, comm -> {
            // run() already joined this task's communicator.
            return JcclSpark.communicator(BarrierTaskContext.get()).rank();
        }));
        assertTrue(e.getMessage().contains("already joined a Jccl communicator in this task"), e.getMessage());
    }

    /**
     * Each rank recorded in {@link #FIRST_ATTEMPT_FAILURES} failed with Jccl's error for the failure, not a timeout.
     */
    private static void assertEachEndedByTheFailureNotATimeout() {
        for (var e : FIRST_ATTEMPT_FAILURES.entrySet()) {
            assertInstanceOf(JcclException.class, e.getValue(), e.getKey());
            assertFalse(e.getValue() instanceof JcclTimeoutException, e.getKey() + ": " + e.getValue());
        }
    }

    /** The driver-side failure of {@code job}, which must fail. */
    private static Throwable jobFailure(Runnable job) {
        try {
            job.run();
        } catch (Throwable e) { // SparkException, undeclared
            assertInstanceOf(SparkException.class, e);
            return e;
        }
        throw new AssertionError("the job did not fail");
    }

    @Test
    void misuseIsRefusedWithAnExplanation() {
        IllegalArgumentException noTask =
                assertThrows(IllegalArgumentException.class, () -> JcclSpark.communicator(null));
        assertTrue(noTask.getMessage().contains("barrier"), noTask.getMessage());
        IllegalArgumentException noRanks =
                assertThrows(IllegalArgumentException.class, () -> JcclSpark.run(spark, 0, comm -> 1));
        assertTrue(noRanks.getMessage().contains("ranks"), noRanks.getMessage());
    }

    /** Waits (at most a minute: a deadline, not a measurement) for {@code condition}; fails naming {@code what}. */
    private static void awaitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("waited a minute for: " + what);
            Thread.sleep(20);
        }
    }

    private static double[] input(int rank, int count) {
        Random random = new Random(31L * rank + 7);
        double[] x = new double[count];
        for (int i = 0; i < count; i++) x[i] = random.nextDouble() * 2 - 1;
        return x;
    }
}
