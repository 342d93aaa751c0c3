package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.TestRanks;
import dev.jccl.cuda.CudaSupport;
import dev.jccl.cuda.DeviceBuffer;
import dev.jccl.cuda.StandInDeviceMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The host conformance battery ({@link ConformanceBody}) with a GPU attached and every native buffer it makes on the
 * (stand-in) device: those cases run on the device path, staged through pinned memory in chunks, while its heap cases
 * run on the host path, in one order. The same cases, sizes, types, ops and checks as the host's, guard bytes included.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class HostBatteryOnDeviceTest {

    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    @SuppressWarnings("restricted") // a stand-in device allocation, tied to the battery's arena
    void theHostBatteryPassesOnDeviceBuffers(int size) {
        List<List<String>> results =
                ThreadRanks.run(size, TestRanks.loopback(Duration.ofSeconds(60)), Duration.ofMinutes(6), comm -> {
                    StandInDeviceMemory memory = StandInDeviceMemory.create(comm.rank() % 2);
                    CudaSupport gpu = CudaSupport.attach(
                            comm,
                            memory,
                            CudaSupport.Options.fromEnvironment(Map.of(), comm.config())
                                    .withChunkBytes(16 << 10));
                    GuardedBuffers.nativeBuffersFrom((bytes, arena) -> {
                        DeviceBuffer b = memory.allocate(bytes);
                        return b.segment().reinterpret(bytes, arena, unused -> memory.free(b));
                    });
                    try {
                        List<String> problems =
                                new ArrayList<>(ConformanceBody.run(comm, ConformanceBody.Plan.QUICK, line -> {}));
                        if (memory.copiesIssued() == 0) {
                            problems.add("no device copies were made: the device path never ran");
                        }
                        return problems;
                    } finally {
                        GuardedBuffers.nativeBuffersFrom(null);
                        gpu.close();
                        memory.close();
                    }
                });
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }
}
