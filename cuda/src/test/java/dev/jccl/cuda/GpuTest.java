package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jccl.TestRanks;
import dev.jccl.conformance.DeviceBattery;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a real GPU: the CUDA binding, the staged path with ranks sharing GPU 0, and NCCL with one rank per GPU, each
 * through the conformance battery. Skipped, saying what is missing, where there is no usable GPU (CI) or no NCCL.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class GpuTest {
    private static final CudaProbe cuda = CudaRuntime.probe();

    @BeforeEach
    void needsAGpu() {
        assumeTrue(cuda.available(), "GPU tests skipped: no usable CUDA here: " + cuda.reason());
    }

    private static void needsNccl() {
        try {
            NcclLibrary.load(System.getenv());
        } catch (NcclUnavailableException e) {
            assumeTrue(false, "NCCL tests skipped: " + e.getMessage());
        }
    }

    @Test
    void copiesAndEventsOnTheDevice() {
        try (CudaDeviceMemory m = CudaDeviceMemory.open(0);
                DeviceStream s = m.createStream()) {
            System.out.println("GPU 0: " + m.describe() + "; " + cuda.summary());
            long bytes = 64L << 20;
            DeviceBuffer a = m.allocate(bytes);
            DeviceBuffer b = m.allocate(bytes);
            MemorySegment pinned = m.allocatePinned(bytes);
            for (long i = 0; i < bytes; i += 8) pinned.set(ValueLayout.JAVA_LONG, i, i * 31 + 7);
            s.copyToDevice(pinned, a);
            s.copyOnDevice(a, b);
            MemorySegment back = m.allocatePinned(bytes);
            s.copyToHost(b, back);
            try (DeviceEvent e = s.record()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!e.isComplete()) {
                    assertTrue(System.nanoTime() < deadline, "64 MiB of copies took more than 30 s");
                }
            }
            assertEquals(-1, pinned.mismatch(back));
            MemorySegment heap = MemorySegment.ofArray(new byte[4096]);
            m.download(b.slice(0, 4096), heap);
            assertEquals(-1, heap.mismatch(pinned.asSlice(0, 4096)));
        }
    }

    /** 1, 2, 3 and 5 ranks on GPU 0 (the staged path is the one that lets ranks share a GPU). */
    @Test
    void stagedPathOnTheGpu() throws Exception {
        for (int n : new int[] {1, 2, 3, 5}) {
            List<Object> results = TestRanks.run(n, TestRanks.loopback(Duration.ofSeconds(60)), (rank, comm) -> {
                try (CudaDeviceMemory m = CudaDeviceMemory.open(0);
                        CudaSupport gpu = CudaSupport.attach(
                                comm,
                                m,
                                CudaSupport.Options.fromEnvironment(Map.of(), comm.config())
                                        .withPath(DevicePath.Request.STAGED)
                                        .withChunkBytes(4096))) {
                    assertEquals(DevicePath.STAGED, gpu.path());
                    return new DeviceBattery(rank, n, comm, m).run();
                }
            });
            DeviceBattery.assertClean(results);
        }
    }

    @Test
    void ncclWithOneRank() throws Exception {
        needsNccl();
        List<Object> results = TestRanks.run(1, TestRanks.loopback(Duration.ofSeconds(60)), (rank, comm) -> {
            try (CudaDeviceMemory m = CudaDeviceMemory.open(0);
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            m,
                            CudaSupport.Options.fromEnvironment(System.getenv(), comm.config())
                                    .withPath(DevicePath.Request.NCCL))) {
                System.out.println(gpu.describePath());
                return new DeviceBattery(rank, 1, comm, m).run();
            }
        });
        DeviceBattery.assertClean(results);
    }

    /** One rank per GPU, as NCCL wants it: needs two GPUs or more. */
    @Test
    void ncclWithARankPerGpu() throws Exception {
        needsNccl();
        int n = Math.min(cuda.deviceCount(), 4);
        assumeTrue(
                n >= 2, "multi-rank NCCL test skipped: " + cuda.deviceCount() + " GPU here, NCCL needs one per rank");
        List<Object> results = TestRanks.run(n, TestRanks.loopback(Duration.ofSeconds(60)), (rank, comm) -> {
            try (CudaDeviceMemory m = CudaDeviceMemory.open(rank);
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            m,
                            CudaSupport.Options.fromEnvironment(System.getenv(), comm.config())
                                    .withPath(DevicePath.Request.NCCL))) {
                return new DeviceBattery(rank, n, comm, m).run();
            }
        });
        DeviceBattery.assertClean(results);
    }
}
