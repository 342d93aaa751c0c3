package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.PLAIN;
import static dev.jccl.tools.doctor.Fixtures.assertFix;
import static dev.jccl.tools.doctor.Fixtures.assertSummary;
import static dev.jccl.tools.doctor.Fixtures.assertVerdict;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * B1–B3: peer-memory module, NCCL's probe paths, DMA-BUF.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorGdrChecksTest {
    private static final String PROPRIETARY_560 =
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03  Release Build\n";

    /**
     * The field report: NCCL 2.19.4 shows "GPU Direct RDMA Disabled" on a kernel without /sys/kernel/mm/memory_peers.
     */
    @Test
    void oldNcclDoesNotFindPeermemOnNewKernels(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path root = Fixtures.copy(HEALTHY, tmp);
        Fixtures.write(root, "/proc/driver/nvidia/version", PROPRIETARY_560); // DMA-BUF out of the way
        Fixtures.env(root, "NCCL_VERSION", "2.19.4-1");
        Fixtures.delete(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.7");
        Fixtures.delete(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
        Map<String, CheckResult> r = Fixtures.examine(root);
        assertVerdict(r, "gdr-peermem-module", Verdict.OK);
        expect(r, "gdr-dmabuf-support", Verdict.WARN, "still works through nvidia_peermem");
        CheckResult b2 = expect(
                r,
                "gdr-peermem-nccl-probe",
                Verdict.FAIL,
                "nvidia_peermem 560.35.03 is loaded",
                "/sys/kernel/mm/memory_peers/ does not exist on kernel 6.8.0-45-generic",
                "NCCL 2.19.4 only checks /sys/kernel/mm/memory_peers/nv_mem/version, /s"
                        + "ys/kernel/mm/memory_peers/nvidia-peermem/version",
                "GPU Direct RDMA Disabled");
        assertFix(b2, "upgrade NCCL to ≥ 2.23.4");
        expect(r, "nccl-version-gaps", Verdict.FAIL, "NCCL 2.19.4 found", "will not detect nvidia_peermem");

        // A kernel that still has the MOFED memory_peers directory: the old NCCL finds nv_mem.
        Fixtures.write(root, GdrChecks.NV_MEM, "1.1\n");
        r = Fixtures.examine(root);
        expect(r, "gdr-peermem-nccl-probe", Verdict.OK, GdrChecks.NV_MEM);
    }

    @Test
    void unknownNcclVersionWithoutMemoryPeersIsAWarning(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path root = Fixtures.copyWithFile(HEALTHY, tmp, "/proc/driver/nvidia/version", PROPRIETARY_560);
        Fixtures.env(root, "NCCL_VERSION", null);
        Fixtures.delete(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.7");
        Fixtures.delete(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
        Fixtures.write(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2", ""); // a copy without the version in its name
        expect(
                root,
                "gdr-peermem-nccl-probe",
                Verdict.WARN,
                "version is unknown",
                "older than 2.23.4 will not see nvidia_peermem");
    }

    @Test
    void bothPeerMemoryModulesOrAStaleOneAreWarnings(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path both = Fixtures.copyWithFile(HEALTHY, tmp.resolve("both"), "/sys/module/nv_peer_mem/version", "1.3\n");
        CheckResult b1 =
                expect(both, "gdr-peermem-module", Verdict.WARN, "Both nv_peer_mem and nvidia_peermem are loaded");
        assertFix(b1, "rmmod nv_peer_mem");

        Path stale = Fixtures.copyWithFile(
                HEALTHY, tmp.resolve("stale"), "/sys/module/nvidia_peermem/version", "550.54.14\n");
        Map<String, CheckResult> r = Fixtures.examine(stale);
        expect(
                r,
                "gdr-peermem-module",
                Verdict.WARN,
                "nvidia_peermem 550.54.14 does not match the nvidia module 560.35.03");
        expect(
                r,
                "driver-kernel-user-match",
                Verdict.WARN,
                "nvidia_peermem 550.54.14 is not from the loaded driver 560.35.03");
    }

    @Test
    void withoutPeermemTheVerdictFollowsDmabuf(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path dmabufOk = Fixtures.copy(HEALTHY, tmp.resolve("ok"));
        Fixtures.delete(dmabufOk, "/sys/module/nvidia_peermem");
        Map<String, CheckResult> r = Fixtures.examine(dmabufOk);
        expect(r, "gdr-peermem-module", Verdict.OK, "not needed: the DMA-BUF path is available");
        assertVerdict(r, "gdr-peermem-nccl-probe", Verdict.SKIP);

        // An rdma-core file name that tells no version (MOFED): DMA-BUF cannot be confirmed, so neither can GDR.
        Path unknown = Fixtures.copy(HEALTHY, tmp.resolve("unknown"));
        Fixtures.delete(unknown, "/sys/module/nvidia_peermem");
        Fixtures.delete(unknown, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        Fixtures.link(unknown, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "libibverbs.so.1.0.0");
        Fixtures.write(unknown, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.0.0", "");
        r = Fixtures.examine(unknown);
        expect(r, "gdr-dmabuf-support", Verdict.WARN, "cannot be confirmed", "rdma-core version unknown");
        expect(r, "gdr-peermem-module", Verdict.WARN, "No nvidia_peermem module, and DMA-BUF cannot be confirmed");
    }

    @Test
    void eachDmabufConditionCanFailIt(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path off = Fixtures.copy(HEALTHY, tmp.resolve("off"));
        Fixtures.delete(off, "/sys/module/nvidia_peermem");
        Fixtures.env(off, "NCCL_DMABUF_ENABLE", "0");
        expect(off, "gdr-dmabuf-support", Verdict.FAIL, "NCCL_DMABUF_ENABLE=0 turns it off");

        Path oldKernel = Fixtures.copy(HEALTHY, tmp.resolve("kernel"));
        Fixtures.delete(oldKernel, "/sys/module/nvidia_peermem");
        Fixtures.write(oldKernel, "/proc/sys/kernel/osrelease", "5.10.0-28-amd64\n");
        Map<String, CheckResult> r = Fixtures.examine(oldKernel);
        expect(r, "gdr-dmabuf-support", Verdict.FAIL, "kernel 5.10.0-28-amd64 is older than 5.12");
        expect(r, "gdr-peermem-module", Verdict.FAIL, "No GPU Direct RDMA kernel path", "older than 5.12");

        Path oldVerbs = Fixtures.copy(HEALTHY, tmp.resolve("verbs"));
        Fixtures.delete(oldVerbs, "/sys/module/nvidia_peermem");
        Fixtures.delete(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        Fixtures.link(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "libibverbs.so.1.11.32.0");
        Fixtures.write(oldVerbs, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.11.32.0", "");
        expect(oldVerbs, "gdr-dmabuf-support", Verdict.FAIL, "rdma-core 32 is older than 34");
    }

    @Test
    void withoutGpuOrRdmaTheyDoNotApply() {
        for (String id : List.of("gdr-peermem-module", "gdr-peermem-nccl-probe", "gdr-dmabuf-support")) {
            assertSummary(assertVerdict(Fixtures.examine(PLAIN), id, Verdict.SKIP), "no NVIDIA GPU");
            assertSummary(assertVerdict(Fixtures.examine(Fixtures.ROCE), id, Verdict.SKIP), "no NVIDIA GPU");
        }
    }

    @Test
    void probePathsFollowTheNcclReleases() {
        assertEquals(List.of(GdrChecks.NV_MEM), GdrChecks.probePaths(Version.of("2.9.6")));
        assertEquals(
                List.of(GdrChecks.NV_MEM, GdrChecks.NVIDIA_PEERMEM_CLIENT), GdrChecks.probePaths(Version.of("2.9.8")));
        assertEquals(
                List.of(GdrChecks.NV_MEM, GdrChecks.NVIDIA_PEERMEM_CLIENT), GdrChecks.probePaths(Version.of("2.21.5")));
        assertEquals(List.of(GdrChecks.NV_MEM, GdrChecks.NV_MEM_NC), GdrChecks.probePaths(Version.of("2.22.3")));
        assertEquals(
                List.of(GdrChecks.NV_MEM, GdrChecks.NV_MEM_NC, GdrChecks.PEERMEM_MODULE_VERSION),
                GdrChecks.probePaths(Version.of("2.23.4")));
    }
}
