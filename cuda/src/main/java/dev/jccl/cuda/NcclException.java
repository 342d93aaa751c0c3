package dev.jccl.cuda;

import dev.jccl.JcclException;

/**
 * NCCL reported an error, when called or later through {@code ncclCommGetAsyncError}. The message names the operation,
 * the rank, NCCL's result ({@code ncclRemoteError}, …) with {@code ncclGetErrorString}'s sentence and
 * {@code ncclGetLastError}'s detail where NCCL has it.
 */
public class NcclException extends JcclException {
    private final int result;

    public NcclException(int result, String message) {
        super(message);
        this.result = result;
    }

    /** NCCL's {@code ncclResult_t}. */
    public int result() {
        return result;
    }
}
