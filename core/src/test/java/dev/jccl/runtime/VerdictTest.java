package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import java.nio.channels.ServerSocketChannel;
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
 * The experiment, for each way a rank can fail its peers: ranks in their own JVMs loop on AllReduce, rank 1
 * misbehaves, and every rank that fails must carry the same root cause, naming rank 1 — not each its own neighbour.
 * Then the survivors shrink the failed communicator and check that the new one computes. Three ranks over shared
 * memory, four over TCP.
 */
@Timeout(300)
class VerdictTest {
    private static final int CULPRIT = 1;

    private static int ranksOver(Link link) {
        return link == Link.SHM ? 3 : 4;
    }

    enum Fault {
        /** SIGSTOP: the process is there but answers nothing; its peers reach their deadline. */
        STOPPED("did not answer"),
        /** SIGKILL: no goodbye on any socket or page. */
        KILLED("refused the connection: its process is gone"),
        /** Stops calling collectives, alive, its communicator open. */
        SKIPS_A_CALL("never entered it"),
        /** Calls a Broadcast where the others call an AllReduce. */
        CALLS_ANOTHER_COLLECTIVE("called Broadcast #150");

        final String evidence;

        Fault(String evidence) {
            this.evidence = evidence;
        }
    }

    static Stream<Arguments> faults() {
        List<Arguments> all = new ArrayList<>();
        for (Fault f : Fault.values()) {
            for (Link l : Link.values()) all.add(Arguments.of(f, l));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} over {1}")
    @MethodSource("faults")
    void everyRankThatFailsNamesTheSameCulprit(Fault fault, Link link) throws Exception {
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close(); // rank 0's JVM binds the root port itself
        int ranks = ranksOver(link);
        try (LoopWorkers w = LoopWorkers.start(ranks, id.toString(), 1024, r -> env(r, fault, link), (r, c) -> c)) {
            if (fault == Fault.STOPPED || fault == Fault.KILLED) {
                w.awaitLooping(90);
                Process culprit = w.ranks.get(CULPRIT);
                if (fault == Fault.KILLED) culprit.destroyForcibly();
                else {
                    new ProcessBuilder("kill", "-STOP", Long.toString(culprit.pid()))
                            .start()
                            .waitFor();
                }
            }
            List<String> verdicts = new ArrayList<>();
            String survivors = "old ranks " + survivorsOf(ranks, CULPRIT);
            for (int r = 0; r < ranks; r++) {
                if (r == CULPRIT && fault != Fault.CALLS_ANOTHER_COLLECTIVE) continue;
                Process p = w.ranks.get(r);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), () -> "rank still running 60 s on: " + w.output());
                String out = w.output(r);
                List<String> lines =
                        out.lines().filter(l -> l.startsWith("verdict: ")).toList();
                assertEquals(1, lines.size(), () -> "rank must print one agreed verdict: " + w.output());
                verdicts.add(lines.getFirst());
                if (r == CULPRIT) {
                    assertEquals(3, p.exitValue(), out);
                    assertTrue(out.contains("this rank is named as the cause"), out);
                } else {
                    assertEquals(4, p.exitValue(), () -> "the survivors go on: " + w.output());
                    int newRank = r < CULPRIT ? r : r - 1;
                    assertTrue(out.contains("shrunk: " + survivors + " rank " + newRank + " of " + (ranks - 1)), out);
                    assertTrue(out.contains(" ok"), out);
                }
            }
            String first = verdicts.getFirst();
            System.out.printf("%s over %s, on %d rank(s): %s%n", fault, link, verdicts.size(), first);
            for (String v : verdicts) assertEquals(first, v, () -> "every rank must agree: " + w.output());
            assertTrue(first.startsWith("verdict: [" + CULPRIT + "] "), () -> "rank 1 is the cause: " + w.output());
            assertTrue(first.contains(fault.evidence), () -> "the verdict says how: " + first);
            assertTrue(first.contains("last collective completed"), () -> "with the evidence: " + first);
        }
    }

    /** The rank that would decide is the one killed: the survivors ask the next one, and still agree. */
    @org.junit.jupiter.api.Test
    void whenTheDecidingRankIsTheOneKilledTheNextDecides() throws Exception {
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close();
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

    private static String survivorsOf(int ranks, int culprit) {
        List<Integer> s = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            if (r != culprit) s.add(r);
        }
        return s.toString();
    }

    private static Map<String, String> env(int rank, Fault fault, Link link) {
        Map<String, String> env = new HashMap<>(Map.of(
                "JCCL_SOCKET_IFNAME",
                "lo",
                "JCCL_TIMEOUT",
                fault == Fault.KILLED ? "60" : "4",
                "JCCL_SHM_DISABLE",
                link == Link.TCP ? "1" : "0",
                "JCCL_TEST_SHRINK",
                "1"));
        if (rank == CULPRIT && fault == Fault.SKIPS_A_CALL) env.put("JCCL_TEST_FAULT", "skip");
        if (rank == CULPRIT && fault == Fault.CALLS_ANOTHER_COLLECTIVE) env.put("JCCL_TEST_FAULT", "other");
        return env;
    }
}
