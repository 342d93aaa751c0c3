package dev.jccl;

/** A wait passed its deadline ({@code JCCL_TIMEOUT} or {@link Config.Builder#timeout}). */
public class JcclTimeoutException extends JcclException {
    public JcclTimeoutException(String message) {
        super(message);
    }
}
