package dev.jccl.tools.doctor;

import static dev.jccl.tools.doctor.Fixtures.BROKEN;
import static dev.jccl.tools.doctor.Fixtures.HEALTHY;
import static dev.jccl.tools.doctor.Fixtures.PLAIN;
import static dev.jccl.tools.doctor.Fixtures.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * D1–D3: memlock, /dev/shm (NCCL's and Jccl's shm transport), container capabilities and /sys.
 *
 * <p>What the unedited fixture trees report is in findings.csv (DoctorFixtureTreesTest); here are the rest.
 */
@Timeout(30)
class DoctorLimitChecksTest {
    private static final String DOCKER_CAPS = "00000000a80425fb";

    private static void limits(Path root, String soft, String caps) {
        Fixtures.write(
                root,
                "/proc/self/limits",
                "Limit                     Soft Limit           Hard Limit           Units     \n"
                        + String.format("Max locked memory         %-21s%-21sbytes     \n", soft, soft));
        Fixtures.write(root, "/proc/self/status", "Name:\tjava\nCapEff:\t" + caps + "\nCpus_allowed_list:\t0-63\n");
    }

    private static void shm(Path root, String size) {
        Fixtures.write(
                root,
                "/proc/self/mountinfo",
                "1250 1200 0:315 / /dev/shm rw,nosuid,nodev - tmpfs shm rw,size=" + size + ",inode64\n");
    }

    @Test
    void memlock(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path unlimited = Fixtures.copy(HEALTHY, tmp.resolve("unlimited"));
        limits(unlimited, "unlimited", DOCKER_CAPS);
        expect(unlimited, "memlock-limit", Verdict.OK, "unlimited");

        Path finite = Fixtures.copy(HEALTHY, tmp.resolve("finite"));
        limits(finite, "1073741824", DOCKER_CAPS);
        expect(finite, "memlock-limit", Verdict.WARN, "Locked-memory limit is 1 GiB (ulimit -l 1048576)");

        Path eight = Fixtures.copy(HEALTHY, tmp.resolve("eight"));
        limits(eight, "8388608", DOCKER_CAPS);
        expect(eight, "memlock-limit", Verdict.FAIL);
    }

    @Test
    void shmSizeAgainstLocalRanksAndJcclsNeed(@TempDir(factory = RamTempDir.class) Path tmp) {
        // Above the Docker default but below what 8 Jccl ranks map.
        Path tight = Fixtures.copy(BROKEN, tmp.resolve("tight"));
        shm(tight, "204800k");
        expect(tight, "shm-size", Verdict.FAIL, "/dev/shm is 200 MiB but 8 local Jccl ranks need up to 232.2 MiB");
        Fixtures.env(tight, "JCCL_SHM_DISABLE", "1");
        expect(tight, "shm-size", Verdict.WARN, "less than 1 GiB");

        Path single = Fixtures.copyWithEnv(PLAIN, tmp.resolve("single"), "LOCAL_WORLD_SIZE", "1");
        expect(single, "shm-size", Verdict.SKIP, "one rank on this host (env LOCAL_WORLD_SIZE=1)");
    }

    @Test
    void jcclShmEstimateMirrorsItsLayout() {
        // Per rank: 1152 bytes of control lines, 64 per peer, 32 outbox slots of 64 + 32 KiB and 256 small records of
        // 32 bytes, in whole pages.
        long page = 259 * 4096L;
        // Per pair: one page of control, two rings of JCCL_BUFFSIZE.
        long pair = 4096 + 2 * (4L << 20);
        assertEquals(2 * page + pair, LimitChecks.jcclShmBytes(2, 4 << 20));
        assertEquals(
                4 * page + 6 * (4096 + 2 * 16384L), LimitChecks.jcclShmBytes(4, 4096), "rings are at least four pages");
    }

    @Test
    void containerCapabilitiesAndSys(@TempDir(factory = RamTempDir.class) Path tmp) {
        Path mitigated = Fixtures.copyWithEnv(BROKEN, tmp.resolve("mitigated"), "NCCL_CUMEM_HOST_ENABLE", "0");
        expect(mitigated, "container-caps-sysfs", Verdict.OK);

        Path noSys = Fixtures.copy(HEALTHY, tmp.resolve("nosys"));
        Fixtures.delete(noSys, "/sys/bus/pci/devices/0000:3b:00.0");
        Map<String, CheckResult> r = Fixtures.examine(noSys);
        expect(r, "container-caps-sysfs", Verdict.WARN, "GPU 0000:3b:00.0 has no /sys/bus/pci/devices entry");
    }
}
