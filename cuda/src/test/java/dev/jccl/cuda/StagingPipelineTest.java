package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.runtime.HostPath;
import dev.jccl.runtime.Operation;
import dev.jccl.runtime.OperationChecks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The staging pipeline's behaviour beyond results (those are the conformance test's): copies and host collectives
 * overlap, a failed copy or a lost peer is an exception on every rank and never a hang, a stuck copy meets the
 * deadline, bad arguments are refused before anything moves.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StagingPipelineTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** One phase of one chunk, as observed. */
    record Interval(String what, int chunk, long start, long end) {
        boolean overlaps(Interval o) {
            return start < o.end && o.start < end;
        }
    }

    /**
     * Copies take 20 ms each (the stand-in's delay) and each host collective at least 20 ms (a communicator whose async
     * futures complete late): run one after another, 8 chunks would take 8 × 60 ms. The pipeline must run the copy of
     * chunk k+1 while chunk k is in its collective, and the copy back of chunk k while chunk k+1 is in its collective,
     * seen in the phases' timestamps; and the phases, added up, must come to much more than the operation's length.
     */
    @Test
    void copiesOverlapTheHostCollectives() throws Exception {
        int chunks = 8;
        long chunkBytes = 4096;
        List<Object> results = TestRanks.run(2, TestRanks.loopback(TIMEOUT), (rank, comm) -> {
            List<Interval> copies = Collections.synchronizedList(new ArrayList<>());
            List<Interval> exchanges = Collections.synchronizedList(new ArrayList<>());
            int[] toHost = {0};
            int[] toDevice = {0};
            boolean[] recording = {false};
            StandInDeviceMemory memory = StandInDeviceMemory.builder()
                    .copyDelay(Duration.ofMillis(20))
                    .listener((stream, direction, bytes, start, end) -> {
                        if (!recording[0]) return;
                        if (direction == StandInDeviceMemory.Direction.DEVICE_TO_HOST) {
                            copies.add(new Interval("D2H", toHost[0]++, start, end));
                        } else if (direction == StandInDeviceMemory.Direction.HOST_TO_DEVICE) {
                            copies.add(new Interval("H2D", toDevice[0]++, start, end));
                        }
                    })
                    .build();
            StagingListener phases = (op, phase, chunk, n, start, end) -> {
                if (recording[0] && phase == StagingListener.Phase.EXCHANGE) {
                    exchanges.add(new Interval("X", chunk, start, end));
                }
            };
            try (memory;
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            memory,
                            false,
                            CudaSupport.Options.fromEnvironment(Map.of(), comm.config())
                                    .withChunkBytes(chunkBytes)
                                    .withListener(phases),
                            () -> {
                                throw new NcclUnavailableException("not wanted here");
                            },
                            host -> slowNetwork(host, 20))) {
                long count = chunks * chunkBytes / 4;
                DeviceBuffer buf = memory.allocate(count * 4);
                comm.allReduce(
                        buf.segment(),
                        buf.segment(),
                        count,
                        DataType.FLOAT32,
                        ReduceOp.SUM); // the first call runs interpreted code
                comm.barrier(); // both ranks start together, so neither waits on the other's lag
                recording[0] = true;
                long start = System.nanoTime();
                comm.allReduce(buf.segment(), buf.segment(), count, DataType.FLOAT32, ReduceOp.SUM);
                long elapsed = System.nanoTime() - start;
                assertEquals(chunks, exchanges.size());
                assertEquals(2 * chunks, copies.size());
                List<String> missing = new ArrayList<>();
                for (int k = 0; k + 1 < chunks; k++) {
                    Interval x = find(exchanges, "X", k);
                    if (!find(copies, "D2H", k + 1).overlaps(x)) {
                        missing.add("D2H " + (k + 1) + " with collective " + k);
                    }
                    if (!find(copies, "H2D", k).overlaps(find(exchanges, "X", k + 1))) {
                        missing.add("H2D " + k + " with collective " + (k + 1));
                    }
                }
                long busy = 0;
                for (Interval i : copies) busy += i.end - i.start;
                for (Interval i : exchanges) busy += i.end - i.start;
                // A miss or two can be a scheduling hiccup on a loaded machine; a serial pipeline misses all 14.
                assertTrue(
                        missing.size() <= 3,
                        "phases that should have overlapped did not: " + missing + "\n"
                                + timeline(start, copies, exchanges));
                assertTrue(
                        busy > 1.8 * elapsed,
                        "phases added up to " + busy / 1_000_000 + " ms in an operation of " + elapsed / 1_000_000
                                + " ms");
            }
            return "ok";
        });
        for (Object o : results) {
            if (o instanceof Throwable t) throw new AssertionError(t);
        }
    }

    private static String timeline(long start, List<Interval> copies, List<Interval> exchanges) {
        List<Interval> all = new ArrayList<>(copies);
        all.addAll(exchanges);
        all.sort(java.util.Comparator.comparingLong(Interval::start));
        StringBuilder sb = new StringBuilder("phases (ms from the call):");
        for (Interval i : all) {
            sb.append(String.format(
                    java.util.Locale.ROOT,
                    "%n  %-3s %d  %6.1f .. %6.1f",
                    i.what,
                    i.chunk,
                    (i.start - start) / 1e6,
                    (i.end - start) / 1e6));
        }
        return sb.toString();
    }

    private static Interval find(List<Interval> list, String what, int chunk) {
        synchronized (list) {
            for (Interval i : list) {
                if (i.what.equals(what) && i.chunk == chunk) return i;
            }
        }
        throw new AssertionError("no " + what + " of chunk " + chunk + " in " + list);
    }

    /** A host path whose operations return {@code millis} after the real ones: a slow network. */
    static HostPath slowNetwork(HostPath real, long millis) {
        return new HostPath() {
            @Override
            public int rank() {
                return real.rank();
            }

            @Override
            public int size() {
                return real.size();
            }

            @Override
            public OperationChecks checks() {
                return real.checks();
            }

            @Override
            public CompletableFuture<Void> run(Operation op) {
                CompletableFuture<Void> done = real.run(op);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
                return done;
            }
        };
    }

    /**
     * Rank 1's fourth copy fails: rank 1 reports the CUDA error with the operation and chunk, rank 0 learns at once
     * that rank 1 is gone.
     */
    @Test
    void aFailedCopyFailsEveryRankPromptly() throws Exception {
        List<Object> results = TestRanks.run(2, TestRanks.loopback(TIMEOUT), (rank, comm) -> {
            StandInDeviceMemory.Builder b = StandInDeviceMemory.builder();
            if (rank == 1) b.failCopy(3);
            try (StandInDeviceMemory memory = b.build();
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            memory,
                            CudaSupport.Options.fromEnvironment(Map.of(), comm.config())
                                    .withChunkBytes(1024)
                                    .withSlots(2))) {
                DeviceBuffer buf = memory.allocate(64 * 1024);
                long start = System.nanoTime();
                JcclException e = assertThrows(
                        JcclException.class,
                        () -> comm.allReduce(buf.segment(), buf.segment(), 16 * 1024, DataType.INT32, ReduceOp.SUM));
                long took = System.nanoTime() - start;
                assertTrue(
                        took < TIMEOUT.toNanos() / 2,
                        "the failure took " + took / 1_000_000 + " ms to arrive, as if waiting for the deadline");
                JcclException refused = assertThrows(
                        JcclException.class,
                        () -> comm.allReduce(buf.segment(), buf.segment(), 1, DataType.INT32, ReduceOp.SUM));
                assertTrue(
                        refused.getMessage().contains("refused: this communicator failed earlier"),
                        refused.getMessage());
                return e;
            }
        });
        CudaException failed = assertInstanceOf(CudaException.class, results.get(1));
        assertTrue(
                failed.getMessage()
                        .startsWith(
                                "rank 1: AllReduce #1 on device buffers (staged through host memory) failed at the "),
                failed.getMessage());
        assertTrue(
                failed.getMessage().contains("of chunk ") && failed.getMessage().contains(" of 64"),
                failed.getMessage());
        assertTrue(
                failed.getMessage().contains("cudaErrorIllegalAddress")
                        && failed.getMessage().contains("failure injected into copy #3"),
                failed.getMessage());
        JcclException peer = assertInstanceOf(JcclException.class, results.get(0));
        assertTrue(
                peer.getMessage()
                        .startsWith("rank 0: AllReduce #1 on device buffers (staged through host memory) failed "
                                + "at the host collective"),
                peer.getMessage());
    }

    /**
     * A peer that aborts instead of joining the operation: the other rank's device call fails with the host path's
     * error.
     */
    @Test
    void aLostPeerIsAnExceptionNotAHang() throws Exception {
        List<Object> results = TestRanks.run(2, TestRanks.loopback(TIMEOUT), (rank, comm) -> {
            try (StandInDeviceMemory memory = StandInDeviceMemory.create(0);
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            memory,
                            CudaSupport.Options.fromEnvironment(Map.of(), comm.config())
                                    .withChunkBytes(1024))) {
                DeviceBuffer buf = memory.allocate(8 * 1024);
                comm.allReduce(
                        buf.segment(), buf.segment(), 1024, DataType.FLOAT64, ReduceOp.MAX); // both take part once
                if (rank == 1) {
                    comm.abort();
                    return "aborted";
                }
                return assertThrows(
                        JcclException.class,
                        () -> comm.allGather(buf.slice(0, 4096).segment(), buf.segment(), 512, DataType.FLOAT64));
            }
        });
        JcclException e = assertInstanceOf(JcclException.class, results.get(0));
        assertTrue(
                e.getMessage()
                        .startsWith("rank 0: AllGather #10 on device buffers (staged through host memory) failed "
                                + "at the host collective of chunk 1 of 8: "),
                e.getMessage());
        assertTrue(
                e.getMessage().contains("lost peer 1") && e.getMessage().contains("rank 1 aborted its communicator"),
                e.getMessage());
    }

    /**
     * A copy that never finishes (here: far slower than the deadline) ends in a JcclTimeoutException naming the phase.
     */
    @Test
    void aStuckCopyMeetsTheDeadline() throws Exception {
        Config config = TestRanks.loopback(TIMEOUT).toBuilder()
                .timeout(Duration.ofMillis(500))
                .build();
        Object result = TestRanks.run(1, config, (rank, comm) -> {
                    try (StandInDeviceMemory memory = StandInDeviceMemory.builder()
                                    .copyDelay(Duration.ofSeconds(3))
                                    .build();
                            CudaSupport gpu = CudaSupport.attach(
                                    comm, memory, CudaSupport.Options.fromEnvironment(Map.of(), comm.config()))) {
                        DeviceBuffer buf = memory.allocate(64);
                        return assertThrows(
                                JcclTimeoutException.class,
                                () -> comm.reduce(buf.segment(), buf.segment(), 16, DataType.FLOAT32, ReduceOp.SUM, 0));
                    }
                })
                .getFirst();
        JcclTimeoutException e = assertInstanceOf(JcclTimeoutException.class, result);
        assertEquals(
                "rank 0: Reduce #1 on device buffers (staged through host memory) failed "
                        + "at the device-to-host copy of chunk 1 of 1: "
                        + "the device-to-host copy of chunk 1 of 1 did not finish within 0.5 s (JCCL_TIMEOUT)",
                e.getMessage());
    }

    /** Bad calls throw at once on the calling rank, and the communicator stays usable. */
    @Test
    void badArgumentsAreRefusedBeforeAnythingMoves() throws Exception {
        Object result = TestRanks.run(1, TestRanks.loopback(TIMEOUT), (rank, comm) -> {
                    try (StandInDeviceMemory memory = StandInDeviceMemory.create(2);
                            CudaSupport gpu = CudaSupport.attach(
                                    comm, memory, CudaSupport.Options.fromEnvironment(Map.of(), comm.config()));
                            Arena arena = Arena.ofConfined()) {
                        DeviceBuffer a = memory.allocate(400);
                        DeviceBuffer other = StandInDeviceMemory.create(3).allocate(400);
                        int copies = memory.copiesIssued();
                        assertRefused(
                                "AllReduce on rank 0: send buffer holds 400 bytes but 101 × FLOAT32 needs 404",
                                () -> comm.allReduce(a.segment(), a.segment(), 101, DataType.FLOAT32, ReduceOp.SUM));
                        assertRefused(
                                "AllReduce on rank 0: recv buffer holds 396 bytes but 100 × FLOAT32 needs 400",
                                () -> comm.allReduce(
                                        a.segment(),
                                        memory.allocate(396).segment(),
                                        100,
                                        DataType.FLOAT32,
                                        ReduceOp.SUM));
                        assertRefused(
                                "AllReduce on rank 0: count must be >= 0, got -1",
                                () -> comm.allReduce(a.segment(), a.segment(), -1, DataType.FLOAT32, ReduceOp.SUM));
                        assertRefused(
                                "AllReduce on rank 0: reduce op is null",
                                () -> comm.allReduce(a.segment(), a.segment(), 1, DataType.FLOAT32, null));
                        assertRefused(
                                "AllReduce on rank 0: send buffer is memory of cuda:3 but this communicator "
                                        + "works on cuda:2; copy it to cuda:2 first, "
                                        + "or use a communicator of each device",
                                () -> comm.allReduce(other.segment(), a.segment(), 1, DataType.FLOAT32, ReduceOp.SUM));
                        assertRefused(
                                "AllReduce on rank 0: send and recv buffers overlap without being in place; "
                                        + "use the same memory for in-place, or separate buffers",
                                () -> comm.allReduce(
                                        a.slice(0, 200).segment(),
                                        a.slice(100, 200).segment(),
                                        50,
                                        DataType.FLOAT32,
                                        ReduceOp.SUM));
                        assertRefused(
                                "Broadcast on rank 0: root 1 is outside 0..0",
                                () -> comm.broadcast(a.segment(), a.segment(), 1, DataType.INT8, 1));
                        assertRefused(
                                "Send on rank 0: peer 0 is this rank; copy the data locally instead of "
                                        + "sending it to yourself",
                                () -> comm.send(a.segment(), 1, DataType.INT8, 0));
                        assertRefused(
                                "Reduce on rank 0: recv buffer is null",
                                () -> comm.reduce(a.segment(), null, 1, DataType.INT8, ReduceOp.SUM, 0));
                        assertEquals(copies, memory.copiesIssued(), "nothing was copied");

                        MemorySegment host = arena.allocate(400);
                        host.set(ValueLayout.JAVA_INT, 0, 41);
                        memory.upload(host, a);
                        comm.allReduce(a.segment(), a.segment(), 100, DataType.INT32, ReduceOp.SUM);
                        memory.download(a, host);
                        assertEquals(41, host.get(ValueLayout.JAVA_INT, 0), "the communicator still works");
                    }
                    return "ok";
                })
                .getFirst();
        if (result instanceof Throwable t) throw new AssertionError(t);
    }

    private static void assertRefused(String message, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertEquals(message, e.getMessage());
    }

    /**
     * JCCL_CUDA_PATH=nccl where NCCL cannot run fails on every rank alike; ranks that disagree on the path are told so.
     */
    @Test
    void thePathIsAgreedByAllRanks() throws Exception {
        List<Object> forced = attachRefusals(rank -> "NCCL");
        for (int r = 0; r < 2; r++) {
            String m = (String) forced.get(r);
            assertTrue(
                    m.startsWith(
                            "rank " + r + ": JCCL_CUDA_PATH=nccl, but NCCL cannot be used: rank 0 cannot use NCCL: "
                                    + "cuda:0 stand-in"),
                    m);
            assertTrue(
                    m.endsWith("is not CUDA memory, and NCCL needs a GPU. Unset it (or set staged) to "
                            + "stage device buffers through host memory"),
                    m);
        }
        List<Object> mixed = attachRefusals(rank -> rank == 0 ? "staged" : "auto");
        assertEquals(
                "rank 1: JCCL_CUDA_PATH differs between ranks (rank 0: staged, rank 1: "
                        + "auto); every rank must use the same path, so set it alike everywhere",
                mixed.get(1));
        IllegalArgumentException bad =
                assertThrows(IllegalArgumentException.class, () -> DevicePath.Request.parse("gpu"));
        assertEquals("JCCL_CUDA_PATH='gpu' is not a path; use auto, staged or nccl", bad.getMessage());
    }

    /**
     * Two ranks attach stand-in devices with JCCL_CUDA_PATH set to {@code path.apply(rank)}; each must be refused with
     * a JcclException, whose message it returns.
     */
    private static List<Object> attachRefusals(IntFunction<String> path) throws Exception {
        return TestRanks.run(2, TestRanks.loopback(TIMEOUT), (rank, comm) -> {
            try (StandInDeviceMemory memory = StandInDeviceMemory.create(rank)) {
                Map<String, String> env = Map.of(DevicePath.VARIABLE, path.apply(rank));
                return assertThrows(
                                JcclException.class,
                                () -> CudaSupport.attach(
                                        comm, memory, CudaSupport.Options.fromEnvironment(env, comm.config())))
                        .getMessage();
            }
        });
    }
}
