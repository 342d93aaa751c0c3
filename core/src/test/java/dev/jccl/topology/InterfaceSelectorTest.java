package dev.jccl.topology;

import static org.junit.jupiter.api.Assertions.*;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class InterfaceSelectorTest {
    private static InterfaceSelector.Candidate c(String name, String ip) throws Exception {
        return new InterfaceSelector.Candidate(name, InetAddress.getByName(ip));
    }

    @Test
    void automaticChoicePrefersInfinibandThenRealNicsThenDockerThenLoopback() throws Exception {
        var lo = c("lo", "127.0.0.1");
        var docker = c("docker0", "172.17.0.1");
        var eth = c("eth0", "10.1.2.3");
        var ib = c("ib0", "10.9.9.9");
        var virbr = c("virbr0", "192.168.122.1");
        assertEquals(ib, InterfaceSelector.select(null, List.of(lo, docker, eth, ib)));
        assertEquals(eth, InterfaceSelector.select(null, List.of(lo, virbr, docker, eth)));
        assertEquals(docker, InterfaceSelector.select("", List.of(lo, virbr, docker)));
        assertEquals(lo, InterfaceSelector.select(null, List.of(lo, virbr)));
        assertEquals(virbr, InterfaceSelector.select(null, List.of(virbr)));
    }

    @Test
    void filterSyntaxFollowsNccl() {
        assertTrue(InterfaceSelector.matches("eth", "eth0"));
        assertTrue(InterfaceSelector.matches("ib,eth", "eth1"));
        assertFalse(InterfaceSelector.matches("=eth", "eth0"));
        assertTrue(InterfaceSelector.matches("=eth0", "eth0"));
        assertFalse(InterfaceSelector.matches("=eth0", "eth01"));
        assertFalse(InterfaceSelector.matches("^docker,lo", "lo"));
        assertTrue(InterfaceSelector.matches("^docker,lo", "eth0"));
        assertFalse(InterfaceSelector.matches("^=eth0", "eth0"));
        assertTrue(InterfaceSelector.matches("^=eth0", "eth01"));
    }

    @Test
    void filterThatMatchesNothingListsTheInterfaces() throws Exception {
        var lo = c("lo", "127.0.0.1");
        var eth = c("eth0", "10.1.2.3");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> InterfaceSelector.select("ens5", List.of(lo, eth)));
        assertTrue(e.getMessage().contains("ens5"), e.getMessage());
        assertTrue(e.getMessage().contains("lo:127.0.0.1") && e.getMessage().contains("eth0:10.1.2.3"), e.getMessage());
    }

    @Test
    void loopbackIsFoundOnThisMachine() {
        InterfaceSelector.Candidate lo = InterfaceSelector.select("lo");
        assertTrue(lo.address().isLoopbackAddress(), lo.toString());
    }
}
