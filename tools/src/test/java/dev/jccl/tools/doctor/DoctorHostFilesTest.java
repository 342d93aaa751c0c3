package dev.jccl.tools.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Reading under a root prefix, the access log a capture is written from, and the small parsers. */
@Timeout(30)
class DoctorHostFilesTest {

    @Test
    void linksResolveInsideTheRootEvenWhenAbsolute(@TempDir(factory = RamTempDir.class) Path root) throws IOException {
        Files.createDirectories(root.resolve("sys/devices/x"));
        Files.writeString(root.resolve("sys/devices/x/mtu"), "9000\n");
        Files.createDirectories(root.resolve("sys/class/net"));
        Files.createSymbolicLink(root.resolve("sys/class/net/abs"), Path.of("/sys/devices/x"));
        Files.createSymbolicLink(root.resolve("sys/class/net/rel"), Path.of("../../devices/x"));
        Files.createSymbolicLink(root.resolve("sys/class/net/escape"), Path.of("../../../../../../etc"));
        Files.createSymbolicLink(root.resolve("sys/class/net/loop"), Path.of("loop"));
        HostFiles files = new HostFiles(root, null);
        assertEquals("9000", files.read("/sys/class/net/abs/mtu"));
        assertEquals("9000", files.read("/sys/class/net/rel/mtu"));
        assertEquals("/sys/devices/x", files.realPath("/sys/class/net/rel"));
        assertEquals("../../devices/x", files.readLink("/sys/class/net/rel"));
        // ".." stops at the root: this machine's /etc is never read through a captured tree.
        assertEquals("/etc", files.canonical("/sys/class/net/escape"));
        assertNull(files.read("/sys/class/net/escape/hostname"));
        assertNull(files.read("/sys/class/net/loop/mtu"), "a link loop ends, unresolved");
        assertEquals(List.of("abs", "escape", "loop", "rel"), files.list("/sys/class/net"));
        assertEquals(List.of(), files.list("/sys/class/infiniband"));
    }

    @Test
    void procSelfIsAPlainDirectoryInACapture(@TempDir(factory = RamTempDir.class) Path root) throws IOException {
        Files.createDirectories(root.resolve("proc/self"));
        Files.writeString(root.resolve("proc/self/status"), "Name:\tjava\nCapEff:\t0000000000000000\n");
        HostFiles files = new HostFiles(root, null);
        assertEquals("CapEff:\t0000000000000000", files.lineStartingWith("/proc/self/status", "CapEff:"));
    }

    @Test
    void sysctlFilesAreReadWhole() {
        // The kernel answers reads past offset 0 of a sysctl file with end of file; one large read gets it all.
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.exists(range), "no procfs here");
        String text = new HostFiles(Path.of("/"), null).read("/proc/sys/net/ipv4/ip_local_port_range");
        assertTrue(text.matches("\\d+\\s+\\d+"), text);
    }

    @Test
    void theAccessLogWritesWhatWasReadAndNoMore(@TempDir(factory = RamTempDir.class) Path tmp) throws IOException {
        AccessLog log = new AccessLog();
        HostFiles files = new HostFiles(Fixtures.source(Fixtures.HEALTHY), log);
        String state = files.read("/sys/class/infiniband/mlx5_0/ports/1/state");
        List<String> caps = files.linesMatching("/proc/self/status", l -> l.startsWith("CapEff:"));
        List<String> words = files.wordsMatching("/proc/cmdline", w -> w.startsWith("root="));
        assertTrue(files.exists("/.dockerenv"));
        List<String> gpus = files.list("/proc/driver/nvidia/gpus");
        Path out = tmp.resolve("capture");
        log.writeTo(out);

        HostFiles replay = new HostFiles(out, null);
        assertEquals(state, replay.read("/sys/class/infiniband/mlx5_0/ports/1/state"));
        assertTrue(Files.isSymbolicLink(out.resolve("sys/class/infiniband/mlx5_0")), "links stay links");
        assertEquals(caps, replay.lines("/proc/self/status"), "only the kept lines");
        assertEquals("root=/dev/sda1", replay.read("/proc/cmdline"), "only the kept words");
        assertEquals(List.of("root=/dev/sda1"), words);
        assertTrue(replay.exists("/.dockerenv"));
        assertEquals(gpus, replay.list("/proc/driver/nvidia/gpus"));
        assertFalse(Files.exists(out.resolve("proc/meminfo")), "nothing that was not read");
    }

    @Test
    void mountinfoSizes() {
        MountInfo.Mount m =
                MountInfo.parse("1250 1200 0:315 / /dev/shm rw,nosuid shared:5 - tmpfs shm rw,size=65536k,inode64");
        assertEquals("/dev/shm", m.mountPoint());
        assertEquals("tmpfs", m.fsType());
        assertEquals("65536k", m.option("size"));
        assertEquals(64L << 20, MountInfo.sizeBytes("65536k", -1));
        assertEquals(64L << 20, MountInfo.sizeBytes("64m", -1));
        assertEquals(1L << 30, MountInfo.sizeBytes("1g", -1));
        assertEquals(1000, MountInfo.sizeBytes("1000", -1));
        assertEquals(1L << 29, MountInfo.sizeBytes("50%", 1L << 30));
        assertEquals(-1, MountInfo.sizeBytes("50%", -1));
        assertEquals(
                "/mnt/with space",
                MountInfo.parse("1 2 0:1 / /mnt/with\\040space rw - tmpfs x rw").mountPoint());
    }

    @Test
    void versionsCompareByNumber() {
        assertTrue(Version.of("2.19.4-1").below("2.23.4"));
        assertTrue(Version.of("2.28.7").atLeast("2.28.3"));
        assertTrue(Version.of("6.8.0-45-generic").atLeast("5.12"));
        assertTrue(Version.of("2.9.10").compareTo(Version.of("2.9.6")) > 0, "numbers, not text");
        assertEquals(0, Version.of("2.21").compareTo(Version.of("2.21.0")));
        assertNull(Version.parse("unknown"));
    }

    @Test
    void captureKeepsOnlyTheStacksVariablesAndHidesSecrets() {
        List<String> lines = Capture.environmentLines(Map.of(
                "NCCL_IB_HCA",
                "=mlx5_0",
                "JCCL_SECRET",
                "abc",
                "SLURM_JOB_TOKEN",
                "t",
                "HOME",
                "/root",
                "K_MPI_JOB_ROLE",
                "worker",
                "PATH",
                "/bin",
                "CUDA_VISIBLE_DEVICES",
                "0",
                "UCX_TLS",
                "rc"));
        assertEquals(
                List.of(
                        "CUDA_VISIBLE_DEVICES=0",
                        "JCCL_SECRET=(redacted)",
                        "K_MPI_JOB_ROLE=worker",
                        "NCCL_IB_HCA==mlx5_0",
                        "SLURM_JOB_TOKEN=(redacted)",
                        "UCX_TLS=rc"),
                lines);
    }
}
