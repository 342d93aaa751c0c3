package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.tools.perf.NcclTestsOutput;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code jccl perf --device}: without a GPU, {@code cuda} is a sentence and exit code 2, before any rank starts; the
 * device path itself (device communicator, staging pipeline, mirrors, checks) runs here on the host stand-in
 * ({@code --device standin}), and its table must be clean.
 *
 * <p>Benchmarks run in rank processes ({@code -np}), not in this JVM: once a test here has loaded UCX (info probes it),
 * UCX's own SIGSEGV handler stands in front of the JVM's, and the JVM uses SIGSEGV internally (implicit null checks in
 * compiled code), so a hot benchmark loop in this JVM can be killed by UCX. Rank processes do not load UCX unless
 * JCCL_NET=UCX.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PerfDeviceTest {
    @Test
    void cudaWithoutCudaIsExitTwoAndSaysWhy() {
        Cli.Result r = Cli.inProcess(
                Cli.environment("JCCL_CUDA_LIB", "/nonexistent/libcudart.so.12"),
                "perf",
                "all_reduce",
                "--device",
                "cuda");
        assertEquals(2, r.code(), r::toString);
        assertTrue(
                r.err()
                        .startsWith("jccl perf: no CUDA device: no CUDA runtime: "
                                + "libcudart not found (JCCL_CUDA_LIB=/nonexistent/libcudart.so.12: "
                                + "no such file); install the CUDA toolkit or runtime"),
                r::toString);
        assertEquals("", r.out());
    }

    @Test
    void cudaWithoutAGpuFailsInTheLauncherBeforeAnyRankStarts() {
        long start = System.nanoTime();
        Cli.Result r =
                Cli.inProcess(Cli.cleanEnvironment(), Cli.args("perf all_gather -np 2 --device cuda -b 1K -e 1K"));
        assertEquals(2, r.code(), r::toString);
        // Here: no libcudart (CI), or a CUDA runtime with no driver or GPU (a build machine): either way a sentence.
        assertTrue(r.err().startsWith("jccl perf: no CUDA device: no "), r::toString);
        assertEquals(1, r.err().lines().count(), r::toString);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20), "no rank JVM was started");
    }

    @Test
    void anUnknownDeviceIsAUsageError() {
        Cli.Result r = Cli.inProcess(Cli.cleanEnvironment(), "perf", "all_reduce", "--device", "gpu");
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("--device takes host or cuda, got 'gpu'"), r::toString);
    }

    /** Two rank processes on the stand-in: the staged path end to end, the header says which path and why. */
    @Test
    void twoRanksRunTheStagedPathCleanly() {
        Cli.Result r = Cli.inProcess(
                Cli.cleanEnvironment(),
                Cli.args("perf all_reduce -np 2 --device standin -b 8 -e 8M -f 32 -c 1 -n 2 -w 1 --warmup-time 0"));
        assertEquals(0, r.code(), r::toString);
        List<Matcher> rows = NcclTestsOutput.rows(r.out());
        assertEquals(5, rows.size(), r::toString); // 8 B, 256 B, 8 KiB, 256 KiB, 8 MiB
        for (Matcher m : rows) {
            assertEquals("0", m.group(9), r::toString);
            assertEquals("0", m.group(13), r::toString);
        }
        assertTrue(
                r.out()
                        .contains("# Device buffers: staged through pinned host memory (4 slots of 4 MiB); "
                                + "NCCL not used: rank 0 cannot use NCCL: "
                                + "cuda:0 stand-in (host memory, a thread per stream) is not CUDA memory, "
                                + "and NCCL needs a GPU\n"),
                r::toString);
        assertTrue(
                r.out().contains(" device cuda:0 stand-in (host memory, a thread per stream) staged staged+"),
                r::toString);
        assertTrue(
                r.out().contains(" device cuda:1 stand-in (host memory, a thread per stream) staged staged+"),
                r::toString);
        assertTrue(r.out().contains("send and recv mirrored on the device, where the operations run"), r::toString);
    }

    /**
     * Every benchmark on two ranks (async, and blocking for one), then a damaged element must be caught after the copy
     * back. Ranks run as processes (-np): a benchmark run in this JVM, after other tests have loaded UCX, can be killed
     * by UCX's SIGSEGV handler (see the class comment).
     */
    @Test
    void everyBenchmarkChecksCleanOnDeviceBuffers() {
        for (String bench :
                List.of("all_reduce", "all_gather", "broadcast", "reduce", "reduce_scatter", "alltoall", "sendrecv")) {
            String z = bench.equals("all_gather") ? "1" : "0";
            Cli.Result r = Cli.inProcess(
                    Cli.cleanEnvironment(),
                    Cli.args("perf " + bench + " -np 2 --device standin -b 4 -e 12M -f 64 -c 1 -n 2 -w 1 -z " + z
                            + " -o avg -d bfloat16 --warmup-time 0"));
            assertEquals(0, r.code(), () -> bench + " -z " + z + ":\n" + r);
            List<Matcher> rows = NcclTestsOutput.rows(r.out());
            assertEquals(4, rows.size(), () -> bench + ":\n" + r);
            for (Matcher m : rows) {
                assertEquals("0", m.group(9), () -> bench + ":\n" + r);
                assertEquals("0", m.group(13), () -> bench + ":\n" + r);
            }
        }
        Cli.Result bad = Cli.inProcess(
                Cli.cleanEnvironment(),
                Cli.args("perf all_reduce -np 1 --device standin -b 1K -e 1K -n 1 -w 0 --warmup-time 0"
                        + " --debug-corrupt"));
        assertEquals(1, bad.code(), bad::toString);
        assertEquals("1", NcclTestsOutput.rows(bad.out()).getFirst().group(9), bad::toString);
    }
}
