package dev.jccl.spark;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A SPARK_HOME made of this test JVM's class path, so that {@code local-cluster} mode can start executor JVMs without a
 * Spark download: Spark's launcher builds an executor's class path from {@code $SPARK_HOME/jars} when a {@code RELEASE}
 * file marks the directory as a distribution. Directories on the class path (this build's classes) cannot go into
 * {@code jars/}; {@link #classDirectories} lists them for {@code spark.executor.extraClassPath}.
 */
final class SparkHomeForTests {
    private SparkHomeForTests() {}

    /** Lays out {@code $SPARK_HOME} (surefire sets it to target/spark-home) and returns it. */
    static Path create() {
        String home = System.getenv("SPARK_HOME");
        if (home == null) throw new IllegalStateException("SPARK_HOME is not set; the spark module's pom sets it");
        Path dir = Path.of(home);
        try {
            Path jars = dir.resolve("jars");
            Files.createDirectories(jars);
            Files.writeString(
                    dir.resolve("RELEASE"), "Spark for Jccl's tests: the test class path as a distribution\n");
            for (Path jar : classPath()) {
                if (!Files.isRegularFile(jar) || !jar.toString().endsWith(".jar")) continue;
                Path link = jars.resolve(jar.getFileName());
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, jar.toAbsolutePath());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lay out " + dir, e);
        }
        return dir;
    }

    /** The class directories of the test class path, joined for {@code spark.executor.extraClassPath}. */
    static String classDirectories() {
        List<String> dirs = new ArrayList<>();
        for (Path p : classPath()) {
            if (Files.isDirectory(p)) dirs.add(p.toAbsolutePath().toString());
        }
        return String.join(File.pathSeparator, dirs);
    }

    /** Surefire starts tests through a manifest-only jar and puts the real class path in this property. */
    private static List<Path> classPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> out = new ArrayList<>();
        for (String entry : cp.split(File.pathSeparator)) {
            if (!entry.isBlank()) out.add(Path.of(entry));
        }
        return out;
    }
}
