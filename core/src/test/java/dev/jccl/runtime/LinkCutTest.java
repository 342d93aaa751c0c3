package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.JcclException;
import dev.jccl.NetworkNamespaces;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pulled cable: two ranks on two pretend hosts (network namespaces joined by a bridge) loop on AllReduce over TCP,
 * then one host's interface goes down. Nothing tells either rank (no FIN, no RST, the kernel would retransmit for many
 * minutes), so the deadline is what saves them: both must fail within JCCL_TIMEOUT and a little, naming the operation
 * and the peer they waited for, and each side's verdict names the side it cannot reach.
 */
@Timeout(180)
class LinkCutTest {
    private static final int TIMEOUT_SECONDS = 5;

    @Test
    void aCutLinkFailsBothSidesAtTheDeadline() throws Exception {
        try (NetworkNamespaces hosts = NetworkNamespaces.create(2)) {
            byte[] secret = new byte[16];
            ThreadLocalRandom.current().nextBytes(secret);
            String id = "jccl1:" + NetworkNamespaces.address(0) + ":29500:"
                    + HexFormat.of().formatHex(secret);
            try (LoopWorkers w = LoopWorkers.start(
                    2,
                    id,
                    4096,
                    r -> Map.of(
                            "JCCL_SOCKET_IFNAME",
                            "jv",
                            "JCCL_HOSTID",
                            "host-" + r,
                            "JCCL_TIMEOUT",
                            Integer.toString(TIMEOUT_SECONDS)),
                    hosts::command)) {
                w.awaitLooping(90);
                long cut = System.nanoTime();
                hosts.cutLink(1);
                for (int r = 0; r < 2; r++) {
                    int peer = 1 - r;
                    Process p = w.ranks.get(r);
                    assertTrue(
                            p.waitFor(TIMEOUT_SECONDS + 30, TimeUnit.SECONDS),
                            () -> "a rank still waits after the cut: " + w.output());
                    double seconds = (System.nanoTime() - cut) / 1e9;
                    String out = w.output(r);
                    assertEquals(3, p.exitValue(), out);
                    assertTrue(out.contains(JcclException.class.getPackageName()), out);
                    assertTrue(
                            out.contains("AllReduce #") && out.contains("rank " + peer + " ("),
                            "rank " + r + " must name the operation and rank " + peer + ": " + out);
                    System.out.printf(
                            "cut link: rank %d failed %.2f s after the cut (JCCL_TIMEOUT=%d): %s%n",
                            r,
                            seconds,
                            TIMEOUT_SECONDS,
                            out.lines()
                                    .filter(l -> l.startsWith("failed at"))
                                    .findFirst()
                                    .orElse("?"));
                    // A partition: neither side can hear the other, so each names the other (no quorum to do better).
                    String verdict = out.lines()
                            .filter(l -> l.startsWith("verdict: "))
                            .findFirst()
                            .orElse("no verdict: " + out);
                    System.out.printf("cut link: rank %d: %s%n", r, verdict);
                    assertTrue(verdict.startsWith("verdict: [" + peer + "] ") && verdict.contains("cut"), verdict);
                    assertTrue(
                            seconds < TIMEOUT_SECONDS + 10,
                            "rank " + r + " failed only " + seconds + " s after the cut");
                }
            }
        }
    }
}
