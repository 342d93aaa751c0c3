package dev.jccl;

/** The rendezvous that forms a communicator failed: a rank never arrived, a secret did not match, … */
public class BootstrapException extends JcclException {
    /** A failed rendezvous, explained by {@code message}. */
    public BootstrapException(String message) {
        super(message);
    }

    /** A failed rendezvous, explained by {@code message}, caused by {@code cause} (an I/O error, say). */
    public BootstrapException(String message, Throwable cause) {
        super(message, cause);
    }
}
