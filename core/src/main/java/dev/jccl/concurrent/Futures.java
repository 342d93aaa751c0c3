package dev.jccl.concurrent;

import dev.jccl.JcclException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Waiting for a Jccl future the way the blocking API reports failures: the operation's own exception, unwrapped. */
public final class Futures {
    private Futures() {}

    /**
     * Waits for {@code f} and throws what it failed with: the cause itself when it is unchecked (the wrapper adds
     * nothing to a {@code JcclException}'s message), else a {@link JcclException} around it. An interrupt ends the wait
     * with a {@link JcclException} and leaves the thread's interrupt flag set.
     */
    public static void join(CompletableFuture<?> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException unchecked) throw unchecked;
            if (cause instanceof Error error) throw error;
            throw new JcclException(String.valueOf(cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("interrupted while waiting for an operation to finish", e);
        }
    }
}
