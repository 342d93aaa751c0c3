package dev.jccl.cuda;

import java.util.Map;

/**
 * What {@code jccl info} says about GPUs here: whether CUDA can be used, and which path device buffers would take and
 * why. Looks only at this process (the path a job really takes is agreed by all of its ranks when a GPU is attached;
 * see {@link CudaSupport#describePath()}).
 *
 * @param available whether device buffers can be used here at all
 * @param detail one line: the CUDA found, and the path; or why there is no CUDA
 */
public record CudaStatus(boolean available, String detail) {

    /**
     * Probes CUDA and NCCL as {@code env} says ({@code JCCL_CUDA_LIB}, {@code JCCL_NCCL_LIB}, {@code JCCL_CUDA_PATH}).
     */
    public static CudaStatus probe(Map<String, String> env) {
        DevicePath.Request request = DevicePath.Request.parse(env.get(DevicePath.VARIABLE));
        CudaProbe cuda = CudaRuntime.probe(env);
        if (!cuda.available()) {
            return new CudaStatus(false, "not available: " + cuda.reason() + "; host collectives are not affected");
        }
        String staged = "device buffers are staged through pinned host memory";
        if (request == DevicePath.Request.STAGED) {
            return new CudaStatus(true, cuda.summary() + "; " + staged + " (" + DevicePath.VARIABLE + "=staged)");
        }
        try {
            NcclLibrary nccl = NcclLibrary.load(env);
            String what = "NCCL " + NcclTypes.version(nccl.version()) + " (" + nccl.library() + ")";
            return new CudaStatus(
                    true,
                    cuda.summary() + "; device buffers go to " + what
                            + (request == DevicePath.Request.NCCL
                                    ? " (" + DevicePath.VARIABLE + "=nccl)"
                                    : " where each rank has its own GPU, else " + staged));
        } catch (NcclUnavailableException e) {
            if (request == DevicePath.Request.NCCL) {
                return new CudaStatus(
                        true,
                        cuda.summary() + "; " + DevicePath.VARIABLE
                                + "=nccl but NCCL cannot be used, so device communicators will fail: "
                                + e.getMessage());
            }
            return new CudaStatus(true, cuda.summary() + "; " + staged + " (" + e.getMessage() + ")");
        }
    }
}
