package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.PeerFailedException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What fails over UCX fails as it does over sockets: loudly, fast, naming who and what. */
@Timeout(180)
class UcxFailureTest {
    private static Config ucx(Duration timeout) {
        return Link.TCP.config(timeout).toBuilder().net("UCX").build();
    }

    @Test
    void aKilledRankFailsEverySurvivorWithinSeconds() throws Exception {
        Map<String, String> env =
                Map.of("JCCL_SOCKET_IFNAME", "lo", "JCCL_TIMEOUT", "120", "JCCL_SHM_DISABLE", "1", "JCCL_NET", "UCX");
        try (LoopWorkers w = LoopWorkers.loopingOnLoopback(3, env)) {
            long victimPid = w.ranks.get(1).pid();
            List<Double> detection = w.killAndAwaitSurvivors(1);
            for (int r : new int[] {0, 2}) {
                String out = w.output(r);
                assertEquals(3, w.ranks.get(r).exitValue(), out);
                assertTrue(
                        out.contains(PeerFailedException.class.getName()) && out.contains("pid " + victimPid),
                        "rank " + r + " must fail with PeerFailedException naming pid " + victimPid + ": " + out);
            }
            System.out.printf(
                    "UCX: SIGKILL of rank 1 of 3 noticed by the survivors after %s s%n",
                    detection.stream().map(s -> String.format("%.2f", s)).toList());
            for (double s : detection) assertTrue(s < 5, "a survivor failed only " + s + " s after the kill");
        }
    }

    @Test
    void differentCollectivesAreDescribedOnBothRanks() throws Exception {
        List<Object> results = TestRanks.run(2, ucx(Duration.ofSeconds(10)), (rank, c) -> {
            float[] x = new float[100];
            if (rank == 0) c.allReduce(x, ReduceOp.SUM);
            else c.broadcast(x, 0);
            return "no error";
        });
        for (Object r : results) {
            JcclException e = assertInstanceOf(JcclException.class, r);
            assertTrue(
                    e.getMessage().contains("called different operations")
                            && e.getMessage().contains("Broadcast #0")
                            && e.getMessage().contains("AllReduce #0"),
                    e.getMessage());
        }
    }

    @Test
    void aMissingLibucpIsAClearErrorNamingThePackage() throws Exception {
        String before = System.getProperty("jccl.ucx.library");
        System.setProperty("jccl.ucx.library", "libucp-not-installed.so.0");
        try {
            UniqueId id = UniqueId.create(ucx(Duration.ofSeconds(5)));
            id.takeReservedListener().close();
            JcclException e = assertThrows(JcclException.class, () -> Jccl.init(0, 1, id, ucx(Duration.ofSeconds(5))));
            assertTrue(
                    e.getMessage().contains("JCCL_NET=UCX")
                            && e.getMessage().contains("libucp-not-installed.so.0")
                            && e.getMessage().contains("apt-get install libucx0"),
                    e.getMessage());
        } finally {
            if (before == null) System.clearProperty("jccl.ucx.library");
            else System.setProperty("jccl.ucx.library", before);
        }
    }

    @Test
    void aNameNoPluginServesListsWhatThereIs() throws Exception {
        UniqueId id = UniqueId.create(TestRanks.loopback(Duration.ofSeconds(5)));
        id.takeReservedListener().close();
        JcclException e = assertThrows(
                JcclException.class,
                () -> Jccl.init(
                        0,
                        1,
                        id,
                        TestRanks.loopback(Duration.ofSeconds(5)).toBuilder()
                                .net("Verbs")
                                .build()));
        assertTrue(
                e.getMessage().contains("JCCL_NET=Verbs names no network transport here; available: Socket, UCX"),
                e.getMessage());
    }
}
