package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The benchmark on real communicators (ranks as threads of this JVM, over loopback TCP): every collective, type and op
 * on odd sizes and 1 to 5 ranks must check clean, and a damaged element must show up in {@code #wrong}.
 * {@link PerfCommandTest} covers the same through real processes.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PerfBenchmarkTest {
    private static final Config CONFIG = TestRanks.loopback(Duration.ofSeconds(30));
    /**
     * Sizes 7 and 343 bytes: zero elements for wide types, odd counts for the rest, blocks that do not divide evenly.
     */
    private static final SizeSweep ODD_SIZES = new SizeSweep(7, 343, 49, 1);

    static Stream<Arguments> collectivesAndRanks() {
        List<Arguments> out = new ArrayList<>();
        for (PerfCollective c : PerfCollective.values()) {
            for (int n = 1; n <= 5; n++) out.add(Arguments.of(c, n));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1} ranks")
    @MethodSource("collectivesAndRanks")
    void everyRowChecksCleanOnOddSizes(PerfCollective collective, int ranks) throws Exception {
        // Every type and op on 3 ranks; a float/int8 subset elsewhere keeps the suite short.
        boolean full = ranks == 3;
        List<DataType> types =
                full ? List.of(DataType.values()) : List.of(DataType.FLOAT32, DataType.INT8, DataType.BFLOAT16);
        List<ReduceOp> ops = full ? List.of(ReduceOp.values()) : List.of(ReduceOp.SUM, ReduceOp.AVG);
        Run run = run(ranks, options(collective, ODD_SIZES, types, ops, null, false, 1));

        List<Matcher> rows = NcclTestsOutput.rows(run.table);
        int rootCount = collective.rooted() ? ranks : 1;
        int opCount = collective.reduces() ? ops.size() : 1;
        assertEquals(types.size() * opCount * rootCount * 2, rows.size(), run.table);
        for (Matcher m : rows) {
            assertEquals("0", m.group(9), () -> "wrong elements out-of-place:\n" + run.table);
            assertEquals("0", m.group(13), () -> "wrong elements in-place:\n" + run.table);
        }
        assertTrue(run.table.contains("# Out of bounds values : 0 OK"), run.table);
        assertEquals(0, run.report.outOfBounds());
        assertEquals(rows.size() * 2, run.report.rows().size());
    }

    @ParameterizedTest
    @EnumSource(PerfCollective.class)
    void aDamagedElementIsCountedInEveryRow(PerfCollective collective) throws Exception {
        Run run = run(
                3,
                options(
                        collective,
                        new SizeSweep(64, 4096, 8, 1),
                        List.of(DataType.FLOAT32),
                        List.of(ReduceOp.SUM),
                        List.of(1),
                        true,
                        1));
        List<Matcher> rows = NcclTestsOutput.rows(run.table);
        assertEquals(3, rows.size(), run.table);
        for (Matcher m : rows) {
            assertEquals("1", m.group(9), () -> "damage not seen out-of-place:\n" + run.table);
            assertEquals("1", m.group(13), () -> "damage not seen in-place:\n" + run.table);
        }
        assertTrue(run.table.contains("# Out of bounds values : 6 FAILED"), run.table);
        assertEquals(6, run.report.outOfBounds());
    }

    @Test
    void uncheckedRowsSayNotApplicableAndTimingsAreSane() throws Exception {
        Run run = run(2, options(PerfCollective.ALL_REDUCE, new SizeSweep(1024, 65536, 4, 1), 0));
        List<Matcher> rows = NcclTestsOutput.rows(run.table);
        assertEquals(4, rows.size(), run.table);
        for (Matcher m : rows) {
            assertEquals("N/A", m.group(9));
            double time = Double.parseDouble(m.group(6));
            double algbw = Double.parseDouble(m.group(7));
            double busbw = Double.parseDouble(m.group(8));
            long size = Long.parseLong(m.group(1));
            assertTrue(time > 0, run.table);
            // algbw = size / time (GB/s from bytes and µs), busbw = algbw × 2(n-1)/n = algbw for 2 ranks; both printed
            // to 2 decimals.
            assertEquals(size / (time * 1e3), algbw, 0.006 + algbw * 0.01, run.table);
            assertEquals(algbw, busbw, 0.0051, run.table);
        }
        for (PerfRow r : run.report.rows()) assertEquals(null, r.wrong());
    }

    @Test
    void blockingModeSaysSoAndChecksClean() throws Exception {
        PerfOptions o = options(
                PerfCollective.REDUCE, ODD_SIZES, List.of(DataType.INT32), List.of(ReduceOp.MAX), List.of(1), false, 1);
        PerfOptions blocking = new PerfOptions(
                o.collective(),
                o.sweep(),
                3,
                1,
                0,
                2,
                o.ops(),
                o.types(),
                o.roots(),
                PerfOptions.Calls.BLOCKING_WITH_BARRIER,
                3,
                false,
                null,
                null,
                false,
                o.arguments(),
                1);
        Run run = run(3, blocking);
        assertTrue(
                run.table.contains("# Blocking Enabled: wait for completion and barrier after each collective"),
                run.table);
        for (Matcher m : NcclTestsOutput.rows(run.table)) {
            assertEquals("1", m.group(5), "root column");
            assertEquals("0", m.group(9), run.table);
        }
    }

    @Test
    void progressLineIsDrawnAndClearedOnlyOnRankZero() throws Exception {
        PerfOptions o = options(PerfCollective.ALL_REDUCE, new SizeSweep(8, 512, 8, 1), 1);
        PerfOptions withProgress = new PerfOptions(
                o.collective(),
                o.sweep(),
                1,
                0,
                0,
                1,
                o.ops(),
                o.types(),
                null,
                PerfOptions.Calls.ASYNC,
                1,
                false,
                null,
                null,
                true,
                o.arguments(),
                1);
        ByteArrayOutputStream[] progress = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
        List<Object> results = TestRanks.run(
                2,
                CONFIG,
                (rank, comm) -> new PerfBenchmark(
                                comm,
                                withProgress,
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(progress[rank], true, StandardCharsets.UTF_8),
                                0)
                        .run());
        for (Object r : results) assertInstanceOf(PerfReport.class, r);
        String drawn = progress[0].toString(StandardCharsets.UTF_8);
        assertTrue(
                java.util.regex.Pattern.compile(
                                "\r\033\\[K# all_reduce float sum: 512 B in-place \\(3 of 3 sizes\\), \\d+:\\d\\d "
                                        + "elapsed")
                        .matcher(drawn)
                        .find(),
                drawn);
        assertTrue(drawn.endsWith("\r\033[K"), "the last progress line must be erased: " + drawn);
        assertEquals("", progress[1].toString(StandardCharsets.UTF_8), "only rank 0 draws progress");
    }

    @Test
    void aRootOutsideTheJobIsAClearError() throws Exception {
        List<Object> results = TestRanks.run(
                2,
                CONFIG,
                (rank, comm) -> new PerfBenchmark(
                                comm,
                                options(
                                        PerfCollective.BROADCAST,
                                        ODD_SIZES,
                                        List.of(DataType.FLOAT32),
                                        List.of(ReduceOp.SUM),
                                        List.of(2),
                                        false,
                                        1),
                                new PrintStream(new ByteArrayOutputStream()),
                                System.err)
                        .run());
        for (Object o : results) {
            IllegalArgumentException e = assertInstanceOf(IllegalArgumentException.class, o);
            assertTrue(e.getMessage().contains("-r 2") && e.getMessage().contains("0..1"), e.getMessage());
        }
    }

    private record Run(String table, PerfReport report) {}

    private static Run run(int ranks, PerfOptions options) throws Exception {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        List<Object> results = TestRanks.run(ranks, CONFIG, (rank, comm) -> {
            PrintStream out =
                    new PrintStream(rank == 0 ? table : new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            return new PerfBenchmark(comm, options, out, System.err).run();
        });
        String text = table.toString(StandardCharsets.UTF_8);
        for (Object o : results) {
            if (o instanceof Throwable t) throw new AssertionError("a rank failed; rank 0 printed:\n" + text, t);
        }
        return new Run(text, (PerfReport) results.getFirst());
    }

    /** Float sums at every root, nothing damaged. */
    static PerfOptions options(PerfCollective c, SizeSweep sweep, int checks) {
        return options(c, sweep, List.of(DataType.FLOAT32), List.of(ReduceOp.SUM), null, false, checks);
    }

    static PerfOptions options(
            PerfCollective c,
            SizeSweep sweep,
            List<DataType> types,
            List<ReduceOp> ops,
            List<Integer> roots,
            boolean corrupt,
            int checks) {
        return new PerfOptions(
                c,
                sweep,
                1,
                1,
                0,
                checks,
                ops,
                types,
                roots,
                PerfOptions.Calls.ASYNC,
                1,
                corrupt,
                null,
                null,
                false,
                List.of("test"),
                1);
    }
}
