package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close(); // rank 0, in its own process, binds it
        List<String> cmd = new ArrayList<>(List.of(
                "mpirun",
                "--allow-run-as-root",
                "--oversubscribe",
                "--bind-to",
                "none",
                "-np",
                "3",
                "--mca",
                "oob_tcp_if_include",
                "lo",
                "--mca",
                "btl_tcp_if_include",
                "lo",
                "-x",
                "JCCL_ID=" + id,
                "-x",
                "JCCL_SOCKET_IFNAME=lo",
                Cli.java().toString(),
                "-cp",
                Cli.classPath(),
                JcclCommand.class.getName(),
                "perf",
                "all_reduce",
                "-b",
                "8",
                "-e",
                "64K",
                "-f",
                "4",
                "-n",
                "2",
                "-w",
                "1",
                "--warmup-time",
                "0"));
        Map<String, String> env = Cli.cleanEnvironment();
        env.keySet().removeIf(k -> k.startsWith("OMPI_COMM_WORLD"));
        Cli.Result r = Cli.exec(cmd, env, null, Duration.ofMinutes(4));
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
}
