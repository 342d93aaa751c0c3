package dev.jccl.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config.Oversubscription;
import dev.jccl.bootstrap.PeerInfo;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuSharingTest {
    /** {@code ranks} ranks on {@code host}, each allowed {@code cpus} CPUs, numbered from {@code first}. */
    private static List<PeerInfo> host(String host, int first, int ranks, int cpus, Oversubscription setting) {
        List<PeerInfo> peers = new ArrayList<>();
        for (int r = first; r < first + ranks; r++) {
            peers.add(new PeerInfo(r, host, host, 1000 + r, "127.0.0.1", 40000 + r, "", "", "", cpus, setting, 0, ""));
        }
        return peers;
    }

    private static List<PeerInfo> join(List<PeerInfo> a, List<PeerInfo> b) {
        List<PeerInfo> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void ranksPerCpuIsTheMostCrowdedSharingHostsRanksOverItsCpus() {
        // 8 ranks on 2 CPUs beside a host whose 3 ranks have 4 CPUs: every rank plans with 4 per CPU.
        List<PeerInfo> peers =
                join(host("a", 0, 8, 2, Oversubscription.AUTO), host("b", 8, 3, 4, Oversubscription.AUTO));
        assertTrue(CpuSharing.anyHost(peers));
        assertEquals(4.0, CpuSharing.ranksPerCpu(peers));
        assertEquals(1.5, CpuSharing.ranksPerCpu(host("a", 0, 3, 2, Oversubscription.AUTO)));
    }

    @Test
    void ranksWithACpuEachOrToldTheyHaveOneCountOnePerCpu() {
        List<PeerInfo> roomy = host("a", 0, 2, 2, Oversubscription.AUTO);
        assertFalse(CpuSharing.anyHost(roomy));
        assertEquals(1.0, CpuSharing.ranksPerCpu(roomy));
        // JCCL_OVERSUBSCRIBED=0 on any rank of the host: its ranks are taken to have a CPU each.
        List<PeerInfo> toldNo = host("a", 0, 4, 2, Oversubscription.NO);
        assertFalse(CpuSharing.anyHost(toldNo));
        assertEquals(1.0, CpuSharing.ranksPerCpu(toldNo));
        // JCCL_OVERSUBSCRIBED=1 with fewer ranks than CPUs: they share, but no rate is divided.
        List<PeerInfo> toldYes = host("a", 0, 2, 4, Oversubscription.YES);
        assertTrue(CpuSharing.anyHost(toldYes));
        assertEquals(1.0, CpuSharing.ranksPerCpu(toldYes));
    }

    @Test
    void theLeastEndowedRankSetsTheHostsCpus() {
        List<PeerInfo> peers = new ArrayList<>(host("a", 0, 3, 8, Oversubscription.AUTO));
        peers.add(new PeerInfo(3, "a", "a", 1003, "127.0.0.1", 40003, "", "", "", 2, Oversubscription.AUTO, 0, ""));
        assertEquals(2.0, CpuSharing.ranksPerCpu(peers));
    }
}
