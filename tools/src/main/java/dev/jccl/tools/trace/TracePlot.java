package dev.jccl.tools.trace;

import dev.jccl.tools.Charts;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The timeline of a communicator's last collectives as a PNG, drawn with XChart: time on x (ms from the earliest start
 * in the window), one row per rank on y, each operation a thick bar from its start to its end, or to the rank's dump
 * time while it was still running, coloured by state.
 *
 * <p>All bars of one state are one series, their segments separated by NaN points (where XChart lifts the pen), so that
 * the legend has three entries however many operations there are.
 */
final class TracePlot {
    static final Color COMPLETED = new Color(44, 160, 44);
    static final Color RUNNING = new Color(255, 127, 14);
    static final Color FAILED = new Color(214, 39, 40);

    static final int WIDTH = 1000;

    private TracePlot() {}

    /** What was drawn: how many operations, of how many ranks, from which collective on. */
    record Drawn(int operations, int ranks, long fromSeq, long toSeq) {}

    /**
     * Draws the operations of {@code dumps} from collective {@code fromSeq} on (and the point-to-point ones that
     * started after it) and writes the picture to {@code png}.
     *
     * @throws IllegalArgumentException when {@code png} cannot be written, or nothing is left to draw
     * @throws IllegalStateException when this JVM cannot draw (no fonts)
     */
    static Drawn write(TraceAnalysis analysis, List<TraceDump> dumps, Path png) {
        if (analysis.timeline().isEmpty()) {
            throw new IllegalArgumentException(
                    "nothing to plot: no dump of " + analysis.commId() + " holds a collective operation");
        }
        long fromSeq = analysis.timeline().getFirst().seq();
        long toSeq = analysis.timeline().getLast().seq();
        long origin = Long.MAX_VALUE;
        for (TraceDump d : dumps) {
            for (TraceOperation o : d.collectives()) {
                if (o.seq() >= fromSeq) origin = Math.min(origin, o.startMicros());
            }
        }
        Map<String, Bars> byState = new LinkedHashMap<>();
        byState.put(TraceOperation.COMPLETED, new Bars("completed", COMPLETED));
        byState.put(TraceOperation.STARTED, new Bars("running at dump time", RUNNING));
        byState.put(TraceOperation.FAILED, new Bars("failed", FAILED));
        double end = 0;
        int drawn = 0;
        for (TraceDump d : dumps) {
            for (TraceOperation o : d.operations()) {
                boolean inWindow = o.collective() ? o.seq() >= fromSeq : o.startMicros() >= origin;
                if (!inWindow) continue;
                double x0 = (o.startMicros() - origin) / 1e3;
                double x1 = x0 + o.micros(d.dumpedAtMicros()) / 1e3;
                byState.get(o.state()).add(x0, x1, d.rank());
                end = Math.max(end, x1);
                drawn++;
            }
        }
        // A bar of 12 µs on an axis of seconds would be invisible: every operation gets at least a sliver.
        double sliver = Math.max(end, 1e-3) / 400;
        byState.values().forEach(b -> b.widen(sliver));

        int height = Math.max(300, Math.min(2000, 140 + 40 * analysis.size()));
        XYChart chart = chart(analysis, fromSeq, toSeq, byState.values(), end, height);
        draw(chart, WIDTH, height, png);
        return new Drawn(drawn, dumps.size(), fromSeq, toSeq);
    }

    /** One state's bars: x and y with a NaN between bars. */
    private static final class Bars {
        final String label;
        final Color colour;
        final List<double[]> segments = new ArrayList<>();

        Bars(String label, Color colour) {
            this.label = label;
            this.colour = colour;
        }

        void add(double x0, double x1, int rank) {
            segments.add(new double[] {x0, x1, rank});
        }

        void widen(double least) {
            for (double[] s : segments) s[1] = Math.max(s[1], s[0] + least);
        }

        double[] xs() {
            double[] x = new double[segments.size() * 3];
            for (int i = 0; i < segments.size(); i++) {
                x[3 * i] = segments.get(i)[0];
                x[3 * i + 1] = segments.get(i)[1];
                x[3 * i + 2] = segments.get(i)[1];
            }
            return x;
        }

        double[] ys() {
            double[] y = new double[segments.size() * 3];
            for (int i = 0; i < segments.size(); i++) {
                y[3 * i] = segments.get(i)[2];
                y[3 * i + 1] = segments.get(i)[2];
                y[3 * i + 2] = Double.NaN;
            }
            return y;
        }
    }

    private static XYChart chart(
            TraceAnalysis a, long fromSeq, long toSeq, Iterable<Bars> bars, double end, int height) {
        String window = fromSeq == toSeq ? "#" + fromSeq : "#" + fromSeq + "–#" + toSeq;
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(height)
                .title("communicator " + a.commId() + ", collectives " + window)
                .xAxisTitle("time (ms) from the first start of #" + fromSeq)
                .yAxisTitle("rank")
                .build();
        XYStyler s = chart.getStyler();
        Charts.plainWhite(s);
        s.setLegendPosition(Styler.LegendPosition.OutsideS);
        s.setLegendLayout(Styler.LegendLayout.Horizontal);
        s.setXAxisMin(0.0);
        s.setXAxisMax(Math.max(end * 1.02, 1e-3));
        // Whole ranks, by the number format alone: a tick-label function (setyAxisTickLabelsFormattingFunction) over
        // data with NaN gaps sends XChart 3.8's tick calculator into an endless loop.
        s.setYAxisMin(-0.5);
        s.setYAxisMax(a.size() - 0.5);
        s.setYAxisDecimalPattern("0");
        float thickness = (float) Math.max(3, Math.min(24, (height - 140) / (double) a.size() * 0.5));
        for (Bars b : bars) {
            if (b.segments.isEmpty()) continue;
            XYSeries series = chart.addSeries(b.label, b.xs(), b.ys());
            series.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            series.setMarker(SeriesMarkers.NONE);
            series.setLineColor(b.colour);
            series.setLineStyle(new BasicStroke(thickness, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        }
        return chart;
    }

    private static void draw(XYChart chart, int width, int height, Path png) {
        Charts.checkWritable(png);
        // Before AWT's first use: there is no display to talk to, and none is needed for a PNG.
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            chart.paint(g, width, height);
        } catch (RuntimeException | LinkageError | InternalError e) {
            // Without fonts AWT fails in many ways (see BusbwPlot); every one of them is a set-up problem.
            String first = e.toString().lines().findFirst().orElse("");
            throw new IllegalStateException(
                    "cannot draw the timeline (" + first + "); if this JVM finds no fonts, install fontconfig and a"
                            + " font, e.g. apt-get install fontconfig fonts-dejavu-core",
                    e);
        } finally {
            g.dispose();
        }
        Charts.writePng(image, png);
    }
}
