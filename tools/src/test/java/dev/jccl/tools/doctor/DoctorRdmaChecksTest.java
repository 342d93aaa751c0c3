package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.ROCE;
import static dev.jccl.tools.doctor.Fixtures.assertEvidence;
import static dev.jccl.tools.doctor.Fixtures.assertFix;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.topology.IbHcaFilter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * C1–C8: RDMA devices, device nodes, user space, ports, subnet manager, RoCE GID and MTU, HCA filters.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorRdmaChecksTest {
    private static final String ROCE_PORT = "/sys/class/infiniband/mlx5_0/ports/1";

    @Test
    void devicesPresentOrWhyNot(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path noDriver = Fixtures.copy(BROKEN, tmp.resolve("nodriver"));
        Fixtures.delete(noDriver, "/sys/class/infiniband");
        CheckResult c1 = expect(
                noDriver,
                "rdma-devices-present",
                Verdict.WARN,
                "Found 2 Mellanox PCI functions but no RDMA devices (mlx5_ib not loaded). "
                        + "Collectives will use TCP sockets.");
        assertEvidence(c1, "/sys/bus/pci/devices/0000:bc:00.0", "15b3:101b driver mlx5_core");
        assertFix(c1, "modprobe mlx5_ib ib_uverbs");

        Fixtures.env(noDriver, "NCCL_NET", "IB");
        expect(noDriver, "rdma-devices-present", Verdict.FAIL, "NCCL_NET=IB but there is no RDMA device");

        Path disabled = Fixtures.copyWithEnv(HEALTHY, tmp.resolve("disabled"), "NCCL_IB_DISABLE", "1");
        Map<String, CheckResult> r = Fixtures.examine(disabled);
        expect(r, "rdma-devices-present", Verdict.SKIP, "NCCL_IB_DISABLE=1");
        expect(
                r,
                "env-transport-overrides",
                Verdict.WARN,
                "NCCL_IB_DISABLE=1 is set although 2 ACTIVE RDMA ports exist");
    }

    @Test
    void deviceNodesMustBeOpenable(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path one = Fixtures.copyWithFile(BROKEN, tmp.resolve("one"), "/dev/infiniband/uverbs0", "");
        expect(one, "rdma-devnodes-container", Verdict.WARN, "/dev/infiniband/uverbs1 is not present", "1 of 2 usable");

        // Present but refused (a device cgroup): the stand-in devperm says so.
        Fixtures.write(one, "/_doctor/devperm", "/dev/infiniband/uverbs0 none\n");
        expect(one, "rdma-devnodes-container", Verdict.FAIL, "uverbs0 cannot be opened read-write (none)");
    }

    @Test
    void userSpaceStackNeedsLibibverbsAndTheProvider(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path noVerbs = Fixtures.copy(HEALTHY, tmp.resolve("none"));
        Fixtures.delete(noVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        Fixtures.delete(noVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.50.0");
        expect(noVerbs, "rdma-userspace-stack", Verdict.FAIL, "no libibverbs.so.1");

        Path old = Fixtures.copy(HEALTHY, tmp.resolve("old"));
        for (String[] c : new String[][] {{"27", "older than 28"}, {"33", "older than 34"}}) {
            Fixtures.delete(old, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
            Fixtures.link(old, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "libibverbs.so.1.7." + c[0] + ".0");
            Fixtures.write(old, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.7." + c[0] + ".0", "");
            expect(old, "rdma-userspace-stack", Verdict.WARN, "rdma-core " + c[0] + " is " + c[1]);
        }
    }

    /**
     * One port attribute written on a copy of a tree: tree, file, content, the warning and a fix it gives (or null).
     */
    static Stream<Arguments> portAttributes() {
        return Stream.of(
                Arguments.of(
                        BROKEN,
                        "/sys/class/infiniband/mlx5_0/ports/1/state",
                        "4: ACTIVE\n",
                        "mlx5_1 port 1 is \"1: DOWN\" — NCCL will skip it; 1 of 2 rails usable",
                        null),
                Arguments.of(
                        HEALTHY,
                        "/sys/class/infiniband/mlx5_1/ports/1/rate",
                        "100 Gb/sec (4X EDR)\n",
                        "mlx5_1:1 runs at 100 Gb/sec (4X EDR), slower than other MT4123 ports (200 Gb/sec)",
                        null),
                Arguments.of(
                        HEALTHY,
                        "/sys/class/infiniband/mlx5_1/ports/1/link_layer",
                        "Ethernet\n",
                        "mix link layers (InfiniBand and Ethernet)",
                        "NCCL_IB_HCA"));
    }

    @ParameterizedTest(name = "{1} = {2} on {0}")
    @MethodSource("portAttributes")
    void portStates(
            String tree,
            String file,
            String content,
            String warning,
            String fix,
            @TempDir(factory = RamTempDir.class) Path tmp) {
        CheckResult r =
                expect(Fixtures.copyWithFile(tree, tmp, file, content), "rdma-port-state", Verdict.WARN, warning);
        if (fix != null) assertFix(r, fix);
    }

    @Test
    void subnetManagerIsNotBlamedForAPortWithoutLink() {
        CheckResult noSm = Fixtures.examine(BROKEN).get("ib-subnet-manager");
        assertFalse(
                noSm.summary().contains("mlx5_1"), "a port without link is not blamed on the SM: " + noSm.summary());
    }

    @Test
    void roceGidForcedIndexes(@TempDir(factory = RamTempDir.class) Path tmp) {
        Object[][] cases = {
            {
                "4",
                Verdict.FAIL,
                "NCCL_IB_GID_INDEX=4 but GID 4 on mlx5_0:1 is empty. RoCE v2/IPv4 GID is "
                        + "index 3 (10.0.0.5 on ens1f0np0)"
            },
            {"2", Verdict.FAIL, "GID 2 on mlx5_0:1 is RoCE v1 while RoCE v2 exists"},
            {"1", Verdict.FAIL, "is link-local"},
            {"3", Verdict.WARN, "NCCL 2.23.4 chooses the GID itself"},
        };
        Path root = Fixtures.copy(ROCE, tmp);
        for (Object[] c : cases) {
            Fixtures.env(root, "NCCL_IB_GID_INDEX", (String) c[0]);
            CheckResult r = expect(Fixtures.examine(root), "roce-gid-v2", (Verdict) c[1], (String) c[2]);
            assertFix(r, "unset NCCL_IB_GID_INDEX");
        }
        // The forced index that ibv_modify_qp fails with is named with the symptom.
        Fixtures.env(root, "NCCL_IB_GID_INDEX", "5");
        expect(root, "roce-gid-v2", Verdict.FAIL, "ibv_modify_qp … Invalid argument");
    }

    @Test
    void roceGidWithOldNcclOrWithoutAnIpv4Address(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path old = Fixtures.copyWithEnv(ROCE, tmp.resolve("old"), "NCCL_VERSION", "2.19.4-1");
        Map<String, CheckResult> r = Fixtures.examine(old);
        CheckResult gid = expect(
                r,
                "roce-gid-v2",
                Verdict.FAIL,
                "NCCL 2.19.4 uses GID index 0 when NCCL_IB_GID_INDEX is unset",
                "(link-local)");
        assertFix(gid, "NCCL_IB_GID_INDEX=3");
        expect(r, "nccl-version-gaps", Verdict.FAIL, "NCCL 2.19.4 uses RoCE GID index 0");
        // With the index set for this host, the old NCCL is fine.
        Fixtures.env(old, "NCCL_IB_GID_INDEX", "3");
        expect(old, "roce-gid-v2", Verdict.OK);

        Path noIp = Fixtures.copy(ROCE, tmp.resolve("noip"));
        Fixtures.delete(noIp, ROCE_PORT + "/gids/2");
        Fixtures.delete(noIp, ROCE_PORT + "/gids/3");
        CheckResult none = expect(noIp, "roce-gid-v2", Verdict.FAIL, "no RoCE v2 GID with an IPv4 address on mlx5_0:1");
        assertFix(none, "IPv4 address");
    }

    @Test
    void roceMtu(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path small = Fixtures.copyWithFile(ROCE, tmp, "/sys/class/net/ens1f0np0/mtu", "1500\n");
        CheckResult warn = expect(
                small,
                "roce-mtu",
                Verdict.WARN,
                "ens1f0np0 has MTU 1500 ⇒ RoCE MTU 1024 for mlx5_0",
                "Jumbo frames (9000 end-to-end) give RoCE MTU 4096");
        assertFix(warn, "mtu 9000");
    }

    @Test
    void roceMtuFollowsTheKernelsMapping() {
        assertEquals(4096, RdmaPortChecks.roceMtu(9000));
        assertEquals(4096, RdmaPortChecks.roceMtu(4192));
        assertEquals(2048, RdmaPortChecks.roceMtu(4191));
        assertEquals(1024, RdmaPortChecks.roceMtu(1500));
        assertEquals(0, RdmaPortChecks.roceMtu(300));
    }

    /** An edit of the healthy tree, named; the verdict of rdma-hca-filter, its summary and a fix it gives (or null). */
    static Stream<Arguments> hcaFilterEdits() {
        return Stream.of(
                Arguments.of(
                        named("NCCL_IB_HCA=mlx5", root -> Fixtures.env(root, "NCCL_IB_HCA", "mlx5")),
                        Verdict.WARN,
                        "NCCL_IB_HCA=mlx5 is a prefix list: mlx5 selects mlx5_0, mlx5_1 (2 devices)",
                        "NCCL_IB_HCA==mlx5_0,mlx5_1"),
                Arguments.of(
                        named("NCCL_IB_HCA=^mlx5_1", root -> Fixtures.env(root, "NCCL_IB_HCA", "^mlx5_1")),
                        Verdict.OK,
                        "selects mlx5_0:1",
                        null),
                Arguments.of(
                        named(
                                "mlx5_1:1 DOWN",
                                root -> Fixtures.write(
                                        root, "/sys/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n")),
                        Verdict.WARN,
                        "selects mlx5_1:1, which is not ACTIVE",
                        null),
                Arguments.of(
                        named(
                                "NCCL_IB_HCA and UCX_NET_DEVICES",
                                root -> Fixtures.env(root, "NCCL_IB_HCA", "=mlx5_0", "UCX_NET_DEVICES", "mlx5_1:1")),
                        Verdict.WARN,
                        "NCCL_IB_HCA selects [mlx5_0] but UCX_NET_DEVICES names [mlx5_1]",
                        null));
    }

    private static Named<Consumer<Path>> named(String name, Consumer<Path> edit) {
        return Named.of(name, edit);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hcaFilterEdits")
    void hcaFilters(
            Consumer<Path> edit,
            Verdict verdict,
            String summary,
            String fix,
            @TempDir(factory = RamTempDir.class) Path tmp) {
        Path root = Fixtures.copy(HEALTHY, tmp);
        edit.accept(root);
        CheckResult r = expect(root, "rdma-hca-filter", verdict, summary);
        if (fix != null) assertFix(r, fix);
    }

    @Test
    void hcaFilterGrammar() {
        IbHcaFilter prefix = IbHcaFilter.parse("mlx5_1");
        assertTrue(prefix.selects("mlx5_1", 1));
        assertTrue(prefix.selects("mlx5_10", 1), "a prefix also selects mlx5_10");
        IbHcaFilter exact = IbHcaFilter.parse("=mlx5_1:1");
        assertTrue(exact.selects("mlx5_1", 1));
        assertFalse(exact.selects("mlx5_10", 1));
        assertFalse(exact.selects("mlx5_1", 2), "the port is part of the entry");
        IbHcaFilter exclude = IbHcaFilter.parse("^=mlx5_0,mlx5_9");
        assertFalse(exclude.selects("mlx5_0", 1));
        assertTrue(exclude.selects("mlx5_1", 1));
        assertEquals(
                List.of("mlx5_1", "mlx5_10"),
                prefix.devicesMatching(prefix.entries().getFirst(), List.of("mlx5_0", "mlx5_1", "mlx5_10")));
    }

    @Test
    void gidTableAutomaticChoiceFollowsNcclsRule() {
        GidTable table = GidTable.read(new HostFiles(Fixtures.source(ROCE), null), ROCE_PORT);
        assertEquals(3, table.autoIndex(new GidTable.Wanted(4, 2, null, 0)));
        assertEquals(2, table.autoIndex(new GidTable.Wanted(4, 1, null, 0)), "RoCE v1 when asked for it");
        assertEquals(
                0,
                table.autoIndex(new GidTable.Wanted(4, 2, new byte[] {(byte) 192, (byte) 168, 0, 0}, 16)),
                "no entry inside NCCL_IB_ADDR_RANGE: index 0 stays");
        GidTable.Gid v4 = table.get(3);
        assertEquals(4, v4.family());
        assertEquals("10.0.0.5", v4.address());
        assertTrue(table.get(0).linkLocal());
        assertTrue(table.get(4).zero());
    }
}
