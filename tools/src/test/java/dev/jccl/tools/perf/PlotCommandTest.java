package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jccl.tools.UnwritablePngs;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * Draws real PNGs from reports made in code and looks at their pixels: the lines' colours, text in the places where the
 * title, the axis titles and the legend go. A plot that drew nothing, or only a frame, fails these.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PlotCommandTest {
    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @Test
    void twoRunsMakeAPngWithTwoColouredLinesTextAndALegend() throws IOException {
        Path np2 = write("np2.json", PerfFixtures.exampleTwoRanks());
        Path np4 = write("np4.json", PerfFixtures.exampleFourRanks());
        Path png = dir.resolve("busbw.png");
        Result r = run(np2.toString(), np4.toString(), "-o", png.toString());
        assertEquals(0, r.code(), r::toString);
        assertEquals("wrote " + png + " (2 lines, 24 points)\n", r.out(), r::toString);
        assertEquals("", r.err());

        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(900, image.getWidth());
        assertEquals(560, image.getHeight());
        assertTrue(
                distinctColours(image) > 50,
                "anti-aliased lines and text make many colours: " + distinctColours(image));
        Color first = BusbwPlot.SERIES_COLORS[0];
        Color second = BusbwPlot.SERIES_COLORS[1];
        Color third = BusbwPlot.SERIES_COLORS[2];
        assertTrue(
                count(image, 0, 0, 900, 560, first) > 200, "pixels of line 1: " + count(image, 0, 0, 900, 560, first));
        assertTrue(
                count(image, 0, 0, 900, 560, second) > 200,
                "pixels of line 2: " + count(image, 0, 0, 900, 560, second));
        assertEquals(0, count(image, 0, 0, 900, 560, third), "two runs, two lines");

        // Title across the top, the x axis title along the bottom, the y axis title up the left side.
        assertTrue(dark(image, 300, 0, 300, 35) > 100, "title: " + dark(image, 300, 0, 300, 35));
        assertTrue(dark(image, 300, 530, 300, 30) > 100, "x axis title: " + dark(image, 300, 530, 300, 30));
        assertTrue(dark(image, 0, 150, 25, 250) > 100, "y axis title: " + dark(image, 0, 150, 25, 250));
        // The legend, top left inside the plot: both lines' samples and their labels' text.
        assertTrue(
                count(image, 60, 30, 250, 80, first) > 10 && count(image, 60, 30, 250, 80, second) > 10,
                "legend samples");
        assertTrue(dark(image, 60, 30, 250, 80) > 100, "legend text: " + dark(image, 60, 30, 250, 80));
    }

    @Test
    void oneRunIsOneLine() throws IOException {
        Path png = dir.resolve("one.png");
        Result r = run(write("np2.json", PerfFixtures.exampleTwoRanks()).toString(), "-o", png.toString());
        assertEquals("wrote " + png + " (1 line, 12 points)\n", r.out(), r::toString);
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(count(image, 0, 0, 900, 560, BusbwPlot.SERIES_COLORS[0]) > 200);
        assertEquals(0, count(image, 0, 0, 900, 560, BusbwPlot.SERIES_COLORS[1]));
    }

    @Test
    void widthAndHeightAreThePictures() throws IOException {
        Path png = dir.resolve("small.png");
        Result r = run(
                write("np2.json", PerfFixtures.exampleTwoRanks()).toString(),
                "-o",
                png.toString(),
                "--width",
                "640",
                "--height",
                "400",
                "--title",
                "loopback");
        assertEquals(0, r.code(), r::toString);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(640, image.getWidth());
        assertEquals(400, image.getHeight());
    }

    @Test
    void inPlaceDrawsTheInPlaceRows() throws IOException {
        List<PerfRow> rows = new ArrayList<>();
        for (long size = 8; size <= 8 << 10; size *= 2) {
            rows.add(PerfFixtures.row(size, "float", "sum", -1, false, 1, 0L));
        }
        rows.add(PerfFixtures.row(1024, "float", "sum", -1, true, 1, 0L));
        rows.add(PerfFixtures.row(4096, "float", "sum", -1, true, 1, 0L));
        Path file = write("ar.json", PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", rows));
        Path png = dir.resolve("p.png");
        assertEquals(
                "wrote " + png + " (1 line, 11 points)\n",
                run(file.toString(), "-o", png.toString()).out());
        assertEquals(
                "wrote " + png + " (1 line, 2 points)\n",
                run(file.toString(), "-o", png.toString(), "--in-place").out());
    }

    @Test
    void rowsOfSizeZeroAreLeftOutAndSaidSo() throws IOException {
        List<PerfRow> rows = List.of(
                PerfFixtures.row(0, "float", "sum", -1, false, 0, 0L),
                PerfFixtures.row(0, "float", "sum", -1, true, 0, 0L),
                PerfFixtures.row(8, "float", "sum", -1, false, 0.01, 0L),
                PerfFixtures.row(64, "float", "sum", -1, false, 0.1, 0L));
        Path png = dir.resolve("z.png");
        Result r = run(
                write("z.json", PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", rows))
                        .toString(),
                "-o",
                png.toString());
        assertEquals("wrote " + png + " (1 line, 2 points; left out 1 row of size 0)\n", r.out(), r::toString);
    }

    @Test
    void eachTypeOpAndRootOfOneRunIsItsOwnLine() throws IOException {
        List<PerfRow> rows = new ArrayList<>();
        for (long size = 8; size <= 1 << 20; size *= 8) {
            rows.add(PerfFixtures.row(size, "float", "sum", 0, false, size / 1e6, 0L));
            rows.add(PerfFixtures.row(size, "float", "sum", 1, false, size / 2e6, 0L));
            rows.add(PerfFixtures.row(size, "double", "max", 0, false, size / 3e6, null));
        }
        Path file = write("reduce.json", PerfFixtures.report("reduce", 2, "tcp chain 2 ranks", rows));
        BusbwPlot.Lines lines =
                BusbwPlot.lines(List.of(new BusbwPlot.Run("reduce.json", PerfReports.read(file))), false);
        assertEquals(
                List.of(
                        "tcp chain 2 ranks float sum root 0",
                        "tcp chain 2 ranks float sum root 1",
                        "tcp chain 2 ranks double max root 0"),
                lines.lines().stream().map(BusbwPlot.Line::label).toList());
        Path png = dir.resolve("r.png");
        Result r = run(file.toString(), "-o", png.toString());
        assertEquals("wrote " + png + " (3 lines, 18 points)\n", r.out(), r::toString);
        assertTrue(count(ImageIO.read(png.toFile()), 0, 0, 900, 560, BusbwPlot.SERIES_COLORS[2]) > 100);
    }

    @Test
    void equalLabelsAreToldApartByFileName() {
        PerfReport a = PerfFixtures.exampleTwoRanks();
        PerfReport b = PerfFixtures.exampleFourRanks();
        BusbwPlot.Lines lines = BusbwPlot.lines(
                List.of(
                        new BusbwPlot.Run("before.json", a),
                        new BusbwPlot.Run("after.json", a),
                        new BusbwPlot.Run("np4.json", b),
                        new BusbwPlot.Run("before.json", a)),
                false);
        assertEquals(
                List.of(
                        "tcp ring 2 ranks (before.json)",
                        "tcp ring 2 ranks (after.json)",
                        "tcp ring 4 ranks",
                        "tcp ring 2 ranks (before.json) #2"),
                lines.lines().stream().map(BusbwPlot.Line::label).toList());
    }

    @Test
    void theTitleNamesTheCollectiveWhenThereIsOne() {
        BusbwPlot.Run ar = new BusbwPlot.Run("a", PerfFixtures.exampleTwoRanks());
        BusbwPlot.Run bc = new BusbwPlot.Run("b", PerfFixtures.report("broadcast", 2, "tcp ring 2 ranks", List.of()));
        assertEquals("busbw vs size — all_reduce", BusbwPlot.defaultTitle(List.of(ar, ar), false));
        assertEquals("busbw vs size — all_reduce (in-place)", BusbwPlot.defaultTitle(List.of(ar), true));
        assertEquals("busbw vs size", BusbwPlot.defaultTitle(List.of(ar, bc), false));
    }

    @ParameterizedTest(name = "2^{0} is {1}")
    @CsvSource({"0, 1 B", "3, 8 B", "9, 512 B", "10, 1 KiB", "26, 64 MiB", "31.0000000001, 2 GiB"})
    void sizeTicksArePowersOfTwoInBinaryUnits(double log2, String label) {
        assertEquals(label, BusbwPlot.sizeTickLabel(log2));
    }

    @Test
    void noSizeTickBetweenPowersOfTwo() {
        assertEquals("", BusbwPlot.sizeTickLabel(3.5), "no label between powers of two");
        assertEquals(25.0, BusbwPlot.log2(32L << 20));
    }

    @Test
    void awtsWaysOfHavingNoFontsAreRecognised() {
        assertTrue(BusbwPlot.isFontTrouble(
                new RuntimeException("Fontconfig head is null, check your fonts or fonts configuration")));
        assertTrue(BusbwPlot.isFontTrouble(
                new UnsatisfiedLinkError("/opt/jdk/lib/libfontmanager.so: libfreetype.so.6: cannot open shared object "
                        + "file: No such file or directory")));
        assertTrue(
                BusbwPlot.isFontTrouble(new NoClassDefFoundError("Could not initialize class sun.awt.X11FontManager")));
        assertTrue(BusbwPlot.isFontTrouble(new InternalError(
                "java.lang.reflect.InvocationTargetException", new Error("Probable fatal error: No fonts found."))));
        NullPointerException npe = new NullPointerException("Cannot load from short array");
        npe.setStackTrace(
                new StackTraceElement[] {new StackTraceElement("sun.awt.FontConfiguration", "getVersion", null, 1)});
        assertTrue(BusbwPlot.isFontTrouble(npe));
        assertFalse(BusbwPlot.isFontTrouble(new IllegalArgumentException("Series name >x< has already been used")));
    }

    /**
     * The real thing, where the machine allows it: a JVM that finds no fonts (their directories hidden in a private
     * mount namespace, which needs root) fails with the fix in one line.
     */
    @Test
    void withoutFontsTheErrorNamesThePackagesToInstall() throws Exception {
        String hide = Stream.of("/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts")
                .filter(d -> Files.isDirectory(Path.of(d)))
                .map(d -> "mount -t tmpfs none " + d)
                .collect(Collectors.joining(" && ", "", " && "));
        assumeTrue(
                succeeds("unshare", "-m", "sh", "-c", hide + "! fc-list 2>/dev/null | grep -q ."),
                "needs unshare -m and mount (root) to hide the fonts");
        Path np2 = write("np2.json", PerfFixtures.exampleTwoRanks());
        Path png = dir.resolve("nofonts.png");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(
                        "unshare",
                        "-m",
                        "sh",
                        "-c",
                        hide + "exec \"$0\" \"$@\"",
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        np2.toString(),
                        "-o",
                        png.toString())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
        String err = readAll(p.getErrorStream());
        assertTrue(p.waitFor(50, TimeUnit.SECONDS), "the plot without fonts did not end");
        assumeFalse(p.exitValue() == 0, "this JVM draws text without the fonts fontconfig knows");
        assertEquals(1, p.exitValue(), err);
        assertEquals("", out.get());
        String ours =
                err.lines().filter(l -> l.startsWith("plot: ")).findFirst().orElse("");
        assertTrue(
                ours.startsWith("plot: cannot draw text, this JVM finds no usable fonts (")
                        && ours.endsWith(
                                "); install fontconfig and a font, e.g. apt-get install fontconfig fonts-dejavu-core"),
                err);
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
        assertFalse(Files.exists(png));
    }

    /** {@code plot} as {@link #run} runs it, in a JVM of its own. */
    static final class Main {
        public static void main(String[] args) {
            Result r = run(args);
            System.out.print(r.out());
            System.err.print(r.err());
            System.exit(r.code());
        }
    }

    // Bad input: one line on stderr naming what is wrong, nothing on stdout, exit 1.

    @Test
    void aMissingFileIsNamed() {
        Path missing = dir.resolve("nosuch.json");
        assertFails(
                "cannot read " + missing + ": no such file or directory",
                missing.toString(),
                "-o",
                dir.resolve("x.png").toString());
        assertFalse(Files.exists(dir.resolve("x.png")));
    }

    @Test
    void aFileThatIsNotAReportIsNamed() throws IOException {
        Path info = Files.writeString(dir.resolve("info.json"), "{\"version\": \"0.1.0\"}");
        assertFails(
                info + " is not a jccl perf --json report: no \"tool\": \"jccl perf\" field",
                info.toString(),
                "-o",
                dir.resolve("x.png").toString());
    }

    @Test
    void nothingToPlotIsAnError() throws IOException {
        Path empty = write("empty.json", PerfFixtures.report("sendrecv", 2, "tcp p2p 2 ranks", List.of()));
        assertFails(
                "nothing to plot: no out-of-place rows in " + empty + " (try --in-place)",
                empty.toString(),
                "-o",
                dir.resolve("x.png").toString());
        Path zeros = write(
                "zeros.json",
                PerfFixtures.report(
                        "all_reduce",
                        2,
                        "tcp ring 2 ranks",
                        List.of(PerfFixtures.row(0, "float", "sum", -1, true, 0, 0L))));
        assertFails(
                "nothing to plot: every in-place row in " + zeros + " has size 0 or no finite busbw",
                zeros.toString(),
                "--in-place",
                "-o",
                dir.resolve("x.png").toString());
        assertFalse(Files.exists(dir.resolve("x.png")));
    }

    @Test
    void anOutputDirectoryThatIsNotThereIsNamed() throws IOException {
        Path np2 = write("np2.json", PerfFixtures.exampleTwoRanks());
        UnwritablePngs.assertRefused(PlotCommandTest::assertFails, dir, np2.toString(), "-o");
    }

    @Test
    void absurdSizesAreRefused() throws IOException {
        Path np2 = write("np2.json", PerfFixtures.exampleTwoRanks());
        assertFails("--width 10 is not between 320 and 10000", np2.toString(), "--width", "10");
        assertFails("--height 100000 is not between 240 and 10000", np2.toString(), "--height", "100000");
    }

    @Test
    void withoutAFileItIsAUsageError() {
        Result r = run();
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().contains("Missing required parameter: 'FILE'"), r::toString);
    }

    @Test
    void helpShowsTheExample() {
        Result r = run("--help");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("Usage: plot [-hV] [--in-place]"), r::toString);
        assertTrue(r.out().contains("-o, --output=PNG"), r::toString);
        assertTrue(r.out().contains("jccl perf plot np2.json np4.json -o busbw.png"), r::toString);
    }

    /** Runs the command as {@code jccl} does: its IllegalArgument/IllegalState messages printed as one line, exit 1. */
    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new PlotCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, failed, parseResult) -> {
            if (!(e instanceof IllegalArgumentException || e instanceof IllegalStateException)) throw e;
            failed.getErr().println(failed.getCommandSpec().qualifiedName() + ": " + e.getMessage());
            return 1;
        });
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static boolean succeeds(String... command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String readAll(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertFails(String message, String... args) {
        Result r = run(args);
        assertEquals(1, r.code(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertEquals("plot: " + message + "\n", r.err().replace(System.lineSeparator(), "\n"));
    }

    private Path write(String name, PerfReport report) {
        Path file = dir.resolve(name);
        PerfReports.write(report, file);
        return file;
    }

    private static int distinctColours(BufferedImage image) {
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) colours.add(image.getRGB(x, y) & 0xFFFFFF);
        }
        return colours.size();
    }

    private static int count(BufferedImage image, int x0, int y0, int w, int h, Color colour) {
        int n = 0;
        for (int y = y0; y < Math.min(y0 + h, image.getHeight()); y++) {
            for (int x = x0; x < Math.min(x0 + w, image.getWidth()); x++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == (colour.getRGB() & 0xFFFFFF)) n++;
            }
        }
        return n;
    }

    /** Pixels dark enough to be text (black on white, anti-aliased). */
    private static int dark(BufferedImage image, int x0, int y0, int w, int h) {
        int n = 0;
        for (int y = y0; y < Math.min(y0 + h, image.getHeight()); y++) {
            for (int x = x0; x < Math.min(x0 + w, image.getWidth()); x++) {
                int rgb = image.getRGB(x, y);
                if (((rgb >> 16) & 0xFF) < 90 && ((rgb >> 8) & 0xFF) < 90 && (rgb & 0xFF) < 90) n++;
            }
        }
        return n;
    }
}
