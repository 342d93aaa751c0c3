package dev.jccl.tools.perf;

import dev.jccl.tools.Charts;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

/**
 * busbw against message size for one or more {@code jccl perf} runs, drawn with XChart: one line per run (per type, op
 * and root where a run measured several), sizes on a log axis.
 *
 * <p>The x axis is log2(size) on a linear axis, labelled back in bytes ({@code 8 B}, {@code 1 KiB}, {@code 64 MiB}):
 * XChart's own log axis puts its ticks at powers of ten ({@code 1000}, {@code 10000} for sizes that are powers of two),
 * and setting a label formatter on it replaces the log tick placement with a linear one.
 */
final class BusbwPlot {
    /** matplotlib's default colours (tab10); opaque, unlike XChart's, so lines and markers are exactly these. */
    static final Color[] SERIES_COLORS = {
        new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44), new Color(214, 39, 40),
        new Color(148, 103, 189), new Color(140, 86, 75), new Color(227, 119, 194), new Color(127, 127, 127),
        new Color(188, 189, 34), new Color(23, 190, 207),
    };

    static final String X_AXIS_TITLE = "message size (bytes)";
    static final String Y_AXIS_TITLE = "busbw (GB/s)";

    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

    private BusbwPlot() {}

    /** One run to draw: its report and the name it came under (a file name), for telling equal labels apart. */
    record Run(String name, PerfReport report) {}

    /** One line of the chart: its legend label and its points, by ascending size. */
    record Line(String label, List<PerfRow> rows) {}

    /**
     * What a set of runs puts on the chart.
     *
     * @param lines lines with at least one point each
     * @param matchingRows rows of the chosen kind (out-of-place or in-place), drawn or not
     * @param skippedZero rows of that kind with size 0, which a log axis cannot show
     * @param skippedNoValue rows of that kind whose busbw is NaN or infinite
     */
    record Lines(List<Line> lines, int matchingRows, int skippedZero, int skippedNoValue) {
        int points() {
            return lines.stream().mapToInt(l -> l.rows().size()).sum();
        }
    }

    /** The out-of-place rows of each run ({@code inPlace} false), or its in-place rows, as lines. */
    static Lines lines(List<Run> runs, boolean inPlace) {
        record Draft(Run run, String suffix, List<PerfRow> rows) {}
        List<Draft> drafts = new ArrayList<>();
        int matching = 0;
        int zero = 0;
        int noValue = 0;
        for (Run run : runs) {
            Map<String, List<PerfRow>> groups = new LinkedHashMap<>();
            for (PerfRow row : run.report().rows()) {
                if (row.inPlace() != inPlace) continue;
                matching++;
                if (row.size() <= 0) {
                    zero++;
                } else if (!Double.isFinite(row.busbw())) {
                    noValue++;
                } else {
                    groups.computeIfAbsent(group(row), k -> new ArrayList<>()).add(row);
                }
            }
            for (Map.Entry<String, List<PerfRow>> g : groups.entrySet()) {
                List<PerfRow> rows = new ArrayList<>(g.getValue());
                rows.sort(Comparator.comparingLong(PerfRow::size));
                // A run that is one line keeps its plain label; several say which type, op and root each is.
                drafts.add(new Draft(run, groups.size() > 1 ? " " + g.getKey() : "", List.copyOf(rows)));
            }
        }
        List<String> labels = new ArrayList<>();
        for (Draft d : drafts) labels.add(runLabel(d.run()) + d.suffix());
        // Equal labels (two runs of one configuration) get their file names, then their positions.
        List<String> named = new ArrayList<>(labels);
        for (int i = 0; i < drafts.size(); i++) {
            if (count(labels, labels.get(i)) > 1) {
                named.set(i, labels.get(i) + " (" + drafts.get(i).run().name() + ")");
            }
        }
        List<Line> lines = new ArrayList<>();
        Set<String> used = new HashSet<>();
        for (int i = 0; i < drafts.size(); i++) {
            String label = named.get(i);
            for (int n = 2; !used.add(label); n++) label = named.get(i) + " #" + n;
            lines.add(new Line(label, drafts.get(i).rows()));
        }
        return new Lines(List.copyOf(lines), matching, zero, noValue);
    }

    /** {@code busbw vs size — all_reduce}, or without the collective when the runs measured different ones. */
    static String defaultTitle(List<Run> runs, boolean inPlace) {
        Set<String> collectives =
                runs.stream().map(r -> r.report().collective()).collect(Collectors.toSet());
        String title = "busbw vs size";
        if (collectives.size() == 1 && collectives.iterator().next() != null) {
            title += " — " + collectives.iterator().next();
        }
        return inPlace ? title + " (in-place)" : title;
    }

    /** The chart of {@code lines}, which must hold at least one point. */
    static XYChart chart(List<Line> lines, String title, int width, int height) {
        XYChart chart = new XYChartBuilder()
                .width(width)
                .height(height)
                .title(title)
                .xAxisTitle(X_AXIS_TITLE)
                .yAxisTitle(Y_AXIS_TITLE)
                .build();
        XYStyler s = chart.getStyler();
        s.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        Charts.plainWhite(s);
        // Busbw rises with size, so the top left is where the lines are not.
        s.setLegendPosition(Styler.LegendPosition.InsideNW);
        s.setSeriesColors(SERIES_COLORS);
        s.setSeriesLines(new BasicStroke[] {new BasicStroke(2f)});
        s.setMarkerSize(7);
        s.setYAxisLabelAlignment(AxesChartStyler.TextAlignment.Right);
        s.setxAxisTickLabelsFormattingFunction(BusbwPlot::sizeTickLabel);

        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        double top = 0;
        for (Line line : lines) {
            double[] x = new double[line.rows().size()];
            double[] y = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                PerfRow row = line.rows().get(i);
                x[i] = log2(row.size());
                y[i] = row.busbw();
                lo = Math.min(lo, x[i]);
                hi = Math.max(hi, x[i]);
                top = Math.max(top, y[i]);
            }
            chart.addSeries(line.label(), x, y);
        }
        // Whole powers of two at both ends, so that the end ticks are labelled sizes.
        lo = Math.floor(lo);
        hi = Math.ceil(hi);
        if (hi - lo < 2) {
            lo -= 1;
            hi += 1;
        }
        s.setXAxisMin(lo);
        s.setXAxisMax(hi);
        s.setYAxisMin(0.0);
        if (top <= 0) s.setYAxisMax(1.0); // an all-zero run still gets an axis, not a single tick
        return chart;
    }

    /**
     * Draws {@code lines} (at least one point in all) and writes the picture to {@code png}.
     *
     * @throws IllegalArgumentException when {@code png} cannot be written (no such directory, …)
     * @throws IllegalStateException when this JVM cannot draw text: no fonts, or no fontconfig
     */
    static void write(List<Line> lines, String title, int width, int height, Path png) {
        // Before AWT's first use: there is no display to talk to, and none is needed for a PNG.
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
        BufferedImage image;
        try {
            XYChart chart = chart(lines, title, width, height);
            image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = image.createGraphics();
            try {
                chart.paint(g, width, height);
            } finally {
                g.dispose();
            }
        } catch (RuntimeException | Error e) {
            if (!isFontTrouble(e)) throw e;
            throw new IllegalStateException(
                    "cannot draw text, this JVM finds no usable fonts (" + firstLine(e)
                            + "); install fontconfig and a font, e.g. apt-get install fontconfig fonts-dejavu-core",
                    e);
        }
        Charts.writePng(image, png);
    }

    /**
     * The label of the x tick at log2(size) {@code exponent}: {@code 8 B}, {@code 1 KiB}, {@code 64 MiB}. Between
     * powers of two it is empty: XChart widens its tick step until every label differs, so the ticks land on whole
     * powers of two.
     */
    static String sizeTickLabel(double exponent) {
        long e = Math.round(exponent);
        if (Math.abs(exponent - e) > 1e-6 || e < 0 || e > 62) return "";
        int unit = (int) Math.min(e / 10, UNITS.length - 1);
        return (1L << (e - 10L * unit)) + " " + UNITS[unit];
    }

    /**
     * Whether {@code t} is how AWT fails without fonts: "Fontconfig head is null", "No fonts found", an
     * UnsatisfiedLinkError for libfontmanager or libfreetype, an NPE inside sun.awt.FontConfiguration, and afterwards
     * "Could not initialize class sun.awt.X11FontManager".
     */
    static boolean isFontTrouble(Throwable t) {
        int depth = 0;
        for (Throwable c = t; c != null && depth++ < 20; c = c.getCause()) {
            String m = String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("font") || m.contains("freetype")) return true;
            for (StackTraceElement f : c.getStackTrace()) {
                String cls = f.getClassName();
                if (cls.startsWith("sun.font.") || (cls.startsWith("sun.awt.") && cls.contains("Font"))) return true;
            }
        }
        return false;
    }

    private static String firstLine(Throwable t) {
        String s = t.toString();
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The run's legend label: the report's own, else what it is made of, else the file name. */
    private static String runLabel(Run run) {
        PerfReport r = run.report();
        if (r.label() != null && !r.label().isBlank()) return r.label();
        if (r.transport() != null && r.algorithm() != null) {
            return r.transport() + " " + r.algorithm() + " " + r.ranks() + (r.ranks() == 1 ? " rank" : " ranks");
        }
        return run.name();
    }

    /** {@code float sum}, {@code float root 0}: what sets a group of rows apart within one run. */
    private static String group(PerfRow row) {
        StringBuilder s = new StringBuilder(String.valueOf(row.type()));
        if (row.redop() != null && !row.redop().equals("none")) s.append(' ').append(row.redop());
        if (row.root() >= 0) s.append(" root ").append(row.root());
        return s.toString();
    }

    private static int count(List<String> list, String value) {
        return (int) list.stream().filter(value::equals).count();
    }

    /** Exact for powers of two, so that their ticks and the axis ends fall on them. */
    static double log2(long size) {
        if (Long.bitCount(size) == 1) return Long.numberOfTrailingZeros(size);
        return Math.log(size) / Math.log(2);
    }
}
