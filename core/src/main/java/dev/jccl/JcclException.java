package dev.jccl;

/**
 * Base of every error a communicator reports. Messages name the operation, the rank and, where one is involved, the
 * peer, so that a log line from one rank of a large job is enough to act on.
 */
public class JcclException extends RuntimeException {
    public JcclException(String message) {
        super(message);
    }

    public JcclException(String message, Throwable cause) {
        super(message, cause);
    }
}
