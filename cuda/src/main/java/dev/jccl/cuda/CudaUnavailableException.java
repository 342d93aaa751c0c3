package dev.jccl.cuda;

import dev.jccl.JcclException;

/**
 * CUDA cannot be used in this process, and the message says why in a sentence a user can act on: no libcudart (with the
 * names tried and how to name another), no driver, a driver older than the runtime, no device visible. Host collectives
 * are not affected.
 */
public class CudaUnavailableException extends JcclException {
    /** CUDA cannot be used for the reason {@code message} gives. */
    public CudaUnavailableException(String message) {
        super(message);
    }

    /** CUDA cannot be used for the reason {@code message} gives, found out through {@code cause}. */
    public CudaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
