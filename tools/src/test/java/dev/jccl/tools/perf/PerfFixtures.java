package dev.jccl.tools.perf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Plausible reports made in code: what {@code jccl perf} would measure over loopback TCP if every operation cost a
 * fixed latency plus its bytes at a fixed bus bandwidth, with a few percent of noise. Example data for tests and the
 * README's picture, not a measurement.
 */
final class PerfFixtures {
    private PerfFixtures() {}

    /**
     * Writes the two example runs of the README's picture (docs/busbw-example.png) into the directory {@code args[0]},
     * as np2.json and np4.json, for {@code jccl perf plot}.
     */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        PerfReports.write(exampleTwoRanks(), dir.resolve("np2.json"));
        PerfReports.write(exampleFourRanks(), dir.resolve("np4.json"));
    }

    /** Two ranks over loopback TCP: ~25 µs per small operation, ~2.6 GB/s at large sizes. */
    static PerfReport exampleTwoRanks() {
        return allReduce("tcp ring 2 ranks", 2, 25, 2.6, 64 << 20);
    }

    /** Four ranks on two cores: slower to start and to stream. */
    static PerfReport exampleFourRanks() {
        return allReduce("tcp ring 4 ranks", 4, 70, 1.7, 64 << 20);
    }

    /**
     * An all_reduce float sum report over {@code ranks} ranks, sizes {@code 8 B × 4^k} up to {@code maxBytes},
     * out-of-place and in-place rows, checked (wrong = 0).
     *
     * @param latencyUs time of the smallest operation
     * @param peakBusbw busbw the largest sizes approach, GB/s
     */
    static PerfReport allReduce(String label, int ranks, double latencyUs, double peakBusbw, long maxBytes) {
        Random noise = new Random(ranks * 31L + label.hashCode());
        double factor = 2.0 * (ranks - 1) / ranks;
        List<PerfRow> rows = new ArrayList<>();
        for (long size = 8; size <= maxBytes; size *= 4) {
            for (boolean inPlace : new boolean[] {false, true}) {
                double busTimeUs = size / (peakBusbw * 1e3) * factor;
                double timeUs = (latencyUs + busTimeUs) * (1 + 0.04 * noise.nextGaussian());
                double algbw = size / (timeUs * 1e3);
                rows.add(new PerfRow(
                        size,
                        size / 4,
                        "float",
                        "sum",
                        -1,
                        inPlace,
                        round(timeUs),
                        round(algbw),
                        round(algbw * factor),
                        0L));
            }
        }
        return report("all_reduce", ranks, label, rows);
    }

    /** A report holding {@code rows}, its other fields made up to match. */
    static PerfReport report(String collective, int ranks, String label, List<PerfRow> rows) {
        double avg = rows.stream()
                .mapToDouble(PerfRow::busbw)
                .filter(Double::isFinite)
                .average()
                .orElse(0);
        String[] words = label.split(" ");
        return new PerfReport(
                PerfReports.TOOL,
                "0.1.0-SNAPSHOT",
                collective,
                ranks,
                1,
                words[0],
                words.length > 1 ? words[1] : "ring",
                label,
                "example-host",
                "2026-11-22T07:00:00Z",
                List.of(collective, "-np", String.valueOf(ranks), "-b", "8", "-e", "64M", "-f", "4"),
                rows,
                0,
                round(avg));
    }

    static PerfRow row(long size, String type, String redop, int root, boolean inPlace, double busbw, Long wrong) {
        return new PerfRow(size, size / 4, type, redop, root, inPlace, 10.5, busbw, busbw, wrong);
    }

    private static double round(double v) {
        return Math.round(v * 1e4) / 1e4;
    }
}
