package dev.jccl.cuda;

import dev.jccl.JcclException;

/**
 * A CUDA runtime call failed. The message names the call, CUDA's error name and its sentence (e.g.
 * {@code cudaMemcpyAsync failed: cudaErrorInvalidValue (invalid argument)}), and, where a collective was running, the
 * operation, the rank and the chunk.
 */
public class CudaException extends JcclException {
    /** CUDA's {@code cudaError_t} value, as {@link #error()} returns it. */
    private final int error;

    /** A failure with CUDA's {@code cudaError_t} {@code error} (0 where none), explained by {@code message}. */
    public CudaException(int error, String message) {
        super(message);
        this.error = error;
    }

    /**
     * A failure with CUDA's {@code cudaError_t} {@code error} (0 where none), explained by {@code message} and caused
     * by {@code cause}.
     */
    public CudaException(int error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    /** CUDA's {@code cudaError_t} value; 0 where the failure did not come from a CUDA call. */
    public int error() {
        return error;
    }
}
