package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.MpirunOnLoopback;
import dev.jccl.TestRanks;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real Open MPI {@code mpirun} (Debian's openmpi-bin, which .ci/run installs) starts four JVMs that know nothing
 * but what it and {@code -x} put in their environment; each finds its rank with {@code Jccl.fromEnvironment()}
 * (OMPI_COMM_WORLD_*) and runs the conformance battery.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MpirunTest {
    private static final int RANKS = 4;

    @Test
    void fourRanksUnderMpirunFindEachOtherAndConform() throws Exception {
        Assumptions.assumeTrue(
                TestRanks.onPath("mpirun"),
                "mpirun is not installed here (apt-get install openmpi-bin); .ci/run installs it");
        List<String> cmd = MpirunOnLoopback.command(RANKS);
        cmd.addAll(List.of(
                // one tagged line at a time: untagged, two ranks' lines written at once can interleave mid-line
                "--tag-output",
                "-x",
                "JCCL_TIMEOUT=60",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                ConformanceWorker.class.getName(),
                "--from-environment"));
        Path log = Files.createTempFile("jccl-mpirun-", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().keySet().removeIf(k -> k.startsWith("JCCL_") || k.startsWith("OMPI_COMM_WORLD"));
            long start = System.nanoTime();
            Process mpirun = pb.start();
            boolean finished = mpirun.waitFor(8, TimeUnit.MINUTES);
            if (!finished) {
                mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
                mpirun.destroyForcibly();
            }
            String out = Files.readString(log);
            assertTrue(finished, "mpirun did not finish in 8 minutes:\n" + out);
            System.out.printf("mpirun -np %d: conformance in %.1f s%n", RANKS, (System.nanoTime() - start) / 1e9);
            assertEquals(0, mpirun.exitValue(), out);
            for (int r = 0; r < RANKS; r++) {
                assertTrue(
                        out.contains("rank " + r + "/" + RANKS + ": PASS"),
                        "rank " + r + " did not pass under mpirun:\n" + out);
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
