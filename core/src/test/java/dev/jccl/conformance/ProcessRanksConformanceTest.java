package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance battery on 1..5 ranks that are separate JVMs ({@link ConformanceWorker}) over shared memory, and on 4
 * and 5 over TCP (the thread battery has 2 and 3); afterwards no segment of theirs is left in /dev/shm.
 */
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class ProcessRanksConformanceTest {
    /** How the ranks talk. */
    enum Link {
        /** Shared memory with the defaults. */
        SHM,
        /** Sockets only ({@code JCCL_SHM_DISABLE=1}). */
        TCP,
        /** Shared memory, every chunk copied through the outboxes ({@code JCCL_SHM_SINGLE_COPY=0}). */
        SHM_COPY_ONLY,
        /** Shared memory with single copy even where ranks outnumber CPUs ({@code JCCL_OVERSUBSCRIBED=0}). */
        SHM_SINGLE_COPY
    }

    static Stream<Arguments> sizesAndLinks() {
        List<Arguments> out = new ArrayList<>();
        // One rank talks to no one: it runs once, not once per link. Over TCP 4 and 5 ranks: the thread battery runs
        // 2 and 3 over TCP (ThreadRanksConformanceTest), so every count 1-5 is covered on both links, and the suite's
        // 20 minutes do not pay for 2 and 3 twice.
        for (int size = 1; size <= 5; size++) out.add(Arguments.of(size, Link.SHM));
        for (int size : new int[] {4, 5}) out.add(Arguments.of(size, Link.TCP));
        // Single copy (readers copy straight out of a writer's buffer) is on only where ranks have a CPU each: on this
        // 2-CPU machine, 2 ranks. Forced on for 3 and 5, and off for 2, so that both paths meet every rank count.
        out.add(Arguments.of(2, Link.SHM_COPY_ONLY));
        for (int size : new int[] {3, 5}) out.add(Arguments.of(size, Link.SHM_SINGLE_COPY));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} process ranks over {1}")
    @MethodSource("sizesAndLinks")
    void everyCollectiveConforms(int size, Link link) throws Exception {
        UniqueId id = TestRanks.loopbackIdForOtherProcesses();
        Map<String, String> env = new HashMap<>(Map.of("JCCL_SOCKET_IFNAME", "lo", "JCCL_TIMEOUT", "60"));
        if (link == Link.TCP) env.put("JCCL_SHM_DISABLE", "1");
        if (link == Link.SHM_COPY_ONLY) env.put("JCCL_SHM_SINGLE_COPY", "0");
        if (link == Link.SHM_SINGLE_COPY) env.put("JCCL_OVERSUBSCRIBED", "0");
        long start = System.nanoTime();
        List<ProcessRanks.Outcome> outcomes = ProcessRanks.run(
                size, ConformanceWorker.class, List.of("{rank}", "{size}", id.toString()), env, Duration.ofMinutes(7));
        System.out.printf(
                "conformance, %d process rank(s) over %s: %.1f s%n", size, link, (System.nanoTime() - start) / 1e9);
        outcomes.getFirst()
                .output()
                .lines()
                .filter(l -> l.startsWith("rank 0/"))
                .forEach(System.out::println);
        assertEquals(size, outcomes.size());
        assertTrue(outcomes.stream().allMatch(ProcessRanks.Outcome::passed), () -> ProcessRanks.report(outcomes));
        for (ProcessRanks.Outcome o : outcomes) {
            assertTrue(
                    o.output().contains("rank " + o.rank() + "/" + size + ": PASS"),
                    () -> ProcessRanks.report(outcomes));
        }
        try (Stream<Path> left = Files.list(Path.of("/dev/shm"))) {
            List<Path> ours = left.filter(p -> p.getFileName().toString().startsWith("jccl-"))
                    .toList();
            assertTrue(ours.isEmpty(), () -> "left in /dev/shm: " + ours);
        }
    }
}
