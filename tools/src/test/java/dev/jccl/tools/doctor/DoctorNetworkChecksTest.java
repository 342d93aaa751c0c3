package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.PLAIN;
import static dev.jccl.tools.doctor.Fixtures.assertSummary;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * H1, H2 and jccl-socket-ifname: the interface NCCL and Jccl pick, and the ports they use.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorNetworkChecksTest {

    private static void interfaces(Path root, String... lines) {
        Fixtures.write(root, "/_doctor/ifaddrs", String.join("\n", lines) + "\n");
    }

    @Test
    void ncclInterface(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path loopback = Fixtures.copyWithEnv(HEALTHY, tmp.resolve("lo"), "NCCL_SOCKET_IFNAME", "lo");
        expect(loopback, "net-socket-ifname", Verdict.WARN, "NCCL will use lo (127.0.0.1/8): only ranks on this host");

        // An IPoIB interface that is down: NCCL before 2.28.3 takes it anyway (ib* first), later ones skip it.
        Path ib = Fixtures.copy(PLAIN, tmp.resolve("ib"));
        interfaces(ib, "lo UP,RUNNING,LOOPBACK 127.0.0.1/8", "ib0 UP 10.1.0.2/16", "eth0 UP,RUNNING 10.20.0.9/16");
        Fixtures.env(ib, "NCCL_VERSION", "2.19.4-1");
        expect(ib, "net-socket-ifname", Verdict.WARN, "NCCL 2.19.4 may pick ib0 (10.1.0.2/16), which is not RUNNING");
        Fixtures.env(ib, "NCCL_VERSION", "2.28.7-1");
        expect(ib, "net-socket-ifname", Verdict.OK, "NCCL will use eth0 10.20.0.9/16");

        Path gloo = Fixtures.copyWithEnv(
                HEALTHY,
                tmp.resolve("gloo"),
                "GLOO_SOCKET_IFNAME",
                "lo",
                "OMPI_MCA_btl_tcp_if_include",
                "10.20.0.0/16");
        expect(
                gloo,
                "net-socket-ifname",
                Verdict.WARN,
                "NCCL_SOCKET_IFNAME==eth0 and GLOO_SOCKET_IFNAME=lo select different interfaces");
    }

    @Test
    void ncclSelectionOrder() {
        List<NetInterface> ifs = NetInterface.parse(List.of(
                "lo UP,RUNNING,LOOPBACK 127.0.0.1/8",
                "docker0 UP,RUNNING 172.17.0.1/16",
                "virbr0 UP,RUNNING 192.168.122.1/24",
                "eth0 UP,RUNNING 10.0.0.2/24",
                "eth1 UP,RUNNING 192.168.7.2/24",
                "ib0 UP,RUNNING 10.1.0.2/16"));
        assertEquals(
                "ib0",
                NcclSocketChoice.choose(ifs, null, null, null, null).nif().name());
        List<NetInterface> noIb = ifs.subList(0, 5);
        assertEquals(
                "eth0",
                NcclSocketChoice.choose(noIb, null, null, null, null).nif().name());
        assertEquals(
                "eth1",
                NcclSocketChoice.choose(noIb, null, null, "192.168.7.1:29500", null)
                        .nif()
                        .name(),
                "NCCL_COMM_ID's subnet");
        assertEquals(
                "virbr0",
                NcclSocketChoice.choose(noIb.subList(0, 3), null, null, null, Version.of("2.27.3"))
                        .nif()
                        .name(),
                "before 2.28.3 virbr* is an ordinary interface");
        assertEquals(
                "docker0",
                NcclSocketChoice.choose(noIb.subList(0, 3), null, null, null, null)
                        .nif()
                        .name());
        assertEquals(
                "lo",
                NcclSocketChoice.choose(noIb.subList(0, 1), null, null, null, null)
                        .nif()
                        .name());
        assertEquals(
                "eth1",
                NcclSocketChoice.choose(noIb, "^eth0,lo,docker,virbr", null, null, null)
                        .nif()
                        .name());
        assertNull(NcclSocketChoice.choose(noIb, "=eth", null, null, null));
        assertEquals(
                "eth0",
                NcclSocketChoice.choose(noIb, "e", null, null, null).nif().name(),
                "one character is ignored: automatic");
    }

    @Test
    void jcclInterface(@TempDir(factory = RamTempDir.class) Path tmp) {
        // JCCL_ wins over NCCL_, and asking for loopback is a single-host job's choice, not a problem.
        Path asked = Fixtures.copyWithEnv(BROKEN, tmp.resolve("asked"), "JCCL_SOCKET_IFNAME", "lo");
        CheckResult lo = expect(
                asked,
                "jccl-socket-ifname",
                Verdict.OK,
                "would listen on lo 127.0.0.1",
                "JCCL_SOCKET_IFNAME asks for it",
                "jobs on one host");

        Path onlyLo = Fixtures.copy(PLAIN, tmp.resolve("onlylo"));
        interfaces(onlyLo, "lo UP,RUNNING,LOOPBACK 127.0.0.1/8", "eth0 UP 10.0.0.3/24");
        expect(onlyLo, "jccl-socket-ifname", Verdict.WARN, "lo 127.0.0.1: other hosts cannot reach it");
    }

    @Test
    void portRange(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path custom = Fixtures.copyWithEnv(HEALTHY, tmp.resolve("custom"), "JCCL_PORT", "41000");
        assertSummary(Fixtures.examine(custom).get("net-ports-firewall"), "port 41000 (JCCL_PORT)");
        Fixtures.delete(custom, "/proc/sys/net/ipv4/ip_local_port_range");
        expect(custom, "net-ports-firewall", Verdict.SKIP, "cannot be read");
    }

    @Test
    void ifaddrsRoundTrip() {
        List<String> lines = List.of(
                "lo UP,RUNNING,LOOPBACK 127.0.0.1/8",
                "eth0 UP,RUNNING 10.0.0.2/24",
                "eth0 UP,RUNNING fd00:0:0:0:0:0:0:2/64",
                "ifb0 -");
        List<NetInterface> parsed = NetInterface.parse(lines);
        assertEquals(3, parsed.size());
        assertEquals(lines, NetInterface.format(parsed));
        assertEquals("10.0.0.2/24", parsed.get(1).usableAddress().toString(), "IPv4 before IPv6");
    }
}
