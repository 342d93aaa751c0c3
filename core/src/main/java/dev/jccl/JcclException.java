package dev.jccl;

/**
 * Base of every error a communicator reports. Messages name the operation, the rank and, where one is involved, the
 * peer, so that a log line from one rank of a large job is enough to act on.
 */
public class JcclException extends RuntimeException {
    /** The agreed root cause, once the ranks have compared notes; see {@link #verdict()}. */
    private volatile FailureVerdict verdict;

    /** An error explained by {@code message}. */
    public JcclException(String message) {
        super(message);
    }

    /** An error explained by {@code message}, caused by {@code cause}. */
    public JcclException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The root cause every rank agreed on, where this error (or the error that caused it, as for a call refused because
     * the communicator failed earlier) failed a collective and the ranks could compare notes; null otherwise. Its
     * {@link FailureVerdict#describe()} ends the message of the error it was attached to.
     */
    public FailureVerdict verdict() {
        for (Throwable t = this; t != null; t = t.getCause()) {
            if (t instanceof JcclException j && j.verdict != null) return j.verdict;
        }
        return null;
    }

    /** Attaches the agreed root cause (once; the runtime calls this before the error reaches the caller). */
    public JcclException withVerdict(FailureVerdict v) {
        if (verdict == null) verdict = v;
        return this;
    }

    @Override
    public String getMessage() {
        FailureVerdict v = verdict;
        String own = super.getMessage();
        return v == null ? own : own + "\n" + v.describe();
    }
}
