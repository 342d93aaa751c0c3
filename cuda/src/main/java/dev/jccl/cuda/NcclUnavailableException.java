package dev.jccl.cuda;

import dev.jccl.JcclException;

/** NCCL cannot be used here (not found, too old, not a NCCL library); the message says what to install or set. */
public class NcclUnavailableException extends JcclException {
    /** NCCL cannot be used for the reason {@code message} gives. */
    public NcclUnavailableException(String message) {
        super(message);
    }

    /** NCCL cannot be used for the reason {@code message} gives, found out through {@code cause}. */
    public NcclUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
