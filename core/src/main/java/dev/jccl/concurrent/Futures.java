package dev.jccl.concurrent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Waiting for a Jccl future the way the blocking API reports failures: the operation's own exception, unwrapped. */
public final class Futures {
    private Futures() {}

    /**
     * Waits for {@code f} and throws what it failed with: the cause itself when it is unchecked (the wrapper adds
     * nothing to a {@code JcclException}'s message), else the {@link CompletionException}.
     */
    public static void join(CompletableFuture<?> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            if (e.getCause() instanceof Error cause) throw cause;
            throw e;
        }
    }
}
