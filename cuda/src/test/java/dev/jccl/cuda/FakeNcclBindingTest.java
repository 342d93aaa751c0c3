package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real NCCL binding ({@link NcclLibrary}) and {@link NcclCommunicator}'s rules against a fake libnccl built from
 * {@code src/test/c/fake_nccl.c} (and the fake libcudart for streams and events): the unique id made on rank 0 reaches
 * every rank's {@code ncclCommInitRank} intact (passed by value through FFM), every type and operator arrives as NCCL's
 * enum value, an asynchronous NCCL error and a passed deadline abort the NCCL communicator and become
 * {@link JcclException}s naming the operation.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FakeNcclBindingTest {

    @Test
    void loadsAndReadsTheVersion() {
        NcclLibrary nccl = NcclLibrary.load(FakeLibraries.environment(true));
        assertEquals(22105, nccl.version());
        assertEquals(FakeLibraries.nccl().toString(), nccl.library());
        assertEquals("fake: a remote rank went away", nccl.errorString(6));
    }

    @Test
    void oneRankTakesTheNcclPathAndPassesNcclsEnums() throws Exception {
        long idsBefore = FakeLibraries.ncclGet(8);
        long initsBefore = FakeLibraries.ncclGet(9);
        long destroysBefore = FakeLibraries.ncclGet(12);
        passesOnFakeGpu(TestRanks.loopback(Duration.ofSeconds(20)), () -> {}, (comm, m, gpu) -> {
            try (Arena arena = Arena.ofConfined()) {
                assertEquals(DevicePath.NCCL, gpu.path());
                assertEquals("nccl: NCCL 2.21.5 (" + FakeLibraries.nccl() + "), a GPU per rank", gpu.describePath());
                assertEquals(idsBefore + 1, FakeLibraries.ncclGet(8), "rank 0 made one unique id");
                assertEquals(initsBefore + 1, FakeLibraries.ncclGet(9));
                assertEquals(0, FakeLibraries.ncclGet(10), "the id reached ncclCommInitRank unchanged");
                assertEquals(1, FakeLibraries.ncclGet(6), "nranks");
                assertEquals(0, FakeLibraries.ncclGet(7), "rank");

                DeviceBuffer a = m.allocate(1024);
                DeviceBuffer b = m.allocate(1024);
                for (DataType t : DataType.values()) {
                    for (ReduceOp op : ReduceOp.values()) {
                        comm.allReduce(a.segment(), b.segment(), 1024 / 8, t, op);
                        assertEquals(1, FakeLibraries.ncclGet(0));
                        assertEquals(128, FakeLibraries.ncclGet(1), "count");
                        assertEquals(NcclTypes.dataType(t, 22105), FakeLibraries.ncclGet(2), t + " as ncclDataType_t");
                        assertEquals(NcclTypes.redOp(op, 22105), FakeLibraries.ncclGet(3), op + " as ncclRedOp_t");
                        assertTrue(FakeLibraries.ncclGet(5) != 0, "the communicator's stream is passed");
                    }
                }
                comm.broadcast(a.segment(), b.segment(), 10, DataType.INT32, 0);
                assertEquals(2, FakeLibraries.ncclGet(0));
                assertEquals(0, FakeLibraries.ncclGet(4), "root");
                comm.reduce(a.segment(), b.segment(), 10, DataType.FLOAT64, ReduceOp.MIN, 0);
                assertEquals(3, FakeLibraries.ncclGet(0));
                assertEquals(3, FakeLibraries.ncclGet(3));
                comm.allGather(a.segment(), b.segment(), 16, DataType.FLOAT16);
                assertEquals(4, FakeLibraries.ncclGet(0));
                comm.reduceScatter(a.segment(), b.segment(), 16, DataType.BFLOAT16, ReduceOp.MAX);
                assertEquals(5, FakeLibraries.ncclGet(0));
                assertEquals(9, FakeLibraries.ncclGet(2));

                // AllToAll in place: a group of send/recv out of a scratch copy; the data comes back where it
                // was.
                MemorySegment host = arena.allocate(1024);
                for (int i = 0; i < 1024; i++) host.set(ValueLayout.JAVA_BYTE, i, (byte) i);
                m.upload(host, a);
                long groups = FakeLibraries.ncclGet(13);
                comm.allToAll(a.segment(), a.segment(), 256, DataType.INT32);
                assertEquals(groups + 1, FakeLibraries.ncclGet(13));
                assertEquals(7, FakeLibraries.ncclGet(0), "the group ends with the receive");
                MemorySegment back = arena.allocate(1024);
                m.download(a, back);
                assertEquals(-1, host.mismatch(back));
            }
        });
        assertEquals(destroysBefore + 1, FakeLibraries.ncclGet(12), "close() destroys the NCCL communicator");
    }

    @Test
    void anAsynchronousNcclErrorAbortsAndIsAJcclException() throws Exception {
        long abortsBefore = FakeLibraries.ncclGet(11);
        Runnable reset = () -> {
            FakeLibraries.cudaSet(0, 0);
            FakeLibraries.ncclSet(1, 0);
        };
        passesOnFakeGpu(TestRanks.loopback(Duration.ofSeconds(20)), reset, (comm, m, gpu) -> {
            DeviceBuffer a = m.allocate(64);
            FakeLibraries.cudaSet(0, 1); // the operation stays "running"
            FakeLibraries.ncclSet(1, 6); // ncclRemoteError
            NcclException e = assertThrows(
                    NcclException.class,
                    () -> comm.allReduce(a.segment(), a.segment(), 16, DataType.FLOAT32, ReduceOp.SUM));
            assertEquals(6, e.result());
            assertEquals(
                    "rank 0: AllReduce #2 on device buffers (NCCL) failed: NCCL reports ncclRemoteError "
                            + "(fake: a remote rank went away): "
                            + "fake: peer 1 closed its connection; the NCCL communicator was aborted",
                    e.getMessage());
            assertEquals(abortsBefore + 1, FakeLibraries.ncclGet(11));
            JcclException later = assertThrows(
                    JcclException.class,
                    () -> comm.allReduce(a.segment(), a.segment(), 16, DataType.FLOAT32, ReduceOp.SUM));
            assertTrue(
                    later.getMessage()
                            .startsWith("rank 0: AllReduce refused: this communicator "
                                    + "failed earlier (rank 0: AllReduce #2"),
                    later.getMessage());
        });
    }

    @Test
    void aPassedDeadlineAbortsAndNamesTheOperation() throws Exception {
        long abortsBefore = FakeLibraries.ncclGet(11);
        passesOnFakeGpu(timingOutAfter(700), () -> FakeLibraries.cudaSet(0, 0), (comm, m, gpu) -> {
            DeviceBuffer a = m.allocate(64);
            comm.broadcast(a.segment(), a.segment(), 16, DataType.UINT8, 0);
            FakeLibraries.cudaSet(0, 1);
            long start = System.nanoTime();
            var f = comm.allReduceAsync(a.segment(), a.segment(), 16, DataType.FLOAT32, ReduceOp.SUM);
            var g = comm.allGatherAsync(a.slice(0, 4).segment(), a.slice(0, 4).segment(), 1, DataType.INT32);
            Throwable e = assertThrows(java.util.concurrent.CompletionException.class, f::join)
                    .getCause();
            assertInstanceOf(JcclTimeoutException.class, e);
            assertEquals(
                    "rank 0: AllReduce #3 on device buffers (NCCL) did not complete within "
                            + "0.7 s (JCCL_TIMEOUT): a peer did not take part "
                            + "or cannot be reached; the NCCL communicator was aborted (ncclCommAbort)",
                    e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
            Throwable next = assertThrows(java.util.concurrent.CompletionException.class, g::join)
                    .getCause();
            assertTrue(
                    next.getMessage().contains("AllGather #4 refused: this communicator failed earlier"),
                    next.getMessage());
            assertEquals(abortsBefore + 1, FakeLibraries.ncclGet(11));
        });
    }

    /** A call that blocks inside NCCL (a peer that never connects) is cut short by the watchdog at the deadline. */
    @Test
    void aCallStuckInsideNcclIsAbortedAtTheDeadline() throws Exception {
        long abortsBefore = FakeLibraries.ncclGet(11);
        Object result = onFakeGpu(timingOutAfter(600), () -> FakeLibraries.ncclSet(2, 0), (comm, m, gpu) -> {
            DeviceBuffer a = m.allocate(64);
            FakeLibraries.ncclSet(2, 1); // ncclGroupEnd blocks until ncclCommAbort
            return assertThrows(
                    JcclTimeoutException.class, () -> comm.allToAll(a.segment(), a.segment(), 4, DataType.FLOAT32));
        });
        JcclTimeoutException e = assertInstanceOf(JcclTimeoutException.class, result);
        assertEquals(
                "rank 0: AllToAll #2 on device buffers (NCCL): the NCCL call did not return "
                        + "within 0.6 s (JCCL_TIMEOUT): a peer did not take "
                        + "part or cannot be reached; the NCCL communicator was aborted (ncclCommAbort)",
                e.getMessage());
        assertEquals(abortsBefore + 1, FakeLibraries.ncclGet(11));
    }

    /**
     * Two ranks, each on its own "GPU": NCCL, with the id distributed by Jccl's bootstrap; sharing one GPU: staged,
     * saying why.
     */
    @Test
    void ranksAgreeOnThePath() throws Exception {
        Map<String, String> env = FakeLibraries.environment(true);
        long initsBefore = FakeLibraries.ncclGet(9);
        List<Object> own =
                TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(20)), (rank, comm) -> describe(comm, rank, env));
        assertEquals(List.of("NCCL", "NCCL"), own);
        assertEquals(initsBefore + 2, FakeLibraries.ncclGet(9));
        assertEquals(0, FakeLibraries.ncclGet(10), "both ranks got rank 0's id");

        List<Object> shared =
                TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(20)), (rank, comm) -> describe(comm, 0, env));
        for (Object o : shared) {
            assertTrue(
                    o instanceof String s
                            && s.startsWith(
                                    "staged through pinned host memory (4 slots of 4 MiB); NCCL not used: ranks "
                                            + "0 and 1 share one GPU (")
                            && s.endsWith("/0000:1B:00.0); NCCL needs a GPU per rank"),
                    String.valueOf(o));
        }
    }

    private interface Checks {
        void run(Communicator comm, CudaDeviceMemory memory, CudaSupport gpu) throws Exception;
    }

    /** {@link #onFakeGpu}, for checks that must all pass: what they throw fails the test. */
    private static void passesOnFakeGpu(Config config, Runnable resetFakes, Checks checks) throws Exception {
        Object result = onFakeGpu(config, resetFakes, (comm, memory, gpu) -> {
            checks.run(comm, memory, gpu);
            return "ok";
        });
        if (result instanceof Throwable t) throw new AssertionError(t);
    }

    private interface OnGpu {
        Object run(Communicator comm, CudaDeviceMemory memory, CudaSupport gpu) throws Exception;
    }

    /**
     * Runs {@code body} on one rank with the fake libraries' GPU 0 attached, then, once both are closed,
     * {@code resetFakes}; returns what the body returned or threw.
     */
    private static Object onFakeGpu(Config config, Runnable resetFakes, OnGpu body) throws Exception {
        Map<String, String> env = FakeLibraries.environment(true);
        return TestRanks.run(1, config, (rank, comm) -> {
                    try (CudaDeviceMemory m = CudaDeviceMemory.open(0, env);
                            CudaSupport gpu = CudaSupport.attach(
                                    comm, m, CudaSupport.Options.fromEnvironment(env, comm.config()))) {
                        return body.run(comm, m, gpu);
                    } finally {
                        resetFakes.run();
                    }
                })
                .getFirst();
    }

    /** Loopback ranks whose operations time out after {@code millis}. */
    private static Config timingOutAfter(long millis) {
        return TestRanks.loopback(Duration.ofSeconds(20)).toBuilder()
                .timeout(Duration.ofMillis(millis))
                .build();
    }

    private static Object describe(Communicator comm, int device, Map<String, String> env) {
        try (CudaDeviceMemory m = CudaDeviceMemory.open(device, env);
                CudaSupport gpu =
                        CudaSupport.attach(comm, m, CudaSupport.Options.fromEnvironment(env, comm.config()))) {
            return gpu.path() == DevicePath.NCCL ? "NCCL" : gpu.describePath();
        }
    }
}
