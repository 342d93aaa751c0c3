package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.MpirunOnLoopback;
import dev.jccl.TestRanks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * `jccl perf` started by the real Open MPI mpirun: each process is a rank, rank 0 prints one table, every row checks
 * out.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MpirunPerfTest {
    private static final Pattern ROW =
            Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+float\\s+sum\\s+-1\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+\\s+(\\S+)"
                    + "\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+\\s+(\\S+)\\s*$");

    @Test
    void perfUnderMpirunRunsOneTableAcrossItsRanks() throws Exception {
        Assumptions.assumeTrue(
                TestRanks.onPath("mpirun"),
                "mpirun is not installed here (apt-get install openmpi-bin); .ci/run installs it");
        List<String> cmd = MpirunOnLoopback.command(3);
        cmd.addAll(Cli.jcclCommand());
        cmd.addAll(List.of(Cli.args("perf all_reduce -b 8 -e 64K -f 4 -n 2 -w 1 --warmup-time 0")));
        Cli.Result r = Cli.exec(cmd, mpirunEnvironment(), null, Duration.ofMinutes(4));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("# Jccl") && r.out().contains("3 ranks"), r::toString);
        assertEquals(
                1,
                r.out().lines().filter(l -> l.startsWith("# nThread")).count(),
                "only rank 0 prints the table:\n" + r);
        int rows = 0;
        for (String line : r.out().split("\n")) {
            Matcher m = ROW.matcher(line);
            if (!m.matches()) continue;
            rows++;
            assertEquals("0", m.group(3), "wrong elements out of place: " + line);
            assertEquals("0", m.group(4), "wrong elements in place: " + line);
        }
        assertEquals(7, rows, "8 B to 64 KiB by ×4:\n" + r);
    }

    /**
     * A harness written for nccl-tests: {@code mpirun … all_reduce_perf} with nccl-tests' flags, {@code -g 1} and
     * {@code -G 0} among them. The repository's launcher script runs, in a copy of the layout whose {@code jccl} is a
     * stand-in that starts this build's classes (the real one would build the jar, which the suite has not made yet).
     */
    @Test
    void theNcclTestsLauncherTakesNcclTestsFlagsUnderMpirun(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(
                TestRanks.onPath("mpirun"),
                "mpirun is not installed here (apt-get install openmpi-bin); .ci/run installs it");
        Path repoLaunchers = Path.of("").toAbsolutePath().getParent().resolve("nccl-tests");
        Path launchers = Files.createDirectories(tmp.resolve("nccl-tests"));
        for (String name : List.of(
                "all_reduce_perf",
                "all_gather_perf",
                "broadcast_perf",
                "reduce_perf",
                "reduce_scatter_perf",
                "alltoall_perf",
                "sendrecv_perf")) {
            assertTrue(Files.isExecutable(repoLaunchers.resolve(name)), name + " is missing");
            Files.copy(repoLaunchers.resolve(name), launchers.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Path standIn = tmp.resolve("jccl");
        Files.writeString(
                standIn,
                "#!/usr/bin/env bash\nexec '" + Cli.java() + "' -cp '" + Cli.classPath() + "' "
                        + JcclCommand.class.getName() + " \"$@\"\n");
        standIn.toFile().setExecutable(true);
        List<String> cmd = MpirunOnLoopback.command(2);
        cmd.add(launchers.resolve("all_reduce_perf").toString());
        cmd.addAll(List.of(Cli.args("-b 8 -e 64K -f 2 -g 1 -c 1 -n 20 -w 5 -G 0 -d float -m 2 --warmup-time 0")));
        Cli.Result r = Cli.exec(cmd, mpirunEnvironment(), null, Duration.ofMinutes(4));
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("agg iters: 2") && r.out().contains("2 ranks"), r::toString);
        long rows = r.out().lines().filter(l -> ROW.matcher(l).matches()).count();
        assertEquals(14, rows, "8 B to 64 KiB by ×2:\n" + r);
    }

    /** This JVM's environment without the variables of an mpirun that may have started it. */
    private static Map<String, String> mpirunEnvironment() {
        Map<String, String> env = Cli.cleanEnvironment();
        env.keySet().removeIf(k -> k.startsWith("OMPI_COMM_WORLD"));
        return env;
    }
}
