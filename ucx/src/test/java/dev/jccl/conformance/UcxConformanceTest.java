package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.TestRanks;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The conformance battery with JCCL_NET=UCX: every rank reaches every other through UCX (shared memory off, so that
 * nothing else carries the bytes; UCX runs over its tcp transport on loopback here, there being no RDMA device), as
 * threads and as separate JVMs; and ranks on two pretend hosts, shared memory inside each and UCX between.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class UcxConformanceTest {
    static Config ucx(Duration timeout) {
        return Link.TCP.config(timeout).toBuilder().net("UCX").build();
    }

    // 2, 3 and 5 ranks: even, odd, and more than a ring of four. Four ranks over UCX run in
    // twoHostsUseSharedMemoryInsideAndUcxBetween below (UCX between the hosts), which keeps the suite in its budget.
    @ParameterizedTest(name = "{0} thread ranks over UCX")
    @ValueSource(ints = {2, 3, 5})
    void everyCollectiveConformsOverUcx(int size) {
        long start = System.nanoTime();
        List<List<String>> results = ThreadRanks.run(
                size,
                ucx(Duration.ofSeconds(60)),
                Duration.ofMinutes(6),
                c -> ConformanceBody.run(
                        c,
                        size <= 3 ? ConformanceBody.Plan.FULL : ConformanceBody.Plan.PROCESS,
                        c.rank() == 0 ? System.out::println : line -> {}));
        System.out.printf("conformance, %d thread rank(s) over UCX: %.1f s%n", size, (System.nanoTime() - start) / 1e9);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    @Test
    void threeProcessRanksConformOverUcx() throws Exception {
        UniqueId id = TestRanks.loopbackIdForOtherProcesses();
        long start = System.nanoTime();
        List<ProcessRanks.Outcome> outcomes = ProcessRanks.run(
                3,
                ConformanceWorker.class,
                List.of("{rank}", "{size}", id.toString()),
                Map.of(
                        "JCCL_SOCKET_IFNAME",
                        "lo",
                        "JCCL_TIMEOUT",
                        "60",
                        "JCCL_SHM_DISABLE",
                        "1",
                        "JCCL_NET",
                        "UCX",
                        "JCCL_DEBUG",
                        "INFO",
                        "JCCL_DEBUG_SUBSYS",
                        "NET"),
                Duration.ofMinutes(7));
        System.out.printf("conformance, 3 process ranks over UCX: %.1f s%n", (System.nanoTime() - start) / 1e9);
        assertTrue(outcomes.stream().allMatch(ProcessRanks.Outcome::passed), () -> ProcessRanks.report(outcomes));
        for (ProcessRanks.Outcome o : outcomes) {
            assertTrue(
                    o.output().contains("NET/UCX : Using UCX 1."),
                    "the debug output names UCX and its version: " + o.output());
            assertTrue(o.output().contains("via NET/UCX/"), "peers are reached through UCX: " + o.output());
        }
    }

    @Test
    void twoHostsUseSharedMemoryInsideAndUcxBetween() {
        List<List<String>> results = ThreadRanks.runOnTwoHosts(
                4, // hosts of 2 and 2
                settings -> settings.net("UCX"),
                Duration.ofMinutes(6),
                c -> ConformanceBody.run(c, ConformanceBody.Plan.PROCESS, line -> {}));
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }
}
