package dev.jccl.concurrent;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.JcclException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class FuturesTest {

    @Test
    void aCompletedFutureReturns() {
        assertDoesNotThrow(() -> Futures.join(CompletableFuture.completedFuture(null)));
    }

    @Test
    void anUncheckedFailureIsThrownItselfNotItsWrapper() {
        JcclException failure = new JcclException("rank 1: AllReduce #7 failed");
        JcclException thrown =
                assertThrows(JcclException.class, () -> Futures.join(CompletableFuture.failedFuture(failure)));
        assertSame(failure, thrown);

        AssertionError error = new AssertionError("an Error");
        assertSame(
                error, assertThrows(AssertionError.class, () -> Futures.join(CompletableFuture.failedFuture(error))));
    }

    @Test
    void aCheckedFailureBecomesAJcclExceptionAroundIt() {
        IOException cause = new IOException("checked");
        JcclException thrown =
                assertThrows(JcclException.class, () -> Futures.join(CompletableFuture.failedFuture(cause)));
        assertSame(cause, thrown.getCause());
    }

    @Test
    void anInterruptEndsTheWaitAndKeepsTheFlag() {
        Thread.currentThread().interrupt();
        try {
            assertThrows(JcclException.class, () -> Futures.join(new CompletableFuture<Void>()));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt flag is set again");
        } finally {
            Thread.interrupted();
        }
    }
}
