package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.ChildProcesses;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** QuickStart as a real job: N JVMs configured only through JCCL_* variables, as a launcher would. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class QuickStartTest {

    @ParameterizedTest(name = "{0} processes")
    @ValueSource(ints = {3, 4})
    void runsAndChecksItself(int size) throws Exception {
        try (JobRanks job = JobRanks.start(size, "quickstart-", QuickStart.class, List.of(), 60)) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            List<String> outputs = new ArrayList<>();
            List<Integer> codes = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                Process p = job.processes.get(r);
                boolean done = p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (!done) ChildProcesses.kill(p);
                codes.add(done ? p.exitValue() : null);
                outputs.add(job.output(r));
            }
            StringBuilder all = new StringBuilder();
            for (int r = 0; r < size; r++) {
                all.append("\n--- rank ")
                        .append(r)
                        .append(": ")
                        .append(codes.get(r) == null ? "killed at the deadline" : "exit " + codes.get(r))
                        .append('\n')
                        .append(outputs.get(r));
            }
            for (int r = 0; r < size; r++) {
                assertEquals(Integer.valueOf(0), codes.get(r), "rank " + r + " failed:" + all);
                for (String line : expectedLines(r, size)) {
                    int rank = r;
                    assertTrue(
                            outputs.get(r).lines().anyMatch(line::equals),
                            () -> "rank " + rank + " did not print \"" + line + "\":" + all);
                }
            }
        }
    }

    /** What rank {@code r} of {@code n} must print, worked out here rather than taken from QuickStart. */
    private static List<String> expectedLines(int r, int n) {
        String me = "rank " + r + "/" + n;
        float s = n * (n + 1) / 2f;
        StringBuilder gathered = new StringBuilder("[");
        for (int k = 0; k < n; k++) {
            gathered.append(k == 0 ? "" : ", ").append(k).append(", ").append(k * k);
        }
        gathered.append(']');
        return List.of(
                me + " allReduce(SUM): [" + s + ", " + 2 * s + ", " + 3 * s + ", " + 4 * s + "]",
                me + " broadcast(root " + (n - 1) + "): [42, " + n + ", 7]",
                me + " allGather: " + gathered,
                me + " OK");
    }
}
