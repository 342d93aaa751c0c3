package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import dev.jccl.cuda.CudaDeviceMemory;
import dev.jccl.cuda.CudaProbe;
import dev.jccl.cuda.CudaRuntime;
import dev.jccl.cuda.CudaSupport;
import dev.jccl.cuda.DeviceMemory;
import dev.jccl.cuda.StandInDeviceMemory;
import java.util.Map;

/** Makes {@link DeviceTarget}s: device memory for this rank, and a device communicator over it. */
final class DeviceTargets {
    private DeviceTargets() {}

    static String whyNoCuda(Map<String, String> env) {
        CudaProbe probe = CudaRuntime.probe(env);
        return probe.available() ? null : "no CUDA device: " + probe.reason();
    }

    static PerfTarget cuda(Communicator comm, int localRank, Map<String, String> env) {
        int gpus = CudaRuntime.probe(env).deviceCount();
        return over(comm, CudaDeviceMemory.open(localRank % Math.max(1, gpus), env), env);
    }

    static PerfTarget standIn(Communicator comm, int localRank, Map<String, String> env) {
        return over(comm, StandInDeviceMemory.create(localRank), env);
    }

    private static PerfTarget over(Communicator comm, DeviceMemory memory, Map<String, String> env) {
        try {
            CudaSupport gpu = CudaSupport.attach(comm, memory, CudaSupport.Options.fromEnvironment(env, comm.config()));
            return new DeviceTarget(gpu, true);
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
    }
}
