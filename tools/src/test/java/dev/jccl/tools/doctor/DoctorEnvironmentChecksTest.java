package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.PLAIN;
import static dev.jccl.tools.doctor.Fixtures.ROCE;
import static dev.jccl.tools.doctor.Fixtures.VM;
import static dev.jccl.tools.doctor.Fixtures.assertEvidence;
import static dev.jccl.tools.doctor.Fixtures.assertFix;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * I1–I4, env-jccl-unknown and J1: driver and NCCL versions, variables, hugepages.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorEnvironmentChecksTest {

    @Test
    void driverUserSpaceAgainstKernelModule(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path compat = Fixtures.copyWithFile(HEALTHY, tmp, "/usr/local/cuda-12.8/compat/libcuda.so.570.124.06", "");
        Fixtures.env(compat, "LD_LIBRARY_PATH", "/usr/local/cuda-12.8/compat:/usr/local/nvidia/lib64");
        expect(
                compat,
                "driver-kernel-user-match",
                Verdict.WARN,
                "CUDA forward compatibility is in use: libcuda 570.124.06 from /usr/local/cuda-12.8/compat "
                        + "is on LD_LIBRARY_PATH");
    }

    @Test
    void ncclVersionGaps(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path twoCopies = Fixtures.copy(HEALTHY, tmp);
        Fixtures.write(
                twoCopies, "/usr/local/lib/python3.11/dist-packages/nvidia_nccl_cu12-2.27.5.dist-info/METADATA", "");
        CheckResult copies = expect(
                twoCopies,
                "nccl-version-gaps",
                Verdict.WARN,
                "several NCCL copies",
                "nvidia_nccl_cu12-2.27.5.dist-info",
                "libnccl.so.2.28.7");
        assertFix(copies, "remove the copies");
    }

    @Test
    void ncclVariables(@TempDir(factory = RamTempDir.class) Path tmp) {
        // Beyond findings.csv: the broken tree's misspelt NCCL_SOCKET_IFNAMES comes with the name meant.
        CheckResult broken = Fixtures.examine(BROKEN).get("env-nccl-unknown");
        assertTrue(
                broken.evidence().stream()
                        .anyMatch(e -> e.value().contains("NCCL_SOCKET_IFNAMES=eth0 is not an NCCL variable")
                                && e.value().contains("did you mean NCCL_SOCKET_IFNAME?")),
                () -> Fixtures.describe(broken));

        Object[][] cases = {
            {"NCCL_IB_GID_IDX", "3", Verdict.WARN, "did you mean NCCL_IB_GID_INDEX?"},
            {"NCCL_TIMEOUT", "600", Verdict.WARN, "NCCL_IB_TIMEOUT / NCCL_IB_RETRY_CNT"},
            {"NCCL_IB_GDR_LEVEL", "2", Verdict.WARN, "no longer read (last read by NCCL 2.3.7); use NCCL_NET_GDR_LEVEL"
            },
            {"NCCL_NTHREADS", "100", Verdict.WARN, "is not 64, 128, 256 or 512"},
            {"NCCL_IB_TIMEOUT", "40", Verdict.WARN, "NCCL_IB_TIMEOUT=40 is outside 0–31"},
            {"NCCL_IB_RETRY_CNT", "9", Verdict.WARN, "outside 0–7"},
            {"NCCL_NET_GDR_LEVEL", "NEAR", Verdict.WARN, "is not a level"},
            {"NCCL_NET", "Foo", Verdict.WARN, "NCCL_NET=Foo is neither IB, Socket nor an installed net plugin"},
            {"NCCL_ALGO", "allreduce:tree;broadcast:ring", Verdict.OK, "all read by"},
            {"NCCL_ASYNC_ERROR_HANDLING", "1", Verdict.OK, "all read by"},
        };
        Path root = Fixtures.copy(ROCE, tmp.resolve("vars"));
        for (Object[] c : cases) {
            Fixtures.env(root, (String) c[0], (String) c[1]);
            CheckResult r = expect(Fixtures.examine(root), "env-nccl-unknown", (Verdict) c[2], (String) c[3]);
            Fixtures.env(root, (String) c[0], null);
        }

        // A variable newer than the NCCL found, and one from NCCL's config file.
        Path conf = Fixtures.copyWithEnv(VM, tmp.resolve("conf"), "NCCL_PAT_ENABLE", "1");
        Fixtures.write(conf, "/etc/nccl.conf", "# site defaults\nNCCL_IB_MTU=4096\n");
        CheckResult r = expect(
                conf,
                "env-nccl-unknown",
                Verdict.WARN,
                "NCCL_PAT_ENABLE=1 is read only from NCCL 2.23.4; NCCL 2.21.5 ignores it",
                "NCCL_IB_MTU=4096 is not an NCCL variable");
        assertEvidence(r, "/etc/nccl.conf NCCL_IB_MTU", "4096");
    }

    @Test
    void ncclVariableTable() {
        assertEquals(269, NcclVariables.rows().size(), "Appendix A lists 269 names");
        assertEquals(Version.of("2.3.5"), NcclVariables.span("NCCL_IB_HCA").first());
        assertEquals(Version.of("2.30.7"), NcclVariables.span("NCCL_IB_HCA").last());
        assertNull(NcclVariables.span("NCCL_IB_MTU"));
        assertNull(NcclVariables.span("NCCL_RX_RING_SIZE"));
        assertNull(NcclVariables.span("NCCL_IB_DISABLE_ECN"));
        assertEquals("NCCL_SOCKET_IFNAME", NcclVariables.nearest("NCCL_SOCKET_IFNAMES"));
        assertEquals("NCCL_SOCKET_IFNAME", NcclVariables.nearest("NCCL_IFNAME_SOCKET"), "same words in another order");
        assertEquals(1, NcclVariables.editDistance("NCCL_IB_HAC", "NCCL_IB_HCA"), "a swap is one edit");
        assertNull(NcclVariables.nearest("NCCL_SOMETHING_ELSE_ENTIRELY"));
        assertEquals(List.of("Bogus"), VariableChecks.unknownAlgorithms("^ring,Bogus"));
    }

    @Test
    void jcclVariables(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path bad = Fixtures.copyWithEnv(PLAIN, tmp.resolve("bad"), "JCCL_TIMEOUT", "soon");
        expect(
                bad,
                "env-jccl-unknown",
                Verdict.FAIL,
                "A Jccl rank would refuse to start: JCCL_TIMEOUT='soon' is not a duration");

        Path secret = Fixtures.copyWithEnv(
                PLAIN,
                tmp.resolve("secret"),
                "JCCL_SECRET",
                "00112233445566778899aabbccddeeff",
                "JCCL_ROOT",
                "node-0:29600");
        CheckResult quiet = expect(secret, "env-jccl-unknown", Verdict.OK);
        assertEquals("(set; value not shown)", quiet.evidence("env JCCL_SECRET"));
        assertFalse(Fixtures.describe(quiet).contains("00112233"), "the secret is never printed");
    }

    @Test
    void transportOverrides(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path p2p = Fixtures.copyWithEnv(HEALTHY, tmp.resolve("p2p"), "NCCL_P2P_DISABLE", "1", "NCCL_SHM_DISABLE", "1");
        Map<String, CheckResult> r = Fixtures.examine(p2p);
        CheckResult both = expect(
                r,
                "env-transport-overrides",
                Verdict.WARN,
                "NCCL_P2P_DISABLE=1: 2 GPUs are visible",
                "NCCL_SHM_DISABLE=1 turns shared memory off",
                "and in Jccl, which reads it too");
        assertFix(both, "unset it once debugging is done");

        // Without the hardware a disabled fast path costs nothing: listed, not a warning.
        Path noHardware =
                Fixtures.copyWithEnv(PLAIN, tmp.resolve("nohw"), "NCCL_IB_DISABLE", "1", "NCCL_P2P_DISABLE", "1");
        expect(
                noHardware,
                "env-transport-overrides",
                Verdict.OK,
                "Set, but without effect here: NCCL_IB_DISABLE=1, NCCL_P2P_DISABLE=1");
    }

    @Test
    void hugepagesShowTheKernelsSetting() {
        CheckResult info = Fixtures.examine(HEALTHY).get("hugepages-info");
        assertEquals("always [madvise] never", info.evidence("/sys/kernel/mm/transparent_hugepage/enabled"));
    }
}
