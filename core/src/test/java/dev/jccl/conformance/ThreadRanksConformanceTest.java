package dev.jccl.conformance;

import dev.jccl.Config;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conformance battery on 1..5 ranks that are threads of this JVM, each with its own communicator. */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ThreadRanksConformanceTest {

    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void everyCollectiveConforms(int size) {
        Config config = ThreadRanks.loopbackConfig(Duration.ofSeconds(60));
        long start = System.nanoTime();
        List<List<String>> results = ThreadRanks.run(size, config, Duration.ofMinutes(6),
                c -> ConformanceBody.run(c, ConformanceBody.Plan.FULL, c.rank() == 0 ? System.out::println : line -> {}));
        System.out.printf("conformance, %d thread rank(s): %.1f s%n", size, (System.nanoTime() - start) / 1e9);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }
}
