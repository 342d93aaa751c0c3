package dev.jccl.conformance;

import dev.jccl.UniqueId;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The conformance battery on 1..5 ranks that are separate JVMs ({@link ConformanceWorker}). */
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class ProcessRanksConformanceTest {

    @ParameterizedTest(name = "{0} process ranks")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void everyCollectiveConforms(int size) throws Exception {
        UniqueId id = ProcessRanks.loopbackIdForOtherProcesses();
        long start = System.nanoTime();
        List<ProcessRanks.Outcome> outcomes = ProcessRanks.run(size, ConformanceWorker.class,
                List.of("{rank}", "{size}", id.toString()),
                Map.of("JCCL_SOCKET_IFNAME", "lo", "JCCL_TIMEOUT", "60"),
                Duration.ofMinutes(7));
        System.out.printf("conformance, %d process rank(s): %.1f s%n", size, (System.nanoTime() - start) / 1e9);
        outcomes.getFirst().output().lines().filter(l -> l.startsWith("rank 0/")).forEach(System.out::println);
        assertEquals(size, outcomes.size());
        assertTrue(outcomes.stream().allMatch(ProcessRanks.Outcome::passed), () -> ProcessRanks.report(outcomes));
        for (ProcessRanks.Outcome o : outcomes) {
            assertTrue(o.output().contains("rank " + o.rank() + "/" + size + ": PASS"), () -> ProcessRanks.report(outcomes));
        }
    }
}
