package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When the rank that would decide the verdict (rank 0) is the one killed, the survivors ask the next one and still
 * agree, then shrink. Every other fault, on shared memory, TCP and two hosts, is in {@link FaultSuiteTest}.
 */
@Timeout(300)
class VerdictTest {
    /** The rank that would decide is the one killed: the survivors ask the next one, and still agree. */
    @Test
    void whenTheDecidingRankIsTheOneKilledTheNextDecides() throws Exception {
        UniqueId id = UniqueId.createForAnotherProcess(
                Config.builder().socketIfname("lo").build());
        Map<String, String> env = Map.of("JCCL_SOCKET_IFNAME", "lo", "JCCL_TIMEOUT", "60", "JCCL_TEST_SHRINK", "1");
        try (LoopWorkers w = LoopWorkers.start(3, id.toString(), 1024, r -> env, (r, c) -> c)) {
            w.awaitLooping(90);
            w.ranks.get(0).destroyForcibly();
            List<String> verdicts = new ArrayList<>();
            for (int r = 1; r < 3; r++) {
                assertTrue(w.ranks.get(r).waitFor(60, TimeUnit.SECONDS), w::output);
                assertEquals(4, w.ranks.get(r).exitValue(), w::output);
                assertTrue(
                        w.output(r).contains("shrunk: old ranks [1, 2] rank " + (r - 1) + " of 2 sum 5 ok"), w::output);
                assertTrue(w.output(r).contains("leaks: threads 0 fds 0 shm 0"), w::output);
                verdicts.add(w.output(r)
                        .lines()
                        .filter(l -> l.startsWith("verdict: "))
                        .findFirst()
                        .orElse("no verdict: " + w.output(r)));
            }
            assertEquals(verdicts.get(0), verdicts.get(1), w::output);
            assertTrue(
                    verdicts.getFirst()
                            .startsWith("verdict: [0] Root cause (decided by rank 1, "
                                    + "the same for every rank that reaches it)"),
                    verdicts::getFirst);
        }
    }
}
