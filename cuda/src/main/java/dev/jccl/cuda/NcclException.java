package dev.jccl.cuda;

import dev.jccl.JcclException;

/**
 * NCCL reported an error, when called or later through {@code ncclCommGetAsyncError}. The message names the operation,
 * the rank, NCCL's result ({@code ncclRemoteError}, …) with {@code ncclGetErrorString}'s sentence and
 * {@code ncclGetLastError}'s detail where NCCL has it.
 */
public class NcclException extends JcclException {
    /** NCCL's {@code ncclResult_t}, as {@link #result()} returns it. */
    private final int result;

    /** A failure with NCCL's {@code ncclResult_t} {@code result}, explained by {@code message}. */
    public NcclException(int result, String message) {
        super(message);
        this.result = result;
    }

    /** NCCL's {@code ncclResult_t}. */
    public int result() {
        return result;
    }
}
