package dev.jccl.cuda;

import dev.jccl.JcclException;

/** NCCL cannot be used here (not found, too old, not a NCCL library); the message says what to install or set. */
public class NcclUnavailableException extends JcclException {
    public NcclUnavailableException(String message) {
        super(message);
    }

    public NcclUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
