package dev.jccl;

/** The rendezvous that forms a communicator failed: a rank never arrived, a secret did not match, … */
public class BootstrapException extends JcclException {
    public BootstrapException(String message) {
        super(message);
    }

    public BootstrapException(String message, Throwable cause) {
        super(message, cause);
    }
}
