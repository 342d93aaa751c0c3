package dev.jccl.conformance;

import dev.jccl.Config;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad arguments are refused with IllegalArgumentException on the calling rank before any data
 * moves, and leave the communicator usable ({@link BadArgumentsBody}). Every rank makes the same
 * bad call. A short timeout, so that a bad call wrongly accepted on some ranks fails fast.
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
}
