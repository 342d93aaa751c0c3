package dev.jccl.cuda;

/**
 * Whether CUDA can be used in this process, from {@link CudaRuntime#probe}.
 *
 * @param available true when the runtime loaded, a driver is there, and at least one device is visible
 * @param library where libcudart was loaded from, or null if it was not found
 * @param runtimeVersion CUDA's version code of the runtime ({@code 12040} for 12.4), 0 if unknown
 * @param driverVersion the newest CUDA the driver supports, 0 if there is no driver or it is unknown
 * @param deviceCount devices visible to this process
 * @param reason why CUDA cannot be used, in a sentence; null when it can
 */
public record CudaProbe(
        boolean available, String library, int runtimeVersion, int driverVersion, int deviceCount, String reason) {
    static CudaProbe unavailable(String library, int runtimeVersion, int driverVersion, String reason) {
        return new CudaProbe(false, library, runtimeVersion, driverVersion, 0, reason);
    }

    /** {@code CUDA 12.4 (driver 12.6, libcudart.so.12), 8 devices}, or the reason CUDA cannot be used. */
    public String summary() {
        if (!available) return reason;
        return "CUDA " + CudaRuntime.version(runtimeVersion) + " (driver " + CudaRuntime.version(driverVersion) + ", "
                + library + "), " + deviceCount + (deviceCount == 1 ? " device" : " devices");
    }
}
