package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.NetworkNamespaces;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several hosts on one machine: network namespaces joined by a bridge (see {@link NetworkNamespaces}), each with its
 * own JCCL_HOSTID, ranks started inside them with {@code ip netns exec}. Only the namespaces' own 10.77.0.0/24
 * addresses carry traffic; the interface chosen must be the veth, never lo.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class MultiHostTest {

    @Test
    void threeHostsOneRankEachConformOverTheirVeths() throws Exception {
        try (NetworkNamespaces hosts = NetworkNamespaces.create(3)) {
            List<ProcessRanks.Outcome> outcomes = run(hosts, 3, r -> r);
            for (ProcessRanks.Outcome o : outcomes) {
                String me = NetworkNamespaces.address(o.rank());
                assertTrue(o.output().contains("NET/Socket : Using [0]jv" + o.rank() + ":" + me), o.output());
                for (int peer = 0; peer < 3; peer++) {
                    if (peer == o.rank()) continue;
                    assertTrue(
                            o.output().contains("peer " + peer + " ")
                                    && o.output()
                                            .contains("via NET/Socket/" + NetworkNamespaces.address(peer)
                                                    + " (different host)"),
                            "rank " + o.rank() + ": " + o.output());
                }
                assertFalse(o.output().contains("127.0.0.1"), "nothing may use loopback: " + o.output());
            }
        }
    }

    @Test
    void twoHostsOfTwoRanksUseSharedMemoryInsideAndTcpBetween() throws Exception {
        try (NetworkNamespaces hosts = NetworkNamespaces.create(2)) {
            List<ProcessRanks.Outcome> outcomes = run(hosts, 4, r -> r / 2);
            for (ProcessRanks.Outcome o : outcomes) {
                int host = o.rank() / 2;
                int neighbour = host * 2 + (1 - o.rank() % 2);
                assertTrue(
                        o.output().matches("(?s).*peer " + neighbour + " \\([^)]*\\) via SHM/direct \\(same host\\).*"),
                        "rank " + o.rank() + " must reach rank " + neighbour + " through shared memory: " + o.output());
                for (int peer = 0; peer < 4; peer++) {
                    if (peer / 2 == host) continue;
                    assertTrue(
                            o.output()
                                    .matches("(?s).*peer " + peer + " \\([^)]*\\) via NET/Socket/"
                                            + NetworkNamespaces.address(peer / 2)
                                                    .replace(".", "\\.") + " \\(different host\\).*"),
                            "rank " + o.rank() + " must reach rank " + peer + " over TCP: " + o.output());
                }
            }
        }
    }

    @Test
    void anInterfaceNameThatMatchesNothingThereListsTheInterfacesThereAre() throws Exception {
        try (NetworkNamespaces hosts = NetworkNamespaces.create(1)) {
            List<ProcessRanks.Outcome> outcomes = ProcessRanks.run(
                    1,
                    ConformanceWorker.class,
                    List.of(
                            "0",
                            "2",
                            "jccl1:" + NetworkNamespaces.address(0) + ":29500:00112233445566778899aabbccddeeff"),
                    r -> Map.of("JCCL_SOCKET_IFNAME", "eth", "JCCL_TIMEOUT", "10"),
                    (r, cmd) -> hosts.command(0, cmd),
                    Duration.ofMinutes(1));
            ProcessRanks.Outcome o = outcomes.getFirst();
            assertEquals(2, o.exitCode(), o.output()); // could not make the communicator
            assertTrue(
                    o.output().contains("SOCKET_IFNAME='eth' matches no usable interface")
                            && o.output().contains("jv0"),
                    "the error must name the filter and list the interfaces of this host: " + o.output());
        }
    }

    /** Runs the conformance battery with rank r on host {@code hostOf(r)}; every rank must pass. */
    private static List<ProcessRanks.Outcome> run(
            NetworkNamespaces hosts, int size, java.util.function.IntUnaryOperator hostOf) throws Exception {
        byte[] secret = new byte[16];
        ThreadLocalRandom.current().nextBytes(secret);
        String id = "jccl1:" + NetworkNamespaces.address(0) + ":29500:"
                + HexFormat.of().formatHex(secret);
        long start = System.nanoTime();
        List<ProcessRanks.Outcome> outcomes = ProcessRanks.run(
                size,
                ConformanceWorker.class,
                List.of("{rank}", "{size}", id),
                r -> Map.of(
                        "JCCL_SOCKET_IFNAME",
                        "jv",
                        "JCCL_HOSTID",
                        "host-" + hostOf.applyAsInt(r),
                        "JCCL_TIMEOUT",
                        "60",
                        "JCCL_DEBUG",
                        "INFO",
                        "JCCL_DEBUG_SUBSYS",
                        "INIT,NET"),
                (r, cmd) -> hosts.command(hostOf.applyAsInt(r), cmd),
                Duration.ofMinutes(10));
        System.out.printf(
                "conformance, %d ranks on %d network-namespace hosts: %.1f s%n",
                size, hosts.hosts(), (System.nanoTime() - start) / 1e9);
        assertTrue(outcomes.stream().allMatch(ProcessRanks.Outcome::passed), () -> ProcessRanks.report(outcomes));
        for (ProcessRanks.Outcome o : outcomes) {
            assertTrue(
                    o.output().contains("rank " + o.rank() + "/" + size + ": PASS"),
                    () -> ProcessRanks.report(outcomes));
        }
        return outcomes;
    }
}
