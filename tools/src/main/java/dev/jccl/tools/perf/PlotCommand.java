package dev.jccl.tools.perf;

import dev.jccl.tools.Charts;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jccl perf plot FILE… -o busbw.png}: busbw against message size from the reports that {@code jccl perf --json}
 * wrote, one line per report, as a PNG. Prints one line, {@code wrote busbw.png (2 lines, 24 points)}; bad input is an
 * {@link IllegalArgumentException} whose message says what is wrong, for the top-level handler to print.
 */
@Command(
        name = "plot",
        mixinStandardHelpOptions = true,
        description = {
            "Draw busbw against message size from `jccl perf --json` reports, as a PNG.",
            "One line per report (one per type, op and root where a report holds several), out-of-place"
                    + " rows unless --in-place; sizes on a log axis, busbw from 0. Rows of size 0 are left out."
        },
        footer = {
            "",
            "Example:",
            "  jccl perf all_reduce -np 2 -b 8 -e 64M -f 4 --json np2.json",
            "  jccl perf all_reduce -np 4 -b 8 -e 64M -f 4 --json np4.json",
            "  jccl perf plot np2.json np4.json -o busbw.png"
        })
public final class PlotCommand implements Callable<Integer> {
    static final int MIN_WIDTH = 320;
    static final int MIN_HEIGHT = 240;
    static final int MAX_SIDE = 10_000;

    @Spec
    private CommandSpec spec;

    @Parameters(
            paramLabel = "FILE",
            arity = "1..*",
            description = "Reports written by `jccl perf ... --json FILE`, one line each.")
    private List<Path> files;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "PNG",
            defaultValue = "busbw.png",
            description = "The picture to write (replaced if it exists). Default: ${DEFAULT-VALUE}.")
    private Path output;

    @Option(names = "--in-place", description = "Plot the in-place rows instead of the out-of-place ones.")
    private boolean inPlace;

    @Option(
            names = "--title",
            paramLabel = "TEXT",
            description =
                    "Title. Default: busbw vs size — <collective> (without the collective when the reports differ).")
    private String title;

    @Option(
            names = "--width",
            paramLabel = "PIXELS",
            defaultValue = "900",
            description = "Width of the picture. Default: ${DEFAULT-VALUE}.")
    private int width;

    @Option(
            names = "--height",
            paramLabel = "PIXELS",
            defaultValue = "560",
            description = "Height of the picture. Default: ${DEFAULT-VALUE}.")
    private int height;

    public PlotCommand() {}

    @Override
    public Integer call() {
        if (width < MIN_WIDTH || width > MAX_SIDE) {
            throw new IllegalArgumentException(
                    "--width " + width + " is not between " + MIN_WIDTH + " and " + MAX_SIDE);
        }
        if (height < MIN_HEIGHT || height > MAX_SIDE) {
            throw new IllegalArgumentException(
                    "--height " + height + " is not between " + MIN_HEIGHT + " and " + MAX_SIDE);
        }
        // Before the drawing, so that a typo in -o does not cost the reading and drawing first.
        Charts.checkWritable(output);

        List<BusbwPlot.Run> runs = new ArrayList<>();
        for (Path file : files) {
            Path name = file.getFileName();
            runs.add(new BusbwPlot.Run(name == null ? file.toString() : name.toString(), PerfReports.read(file)));
        }
        BusbwPlot.Lines lines = BusbwPlot.lines(runs, inPlace);
        if (lines.lines().isEmpty()) throw new IllegalArgumentException(nothingToPlot(lines));

        BusbwPlot.write(
                lines.lines(), title != null ? title : BusbwPlot.defaultTitle(runs, inPlace), width, height, output);

        StringBuilder summary = new StringBuilder("wrote ")
                .append(output)
                .append(" (")
                .append(count(lines.lines().size(), "line", "lines"))
                .append(", ")
                .append(count(lines.points(), "point", "points"));
        List<String> skipped = new ArrayList<>();
        if (lines.skippedZero() > 0) skipped.add(count(lines.skippedZero(), "row", "rows") + " of size 0");
        if (lines.skippedNoValue() > 0) {
            skipped.add(count(lines.skippedNoValue(), "row", "rows") + " without a finite busbw");
        }
        if (!skipped.isEmpty()) summary.append("; left out ").append(String.join(", ", skipped));
        PrintWriter out = spec.commandLine().getOut();
        out.println(summary.append(')'));
        out.flush();
        return 0;
    }

    private String nothingToPlot(BusbwPlot.Lines lines) {
        String kind = inPlace ? "in-place" : "out-of-place";
        String in = files.stream().map(Path::toString).collect(Collectors.joining(", "));
        if (lines.matchingRows() == 0) {
            return "nothing to plot: no " + kind + " rows in " + in + (inPlace ? "" : " (try --in-place)");
        }
        return "nothing to plot: every " + kind + " row in " + in + " has size 0 or no finite busbw";
    }

    private static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }
}
