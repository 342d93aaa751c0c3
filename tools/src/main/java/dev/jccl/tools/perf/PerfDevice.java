package dev.jccl.tools.perf;

import dev.jccl.Communicator;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * {@code jccl perf --device}: host memory (default), {@code cuda} (a GPU per local rank, modulo the GPUs this process
 * sees), or {@code standin}, a host stand-in for a GPU that runs the whole device path (device communicator, staging
 * pipeline, mirrors) where there is no GPU, for tests and trials. The CUDA classes are touched only for a device
 * ({@link DeviceTargets}), so host runs need none.
 */
public enum PerfDevice {
    HOST,
    CUDA,
    STANDIN;

    /** Exit code of {@code perf --device cuda} where there is no usable GPU. */
    public static final int NO_DEVICE_EXIT = 2;

    public static PerfDevice parse(CommandLine cl, String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cl, "--device takes host or cuda, got '" + value + "'");
        }
    }

    /** Why this device cannot be used here ({@code no CUDA device: …}), or null if it can. */
    public String unavailable(Map<String, String> env) {
        return this == CUDA ? DeviceTargets.whyNoCuda(env) : null;
    }

    /**
     * The target for this rank: host memory, or a device communicator over {@code comm} on GPU {@code localRank %
     * GPUs}. Collective for devices.
     */
    public PerfTarget open(Communicator comm, int localRank, Map<String, String> env) {
        return switch (this) {
            case HOST -> new HostTarget(comm);
            case CUDA -> DeviceTargets.cuda(comm, localRank, env);
            case STANDIN -> DeviceTargets.standIn(comm, localRank, env);
        };
    }
}
