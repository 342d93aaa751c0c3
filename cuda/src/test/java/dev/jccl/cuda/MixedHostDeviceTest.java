package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Host and device operations on one communicator take one order: a device operation staged through host memory runs its
 * chunks' host collectives as one unit, so host calls made meanwhile, from this thread or another, cannot come between
 * them on one rank and not on another.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MixedHostDeviceTest {
    private static final int COUNT = 1000; // 4000 bytes: 16 chunks of 256 B on the staged path

    /** The staged path for {@code memory}, in chunks of 256 bytes: {@link #COUNT} ints make 16. */
    private static CudaSupport attachIn256ByteChunks(Communicator comm, StandInDeviceMemory memory) {
        return CudaSupport.attach(
                comm,
                memory,
                CudaSupport.Options.fromEnvironment(Map.of(), comm.config()).withChunkBytes(256));
    }

    @Test
    void asyncHostAndDeviceCallsInterleaveInCallOrder() throws Exception {
        int n = 3;
        List<Object> results = TestRanks.run(n, TestRanks.loopback(Duration.ofSeconds(30)), (rank, comm) -> {
            try (StandInDeviceMemory memory = StandInDeviceMemory.create(rank);
                    CudaSupport gpu = attachIn256ByteChunks(comm, memory);
                    Arena arena = Arena.ofShared()) {
                Random pattern = new Random(42); // the same sequence of host/device choices on every rank
                List<Check> checks = new ArrayList<>();
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                for (int i = 0; i < 24; i++) {
                    int value = (rank + 1) * (i + 1);
                    int expected = (i + 1) * n * (n + 1) / 2;
                    MemorySegment host = arena.allocate(4L * COUNT, 8);
                    for (int k = 0; k < COUNT; k++) host.setAtIndex(ValueLayout.JAVA_INT, k, value + k);
                    if (pattern.nextBoolean()) {
                        DeviceBuffer device = memory.allocate(4L * COUNT);
                        memory.upload(host, device);
                        futures.add(comm.allReduceAsync(
                                device.segment(), device.segment(), COUNT, DataType.INT32, ReduceOp.SUM));
                        checks.add(new Check("device #" + i, expected, host, device));
                    } else {
                        futures.add(comm.allReduceAsync(host, host, COUNT, DataType.INT32, ReduceOp.SUM));
                        checks.add(new Check("host #" + i, expected, host, null));
                    }
                }
                for (CompletableFuture<Void> f : futures) f.get(30, TimeUnit.SECONDS);
                List<String> wrong = new ArrayList<>();
                for (Check c : checks) {
                    if (c.device() != null) memory.download(c.device(), c.host());
                    for (int k = 0; k < COUNT; k++) {
                        int got = c.host().getAtIndex(ValueLayout.JAVA_INT, k);
                        int want = c.expected() + k * n;
                        if (got != want) {
                            wrong.add(c.what() + "[" + k + "] = " + got + ", expected " + want);
                            break;
                        }
                    }
                }
                return wrong;
            }
        });
        for (int r = 0; r < n; r++) assertEquals(List.of(), results.get(r), "rank " + r);
    }

    /**
     * A device call on one thread, then a host call on another once the first was made: the same order on every rank.
     */
    @Test
    void callsFromTwoThreadsFollowTheirCallOrder() throws Exception {
        List<Object> results = TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(30)), (rank, comm) -> {
            try (StandInDeviceMemory memory = StandInDeviceMemory.create(rank);
                    CudaSupport gpu = attachIn256ByteChunks(comm, memory);
                    Arena arena = Arena.ofShared()) {
                MemorySegment hostData = arena.allocate(4L * COUNT, 8);
                MemorySegment deviceData = arena.allocate(4L * COUNT, 8);
                hostData.fill((byte) 0);
                for (int k = 0; k < COUNT; k++) deviceData.setAtIndex(ValueLayout.JAVA_INT, k, rank == 0 ? k : 0);
                DeviceBuffer device = memory.allocate(4L * COUNT);
                memory.upload(deviceData, device);
                if (rank == 0) {
                    for (int k = 0; k < COUNT; k++) hostData.setAtIndex(ValueLayout.JAVA_INT, k, -k);
                }
                CountDownLatch deviceCalled = new CountDownLatch(1);
                CompletableFuture<Void> deviceOp = new CompletableFuture<>();
                Thread first = Thread.ofPlatform().start(() -> {
                    try {
                        CompletableFuture<Void> f =
                                comm.broadcastAsync(device.segment(), device.segment(), COUNT, DataType.INT32, 0);
                        deviceCalled.countDown();
                        f.get(30, TimeUnit.SECONDS);
                        deviceOp.complete(null);
                    } catch (Throwable t) {
                        deviceCalled.countDown();
                        deviceOp.completeExceptionally(t);
                    }
                });
                assertTrue(deviceCalled.await(30, TimeUnit.SECONDS));
                comm.broadcast(
                        hostData,
                        hostData,
                        COUNT,
                        DataType.INT32,
                        0); // runs after the device broadcast, on this thread
                deviceOp.get(30, TimeUnit.SECONDS);
                first.join();
                memory.download(device, deviceData);
                for (int k = 0; k < COUNT; k++) {
                    assertEquals(k, deviceData.getAtIndex(ValueLayout.JAVA_INT, k), "device element " + k);
                    assertEquals(-k, hostData.getAtIndex(ValueLayout.JAVA_INT, k), "host element " + k);
                }
                return "ok";
            }
        });
        for (Object o : results) {
            if (o instanceof Throwable t) throw new AssertionError(t);
        }
    }

    private record Check(String what, int expected, MemorySegment host, DeviceBuffer device) {}
}
