package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.TestRanks.Link;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance battery on 1..5 ranks that are threads of this JVM, each with its own communicator: over shared
 * memory (the default between ranks of one host), over TCP (JCCL_SHM_DISABLE; 2 and 3 ranks, the process battery covers
 * 2..5), over both at once (ranks on two pretend hosts), and with the tuner's choice forced each way (JCCL_ALGO /
 * JCCL_PROTO), so that every algorithm × protocol meets every size.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ThreadRanksConformanceTest {

    static Stream<Arguments> sizesAndLinks() {
        List<Arguments> out = new ArrayList<>();
        // One rank talks to no one: it runs once, not once per link. TCP between threads runs at 2 and 3 ranks
        // only: ProcessRanksConformanceTest runs TCP on 4 and 5 ranks in separate JVMs, the same sockets and
        // schedules in the form jobs use (each count once: both would cost 50 s of the suite's 20 minutes).
        for (Link link : Link.values()) {
            int from = link == Link.SHM ? 1 : 2;
            int to = link == Link.TCP ? 3 : 5;
            for (int size = from; size <= to; size++) out.add(Arguments.of(size, link));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} thread ranks over {1}")
    @MethodSource("sizesAndLinks")
    void everyCollectiveConforms(int size, Link link) {
        Config config = link.config(Duration.ofSeconds(60));
        long start = System.nanoTime();
        List<List<String>> results = ThreadRanks.run(
                size,
                config,
                Duration.ofMinutes(6),
                c -> ConformanceBody.run(
                        c, ConformanceBody.Plan.FULL, c.rank() == 0 ? System.out::println : line -> {}));
        System.out.printf(
                "conformance, %d thread rank(s) over %s: %.1f s%n", size, link, (System.nanoTime() - start) / 1e9);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    /**
     * Ranks on two pretend hosts (JCCL_HOSTID "a" for the first half, "b" for the rest): shared memory inside each
     * host, TCP between them, in one communicator. Two ranks would be one per host, which is the TCP run above. Five
     * ranks (hosts of 3 and 2) force the two-level schedules: Broadcast, Reduce, AllGather, ReduceScatter and AllToAll
     * run them; AllReduce, whose two-level schedule needs hosts of equal size, takes the tuner's pick, as 3 and 4 ranks
     * do everywhere (on 4 ranks that pick is the two-level AllToAll for small blocks).
     */
    @ParameterizedTest(name = "{0} thread ranks on two hosts, JCCL_ALGO={1}")
    @CsvSource({"3,", "4,", "5,Hierarchical"})
    void everyCollectiveConformsAcrossSharedMemoryAndTcp(int size, String algo) {
        long start = System.nanoTime();
        List<List<String>> results = ThreadRanks.runOnTwoHosts(
                size,
                settings -> settings.algo(algo),
                Duration.ofMinutes(6),
                c -> ConformanceBody.run(
                        c, ConformanceBody.Plan.FULL, c.rank() == 0 ? System.out::println : line -> {}));
        System.out.printf(
                "conformance, %d thread rank(s) on two hosts: %.1f s%n", size, (System.nanoTime() - start) / 1e9);
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    static Stream<Arguments> forcedChoices() {
        List<Arguments> out = new ArrayList<>();
        for (int size : new int[] {2, 3, 5}) {
            out.add(Arguments.of(size, Link.SHM, "OneShot", null));
            out.add(Arguments.of(size, Link.SHM, "Ring", "Simple"));
            out.add(Arguments.of(size, Link.TCP, "OneShot", null));
        }
        // The tree and recursive schedules on a rank count that folds (5) and one that does not (8). Tree covers
        // AllReduce, Broadcast and Reduce; RecursiveDoubling AllReduce, Bruck AllGather and AllToAll; Rabenseifner
        // AllReduce;
        // the other collectives take the tuner's pick.
        for (int size : new int[] {5, 8}) {
            for (String algo : new String[] {"Tree", "RecursiveDoubling,Bruck", "Rabenseifner"}) {
                out.add(Arguments.of(size, Link.SHM, algo, "Simple"));
            }
        }
        return out.stream();
    }

    /**
     * The pipelined trees on real transports: with a 16 KiB buffer (4 KiB chunks), the 64 KiB AllReduce, Broadcast and
     * Reduce of the quick plan run each half in 128 pieces through both binary trees (for Broadcast and Reduce, the
     * rooted trees, from every root the plan uses), where the default chunk leaves every size of that plan one piece
     * (the binomial trees).
     */
    @ParameterizedTest(name = "{0} thread ranks over {1}, pipelined trees")
    @CsvSource({"5,SHM", "8,SHM", "5,TCP"})
    void thePipelinedTreesConform(int size, Link link) {
        Config config = link.config(Duration.ofSeconds(60)).toBuilder()
                .algo("Tree")
                .proto("Simple")
                .buffSize(16 << 10)
                .build();
        assertQuickPlanPasses(size, config);
    }

    /** Whatever the tuner would pick, each algorithm × protocol must be right at every size it can run. */
    @ParameterizedTest(name = "{0} thread ranks over {1}, JCCL_ALGO={2} JCCL_PROTO={3}")
    @MethodSource("forcedChoices")
    void everyCollectiveConformsWithTheChoiceForced(int size, Link link, String algo, String proto) {
        Config config = link.config(Duration.ofSeconds(60)).toBuilder()
                .algo(algo)
                .proto(proto)
                .build();
        assertQuickPlanPasses(size, config);
    }

    /** The quick conformance plan on {@code size} thread ranks with {@code config}: every rank passes. */
    private static void assertQuickPlanPasses(int size, Config config) {
        List<List<String>> results = ThreadRanks.run(
                size,
                config,
                Duration.ofMinutes(6),
                c -> ConformanceBody.run(c, ConformanceBody.Plan.QUICK, line -> {}));
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }
}
