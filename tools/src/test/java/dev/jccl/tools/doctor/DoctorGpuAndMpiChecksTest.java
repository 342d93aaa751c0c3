package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.assertFix;
import static dev.jccl.tools.doctor.Fixtures.assertSummary;
import static dev.jccl.tools.doctor.Fixtures.expect;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * F1, G1, G2: HCOLL under Kubernetes, CUDA device numbering, sibling containers.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorGpuAndMpiChecksTest {

    @Test
    void hcollInKubernetes(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path excluded = Fixtures.copyWithEnv(BROKEN, tmp.resolve("excluded"), "OMPI_MCA_coll", "^hcoll,ucc");
        expect(excluded, "k8s-mpi-hcoll", Verdict.OK);

        Path both = Fixtures.copyWithEnv(
                HEALTHY,
                tmp.resolve("both"),
                "OMPI_MCA_btl_tcp_if_include",
                "eth0",
                "OMPI_MCA_btl_tcp_if_exclude",
                "lo");
        expect(both, "k8s-mpi-hcoll", Verdict.WARN, "both OMPI_MCA_btl_tcp_if_include and OMPI_MCA_btl_tcp_if_exclude");
    }

    @Test
    void cudaVisibleDevices(@TempDir(factory = RamTempDir.class) Path tmp) {
        String[][] cases = {
            {"0,7,1", "WARN", "entry '7' is not a GPU here", "CUDA ignores 7,1 (every entry from it on)"},
            {"0,0", "WARN", "names GPU 0000:3b:00.0 twice", null},
            {"", "FAIL", "CUDA_VISIBLE_DEVICES is set but empty", null},
            {"GPU-bbbb", "OK", "CUDA device 0 = host GPU 0000:bb:00.0", null},
            {"GPU-ffff", "FAIL", "entry 'GPU-ffff' is not a GPU here", null},
        };
        Path root = Fixtures.copy(HEALTHY, tmp.resolve("cvd"));
        for (String[] c : cases) {
            Fixtures.env(root, "CUDA_VISIBLE_DEVICES", c[0]);
            CheckResult r = expect(Fixtures.examine(root), "gpu-visibility-mapping", Verdict.valueOf(c[1]), c[2]);
            if (c[3] != null) assertSummary(r, c[3]);
        }

        Path mixed = Fixtures.copy(HEALTHY, tmp.resolve("mixed"));
        Fixtures.write(
                mixed,
                "/proc/driver/nvidia/gpus/0000:bb:00.0/information",
                "Model: \t\t NVIDIA L40S\nGPU UUID: \t GPU-bbbbbbbb-1111-2222-3333-444444444444\nBus "
                        + "Location: \t 0000:bb:00.0\nDevice Minor: \t 1\n");
        CheckResult order = expect(
                mixed,
                "gpu-visibility-mapping",
                Verdict.WARN,
                "GPUs of different models",
                "no CUDA_DEVICE_ORDER=PCI_BUS_ID");
        assertFix(order, "CUDA_DEVICE_ORDER=PCI_BUS_ID");
        Fixtures.env(mixed, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        expect(mixed, "gpu-visibility-mapping", Verdict.OK);
    }

    @Test
    void siblingContainersTakenForLocalPeers(@TempDir(factory = RamTempDir.class) Path tmp) {
        // Without IMEX the host network namespace (a physical NIC is visible) is the trigger.
        Path hostNet = Fixtures.copy(BROKEN, tmp.resolve("hostnet"));
        Fixtures.delete(hostNet, "/dev/nvidia-caps-imex-channels");
        Fixtures.env(hostNet, "NCCL_VERSION", "2.26.2-1");
        Fixtures.write(
                hostNet,
                "/proc/driver/nvidia/version",
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n");
        expect(
                hostNet,
                "cross-container-gpu-ipc",
                Verdict.WARN,
                "shares the host's network namespace (eth0)",
                "Driver 570.86.15 matches the reported import bug");

        Fixtures.env(hostNet, "NCCL_HOSTID", "container-a");
        expect(hostNet, "cross-container-gpu-ipc", Verdict.OK, "mitigated by NCCL_HOSTID");
    }
}
