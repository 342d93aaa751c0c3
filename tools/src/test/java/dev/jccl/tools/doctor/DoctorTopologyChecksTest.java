package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.VM;
import static dev.jccl.tools.doctor.Fixtures.assertEvidence;
import static dev.jccl.tools.doctor.Fixtures.assertFix;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * E1–E5: GPU↔NIC distance, NUMA, ACS/IOMMU, PCIe link width, relaxed ordering in VMs.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorTopologyChecksTest {
    private static final String HEALTHY_GPU0 =
            "/sys/devices/pci0000:38/0000:38:01.0/0000:39:00.0/0000:3a:00.0/0000:3b:00.0";
    private static final String HEALTHY_NIC0 =
            "/sys/devices/pci0000:38/0000:38:01.0/0000:39:00.0/0000:3a:04.0/0000:3c:00.0";

    @Test
    void gpuNicDistance(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path topo = Fixtures.copyWithFile(VM, tmp.resolve("topo"), "/opt/topology/vm.xml", "<system/>\n");
        Fixtures.env(topo, "NCCL_TOPO_FILE", "/opt/topology/vm.xml");
        expect(topo, "topo-gpu-nic-distance", Verdict.OK, "NCCL_TOPO_FILE=/opt/topology/vm.xml");

        Path level = Fixtures.copyWithEnv(VM, tmp.resolve("level"), "NCCL_NET_GDR_LEVEL", "PHB");
        assertEvidence(
                expect(level, "topo-gpu-nic-distance", Verdict.OK),
                "GPU Direct RDMA cutoff",
                "PHB (NCCL_NET_GDR_LEVEL=PHB)");

        Path missing = Fixtures.copyWithEnv(VM, tmp.resolve("missing"), "NCCL_TOPO_FILE", "/opt/nowhere.xml");
        expect(missing, "topo-gpu-nic-distance", Verdict.WARN, "NCCL_TOPO_FILE=/opt/nowhere.xml does not exist");
    }

    @Test
    void pciDistanceRules() {
        String root = "/sys/devices/pci0000:38/0000:38:01.0/0000:39:00.0";
        assertEquals(PciDistance.PIX, PciDistance.between(HEALTHY_GPU0, 0, HEALTHY_NIC0, 0));
        assertEquals(
                PciDistance.PXB,
                PciDistance.between(
                        root + "/0000:3a:00.0/0000:3b:00.0/0000:3c:00.0/0000:3d:00.0",
                        0,
                        root + "/0000:3a:04.0/0000:3e:00.0",
                        0),
                "two switches below the common one");
        assertEquals(
                PciDistance.PHB,
                PciDistance.between(
                        "/sys/devices/pci0000:00/0000:00:05.0", -1, "/sys/devices/pci0000:00/0000:00:06.0", -1));
        assertEquals(
                PciDistance.PHB,
                PciDistance.between(HEALTHY_GPU0, 0, "/sys/devices/pci0000:b8/0000:b8:01.0/0000:bc:00.0", 0));
        assertEquals(
                PciDistance.SYS,
                PciDistance.between(HEALTHY_GPU0, 0, "/sys/devices/pci0000:b8/0000:b8:01.0/0000:bc:00.0", 1));
        assertEquals(PciDistance.PXB, PciDistance.parseLevel("2"));
        assertEquals(PciDistance.PHB, PciDistance.parseLevel("phb"));
        assertEquals(null, PciDistance.parseLevel("NEAR"));
    }

    @Test
    void numaAffinity(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path unknown = Fixtures.copyWithFile(HEALTHY, tmp, HEALTHY_GPU0 + "/numa_node", "-1\n");
        expect(unknown, "topo-numa-affinity", Verdict.WARN, "GPU 0000:3b:00.0 has NUMA node -1");
    }

    @Test
    void acsAndIommu(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path iommu = Fixtures.copyWithFile(HEALTHY, tmp, "/sys/class/iommu/dmar0/uevent", "");
        Fixtures.write(iommu, "/sys/kernel/iommu_groups/42/type", "DMA\n");
        Fixtures.link(iommu, HEALTHY_GPU0 + "/iommu_group", "../../../../../../kernel/iommu_groups/42");
        Fixtures.write(
                iommu, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro intel_iommu=on secret_token=abc\n");
        CheckResult acs = expect(
                iommu,
                "pcie-acs-iommu",
                Verdict.WARN,
                "IOMMU is active (group 42 type DMA) and GPU 0000:3b:00.0 shares a PCIe switch with mlx5_0",
                "Confirm with: sudo lspci -vvv | grep ACSCtl");
        assertEvidence(acs, "/proc/cmdline", "intel_iommu=on");
        assertEquals(
                "intel_iommu=on",
                acs.evidence("/proc/cmdline"),
                "only the IOMMU options of the command line are shown");
        assertFix(acs, "pci=disable_acs_redir");
    }

    @Test
    void pcieLinkWidthAndSpeed(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path slowNic = Fixtures.copyWithFile(
                HEALTHY, tmp.resolve("nic"), HEALTHY_NIC0 + "/current_link_speed", "16.0 GT/s PCIe\n");
        expect(
                slowNic,
                "pcie-link-degraded",
                Verdict.WARN,
                "mlx5_0 (0000:3c:00.0) links at 16.0 GT/s PCIe of 32.0 GT/s PCIe");

        // GPUs slow their link down when idle: reported, not a warning.
        Path idleGpu = Fixtures.copyWithFile(
                HEALTHY, tmp.resolve("gpu"), HEALTHY_GPU0 + "/current_link_speed", "2.5 GT/s PCIe\n");
        assertEvidence(
                expect(idleGpu, "pcie-link-degraded", Verdict.OK),
                "GPU 0000:3b:00.0 link speed",
                "lower their link speed when idle");
    }

    @Test
    void relaxedOrderingInVms(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path off = Fixtures.copyWithEnv(VM, tmp.resolve("off"), "NCCL_IB_PCI_RELAXED_ORDERING", "0");
        CheckResult fail = expect(off, "vm-sriov-relaxed-ordering", Verdict.FAIL, "NCCL_IB_PCI_RELAXED_ORDERING=0");
        assertFix(fail, "unset NCCL_IB_PCI_RELAXED_ORDERING");

        Path plugin = Fixtures.copyWithFile(
                VM, tmp.resolve("plugin"), "/usr/lib/x86_64-linux-gnu/libnccl-net-myplugin.so", "");
        CheckResult warn = expect(
                plugin,
                "vm-sriov-relaxed-ordering",
                Verdict.WARN,
                "the net plugin \"libnccl-net-myplugin.so\" must register GPU buffers with "
                        + "IBV_ACCESS_RELAXED_ORDERING itself");
        assertFix(warn, "IBV_ACCESS_RELAXED_ORDERING");

        // The other sysfs layout: /sys/class/infiniband/mlx5_0 a directory of its own whose "device" link points
        // into the PCI tree (some kernels and container runtimes). Same verdict, same device found.
        Path deviceLink = Fixtures.copy(VM, tmp.resolve("device-link"));
        Path pciSide = Fixtures.local(deviceLink, "/sys/devices/pci0000:00/0000:00:06.0/infiniband/mlx5_0");
        Fixtures.delete(deviceLink, "/sys/class/infiniband/mlx5_0");
        Path classSide = Fixtures.local(deviceLink, "/sys/class/infiniband/mlx5_0");
        copyTree(pciSide, classSide);
        Fixtures.delete(deviceLink, "/sys/devices/pci0000:00/0000:00:06.0/infiniband");
        Fixtures.link(deviceLink, "/sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:00/0000:00:06.0");
        expect(deviceLink, "vm-sriov-relaxed-ordering", Verdict.OK, "VM with SR-IOV VF mlx5_0 (15b3:101e)", "[RO]");

        Path oldVerbs = Fixtures.copy(VM, tmp.resolve("verbs"));
        Fixtures.delete(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        Fixtures.link(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "libibverbs.so.1.5.26.0");
        Fixtures.write(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.5.26.0", "");
        expect(
                oldVerbs,
                "vm-sriov-relaxed-ordering",
                Verdict.FAIL,
                "rdma-core 26: relaxed ordering needs rdma-core ≥ 28");
    }

    private static void copyTree(Path from, Path to) {
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(from)) {
            for (Path p : paths.toList()) {
                java.nio.file.Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
