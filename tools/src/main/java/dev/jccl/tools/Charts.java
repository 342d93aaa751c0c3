package dev.jccl.tools;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.knowm.xchart.style.XYStyler;

/** What Jccl's PNG charts ({@code perf plot}, {@code trace --plot}) share: their look, and how they are written. */
public final class Charts {
    private Charts() {}

    /** White chart, plot and legend; a grey frame, light grid lines and a light legend border. */
    public static void plainWhite(XYStyler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setPlotBorderColor(Color.GRAY);
        s.setPlotGridLinesColor(new Color(225, 225, 225));
        s.setLegendBackgroundColor(Color.WHITE);
        s.setLegendBorderColor(Color.LIGHT_GRAY);
    }

    /**
     * Refuses a {@code png} that cannot be written because its directory is missing or it is one: said before the data
     * are read and drawn, not after.
     *
     * @throws IllegalArgumentException naming the file and why
     */
    public static void checkWritable(Path png) {
        Path dir = png.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("cannot write " + png + ": directory " + dir + " does not exist");
        }
        if (Files.isDirectory(png)) throw new IllegalArgumentException("cannot write " + png + ": it is a directory");
    }

    /**
     * Writes a drawn chart as a PNG file.
     *
     * @throws IllegalArgumentException when {@code png} cannot be written (no such directory, permission denied, …), in
     *     words that name the file
     */
    public static void writePng(BufferedImage image, Path png) {
        try (OutputStream out = Files.newOutputStream(png)) {
            if (!ImageIO.write(image, "png", out)) {
                throw new IllegalStateException("this JVM has no PNG writer (ImageIO)");
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("cannot write " + png + ": no such directory", e);
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("cannot write " + png + ": permission denied", e);
        } catch (FileSystemException e) {
            throw new IllegalArgumentException("cannot write " + png + ": " + e.getReason(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png + ": " + e.getMessage(), e);
        }
    }
}
