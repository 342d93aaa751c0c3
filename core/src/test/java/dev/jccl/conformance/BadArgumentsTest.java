package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad arguments are refused with IllegalArgumentException on the calling rank before any data moves, and leave the
 * communicator usable ({@link BadArgumentsBody}). Every rank makes the same bad call. A short timeout, so that a bad
 * call wrongly accepted on some ranks fails fast.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BadArgumentsTest {

    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {2, 3})
    void badArgumentsAreRefusedAndHarmless(int size) {
        Config config = ThreadRanks.loopbackConfig(Duration.ofSeconds(15));
        List<List<String>> results = ThreadRanks.run(size, config, Duration.ofMinutes(3), BadArgumentsBody::run);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    /**
     * Broadcast's send and Reduce's recv matter only at the root, but a too-small one must be refused on every rank: a
     * check that depends on the rank lets the non-roots walk into a Broadcast the root has refused, and the ranks fall
     * out of step.
     */
    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {2, 3})
    void rootOnlyBuffersAreCheckedOnEveryRank(int size) {
        Config config = ThreadRanks.loopbackConfig(Duration.ofSeconds(15));
        List<List<String>> results =
                ThreadRanks.run(size, config, Duration.ofMinutes(2), BadArgumentsBody::runRootOnly);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }
}
