package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.TestRanks;
import dev.jccl.conformance.DeviceBattery;
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
 * The real CUDA binding ({@link CudaRuntime}, {@link CudaDeviceMemory}) against a fake libcudart built from
 * {@code src/test/c/fake_cudart.c}: every function Jccl binds is called through FFM with CUDA's signatures, so a wrong
 * descriptor, argument order or error path fails here, without a GPU.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FakeCudaBindingTest {

    @Test
    void probeReportsVersionsAndDevices() {
        CudaProbe p = CudaRuntime.probe(FakeLibraries.environment(false));
        assertTrue(p.available(), p::toString);
        assertEquals(12040, p.runtimeVersion());
        assertEquals(12060, p.driverVersion());
        assertEquals(2, p.deviceCount());
        assertEquals("CUDA 12.4 (driver 12.6, " + FakeLibraries.cudart() + "), 2 devices", p.summary());
    }

    /**
     * The runtime writes the whole {@code cudaPointerAttributes} of its version into the caller's buffer: 88 bytes
     * since CUDA 12. A buffer sized for CUDA 11's four fields corrupted the native heap on a real H200.
     */
    @Test
    void pointerAttributesHaveRoomForTheWholeStruct() {
        long written = FakeLibraries.cudaGet(4);
        assertEquals(88, written, "the fake should write CUDA 12/13's cudaPointerAttributes");
        assertTrue(
                CudaRuntime.POINTER_ATTRIBUTES_BYTES >= written,
                CudaRuntime.POINTER_ATTRIBUTES_BYTES + " bytes for a struct of " + written);
        try (CudaDeviceMemory m = CudaDeviceMemory.open(1, FakeLibraries.environment(false))) {
            DeviceBuffer b = m.allocate(4096);
            assertEquals(1, m.deviceOf(b.address() + 100));
            assertEquals(-1, m.deviceOf(Arena.ofAuto().allocate(8).address()));
        }
    }

    @Test
    void noVisibleDeviceIsASentence() {
        FakeLibraries.cudaSet(2, 0);
        try {
            Map<String, String> env = FakeLibraries.environment(false);
            env.put("CUDA_VISIBLE_DEVICES", "7");
            CudaProbe p = CudaRuntime.probe(env);
            assertFalse(p.available());
            assertEquals(
                    "no CUDA device visible (CUDA_VISIBLE_DEVICES=7); check nvidia-smi, and "
                            + "in a container that the GPUs are passed in",
                    p.reason());
            MissingLibrariesTest.assertOpeningDeviceMemoryFailsWith(p.reason(), env);
        } finally {
            FakeLibraries.cudaSet(2, 2);
        }
    }

    @Test
    void aDeviceOutOfRangeNamesWhatThereIs() {
        CudaUnavailableException e = assertThrows(
                CudaUnavailableException.class, () -> CudaDeviceMemory.open(5, FakeLibraries.environment(false)));
        assertEquals("no CUDA device 5: this process sees 2 devices (cuda:0 to cuda:1)", e.getMessage());
    }

    @Test
    void memoryStreamsAndEventsGoThroughTheBinding() {
        long liveBefore = FakeLibraries.cudaGet(3);
        try (CudaDeviceMemory m = CudaDeviceMemory.open(1, FakeLibraries.environment(false));
                Arena arena = Arena.ofConfined()) {
            assertEquals("cuda:1 Fake GPU 1 [0000:1C:00.0] (CUDA 12.4, driver 12.6)", m.describe());
            assertTrue(m.deviceKey().endsWith("/0000:1C:00.0"), m.deviceKey());
            assertEquals(1, FakeLibraries.cudaGet(2), "cudaSetDevice(1) on this thread");

            byte[] data = new byte[100];
            for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 3 + 1);
            DeviceBuffer a = m.allocate(100);
            DeviceBuffer b = m.allocate(100);
            m.upload(MemorySegment.ofArray(data), a); // heap memory goes through a native copy
            MemorySegment pinned = m.allocatePinned(100);
            try (DeviceStream s = m.createStream()) {
                assertTrue(s.handle() != 0);
                long copies = FakeLibraries.cudaGet(0);
                s.copyToHost(a, pinned);
                assertEquals(CudaRuntime.DEVICE_TO_HOST, FakeLibraries.cudaGet(1));
                s.copyToDevice(pinned, b);
                assertEquals(CudaRuntime.HOST_TO_DEVICE, FakeLibraries.cudaGet(1));
                s.copyOnDevice(b.slice(0, 50), a.slice(50, 50));
                assertEquals(CudaRuntime.DEVICE_TO_DEVICE, FakeLibraries.cudaGet(1));
                assertEquals(copies + 3, FakeLibraries.cudaGet(0));
                try (DeviceEvent e = s.record()) {
                    assertTrue(e.isComplete());
                    FakeLibraries.cudaSet(0, 1);
                    assertFalse(e.isComplete(), "cudaErrorNotReady is 'not yet', not an error");
                    assertFalse(s.isIdle());
                    FakeLibraries.cudaSet(0, 0);
                    assertTrue(e.isComplete());
                }
            }
            MemorySegment back = arena.allocate(100);
            m.download(b, back);
            assertArrayEquals(data, back.toArray(ValueLayout.JAVA_BYTE));
            m.download(a, back);
            for (int i = 50; i < 100; i++) assertEquals(data[i - 50], back.get(ValueLayout.JAVA_BYTE, i));
            m.fill(a, (byte) 7);
            byte[] heap = new byte[100];
            m.download(a, MemorySegment.ofArray(heap));
            for (byte x : heap) assertEquals(7, x);
            m.free(b);
            assertThrows(
                    IllegalArgumentException.class, () -> m.free(b), "a double free is refused, not passed to CUDA");
            // a is left for close() to free, and the pinned buffer too
        }
        assertEquals(liveBefore, FakeLibraries.cudaGet(3), "close() frees what was left");
    }

    @Test
    void aFailedCallSaysWhichCallAndCudasWords() {
        try (CudaDeviceMemory m = CudaDeviceMemory.open(0, FakeLibraries.environment(false));
                DeviceStream s = m.createStream()) {
            DeviceBuffer a = m.allocate(64);
            MemorySegment pinned = m.allocatePinned(64);
            FakeLibraries.cudaSet(1, 1);
            CudaException e = assertThrows(CudaException.class, () -> s.copyToHost(a, pinned));
            assertEquals(1, e.error());
            assertEquals(
                    "cudaMemcpyAsync(64 bytes, device to host) failed: cudaErrorInvalidValue (fake: bad argument)",
                    e.getMessage());
            IllegalArgumentException heap = assertThrows(
                    IllegalArgumentException.class, () -> s.copyToHost(a, MemorySegment.ofArray(new byte[64])));
            assertTrue(heap.getMessage().contains("need native host memory"), heap.getMessage());
        } finally {
            FakeLibraries.cudaSet(1, 0);
        }
    }

    /** The staged path end to end over the FFM binding: two ranks sharing "GPU 0", the conformance battery. */
    @Test
    void stagedCollectivesRunOverTheBinding() throws Exception {
        Map<String, String> env = FakeLibraries.environment(false);
        List<Object> results = TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(30)), (rank, comm) -> {
            try (CudaDeviceMemory m = CudaDeviceMemory.open(0, env);
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            m,
                            CudaSupport.Options.fromEnvironment(env, comm.config())
                                    .withChunkBytes(512)
                                    .withSlots(2))) {
                assertEquals(DevicePath.STAGED, gpu.path());
                assertTrue(
                        gpu.describePath()
                                .contains("NCCL not used: rank 0 cannot use NCCL: NCCL not found ("
                                        + NcclLibrary.LIBRARY_VARIABLE + "=/nonexistent/libnccl.so.2: no such file)"),
                        gpu.describePath());
                return new DeviceBattery(rank, 2, comm, m).run();
            }
        });
        DeviceBattery.assertClean(results);
    }
}
