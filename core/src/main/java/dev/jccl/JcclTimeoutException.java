package dev.jccl;

/** A wait passed its deadline ({@code JCCL_TIMEOUT} or {@link Config.Builder#timeout}). */
public class JcclTimeoutException extends JcclException {
    /** A missed deadline; {@code message} names the wait, the deadline and who was waited for. */
    public JcclTimeoutException(String message) {
        super(message);
    }
}
