package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Jccl;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The {@code ./jccl} script, run for real. It runs in a copy of the repository layout where a stand-in {@code mvnw}
 * records how it was asked to build and "builds" a jar whose class path points at this build's classes, so the script's
 * choices are visible without a nested Maven. Everything else (finding the JDK, symlinks, staleness, exec) is the
 * repository's script as is.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LauncherScriptTest {
    private static final Path SCRIPT = Path.of("").toAbsolutePath().getParent().resolve("jccl");
    private static final Path JDK17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
    /** The format checks are skipped: an unformatted experiment must not stop `jccl perf`; `jccl test` checks. */
    private static final String BUILD_ARGS =
            "-q -DskipTests -Dspotless.check.skip=true -Dcheckstyle.skip=true package -pl tools -am";

    @TempDir
    Path tmp;

    private Path repo;
    private Path link;
    private Path elsewhere;
    private Path oldJavaBin;
    private Path oldJavaHome;

    @BeforeEach
    void layOut() throws Exception {
        repo = Files.createDirectories(tmp.resolve("repo"));
        Files.copy(SCRIPT, repo.resolve("jccl"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(repo.resolve("tools/src/main/java"));
        Files.writeString(repo.resolve("pom.xml"), "<project/>\n");
        writeRunnableJar(repo.resolve("prepared.jar"), repo.resolve("tools/target"));
        executable(repo.resolve("mvnw"), """
                #!/bin/sh
                # Stands in for Maven: records how ./jccl asked for the build, then "builds" the jar.
                printf '%s\\n' "$JAVA_HOME" > build-java-home
                printf '%s\\n' "$*" > build-args
                echo "maven chatter"
                mkdir -p tools/target && cp prepared.jar tools/target/jccl.jar
                """);
        // Through a relative symlink in another directory, and from a third one.
        Files.createDirectories(tmp.resolve("bin"));
        link = Files.createSymbolicLink(tmp.resolve("bin/jccl"), Path.of("../repo/jccl"));
        elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        // A java 17 that shadows whatever java the machine has on PATH.
        oldJavaBin = Files.createDirectories(tmp.resolve("oldbin"));
        executable(oldJavaBin.resolve("java"), """
                #!/bin/sh
                echo 'openjdk version "17.0.9" 2023-10-17' >&2
                echo 'OpenJDK Runtime Environment (build 17.0.9+9)' >&2
                """);
        // JAVA_HOME at a JDK 17: the real one where the machine has it, else a stand-in.
        if (Files.isExecutable(JDK17.resolve("bin/java"))) {
            oldJavaHome = JDK17;
        } else {
            oldJavaHome = Files.createDirectories(tmp.resolve("jdk-17"));
            Files.createSymbolicLink(oldJavaHome.resolve("bin"), oldJavaBin);
        }
    }

    @Test
    void findsAJdk25UnderTheJvmRootWhenJavaHomeAndPathHaveOlderOnes() throws Exception {
        Path jvms = Files.createDirectories(tmp.resolve("jvms"));
        Files.createSymbolicLink(jvms.resolve("jdk-17"), oldJavaHome);
        Files.createSymbolicLink(jvms.resolve("temurin-25-jdk-amd64"), Path.of(System.getProperty("java.home")));

        Cli.Result first = jccl(env(oldJavaHome, jvms), "--version");
        assertEquals(0, first.code(), first::toString);
        assertEquals(
                "jccl " + Jccl.version() + " (Java " + Runtime.version() + ", " + System.getProperty("java.vendor")
                        + ")\n",
                first.out(),
                "Maven's output must stay off stdout (JCCL_ID=$(./jccl id))");
        assertTrue(first.err().startsWith("building jccl (first run)…\n"), first::toString);
        assertTrue(first.err().contains("maven chatter"), first::toString);
        assertEquals(BUILD_ARGS, Files.readString(repo.resolve("build-args")).strip());
        assertTrue(
                Files.isSameFile(
                        Path.of(System.getProperty("java.home")),
                        Path.of(Files.readString(repo.resolve("build-java-home"))
                                .strip())),
                "Maven must run on the JDK 25");

        Cli.Result second = jccl(env(oldJavaHome, jvms), "--version");
        assertEquals(0, second.code(), second::toString);
        assertEquals("", second.err(), "an up-to-date jar is not rebuilt");
        assertEquals(first.out(), second.out());
    }

    @Test
    void rebuildsWhenASourceOrPomIsNewerThanTheJar() throws Exception {
        Map<String, String> env = env(Path.of(System.getProperty("java.home")), tmp.resolve("nojvms"));
        assertEquals(0, jccl(env, "--version").code());
        Path jar = repo.resolve("tools/target/jccl.jar");
        Path source = Files.writeString(repo.resolve("tools/src/main/java/Changed.java"), "class Changed {}\n");
        Instant now = Instant.now();
        Files.setLastModifiedTime(jar, FileTime.from(now.minus(Duration.ofHours(2))));
        Files.setLastModifiedTime(source, FileTime.from(now.minus(Duration.ofHours(1))));
        Files.setLastModifiedTime(repo.resolve("pom.xml"), FileTime.from(now.minus(Duration.ofHours(3))));

        Cli.Result changed = jccl(env, "--version");
        assertEquals(0, changed.code(), changed::toString);
        assertTrue(changed.err().startsWith("rebuilding jccl (sources changed)…\n"), changed::toString);
        assertEquals("", jccl(env, "--version").err(), "after the rebuild the jar is current");

        Files.setLastModifiedTime(
                repo.resolve("pom.xml"), FileTime.from(Instant.now().plus(Duration.ofHours(1))));
        assertTrue(jccl(env, "--version").err().startsWith("rebuilding jccl"), "a newer pom.xml also rebuilds");
    }

    @Test
    void takesJavaHomeFirstAndThenJavaOnPath() throws Exception {
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path emptyRoot = Files.createDirectories(tmp.resolve("nojvms"));
        Cli.Result viaJavaHome = jccl(env(javaHome, emptyRoot), "--version");
        assertEquals(0, viaJavaHome.code(), viaJavaHome::toString);
        assertTrue(viaJavaHome.out().startsWith("jccl " + Jccl.version()), viaJavaHome::toString);

        Path newBin = Files.createDirectories(tmp.resolve("newbin"));
        Files.createSymbolicLink(newBin.resolve("java"), javaHome.resolve("bin/java"));
        Map<String, String> env = env(null, emptyRoot);
        env.put("PATH", newBin + ":/usr/bin:/bin");
        Cli.Result viaPath = jccl(env, "--version");
        assertEquals(0, viaPath.code(), viaPath::toString);
        assertTrue(viaPath.out().startsWith("jccl " + Jccl.version()), viaPath::toString);
    }

    @Test
    void withoutAJdk25ItSaysWhereItLookedAndHowToGetOne() throws Exception {
        Path jvms = Files.createDirectories(tmp.resolve("jvms"));
        Files.createSymbolicLink(jvms.resolve("jdk-17"), oldJavaHome);
        Files.createDirectories(jvms.resolve("jdk-25-unpacked-badly")); // named 25, holds no java

        Cli.Result r = jccl(env(oldJavaHome, jvms), "--version");

        assertEquals(1, r.code(), r::toString);
        assertEquals("", r.out());
        String err = r.err();
        assertTrue(err.startsWith("jccl: needs a JDK 25 or newer, and found none. Looked at:\n"), err);
        assertTrue(err.contains("  - JAVA_HOME=" + oldJavaHome + ": version 17\n"), err);
        assertTrue(err.contains("  - java on PATH: " + oldJavaBin.resolve("java") + ": version 17\n"), err);
        assertTrue(err.contains("  - JDKs under " + jvms + "\n"), err);
        assertTrue(err.contains("apt-get install temurin-25-jdk"), err);
        assertTrue(err.contains("https://adoptium.net/"), err);
        assertTrue(err.contains("export JAVA_HOME="), err);
        assertFalse(Files.exists(repo.resolve("build-args")), "nothing is built without a JDK 25");
    }

    @Test
    void unsetJavaHomeIsReportedAsSuch() throws Exception {
        Cli.Result r = jccl(env(null, Files.createDirectories(tmp.resolve("nojvms"))), "--version");
        assertEquals(1, r.code(), r::toString);
        assertTrue(r.err().contains("  - JAVA_HOME (not set)\n"), r::toString);
    }

    /** An environment with JAVA_HOME (or none), PATH led by the java 17 stand-in, and the JVM root. */
    private Map<String, String> env(Path javaHome, Path jvmRoot) {
        Map<String, String> env = Cli.cleanEnvironment();
        env.remove("JAVA_HOME");
        if (javaHome != null) env.put("JAVA_HOME", javaHome.toString());
        env.put("PATH", oldJavaBin + ":/usr/bin:/bin");
        env.put("JCCL_JVM_ROOT", jvmRoot.toString());
        return env;
    }

    private Cli.Result jccl(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(link.toString()));
        command.addAll(List.of(args));
        return Cli.exec(command, env, elsewhere, Duration.ofSeconds(30));
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * {@code ./jccl demo}: one build of the tools and the examples, then {@code jccl run -np N} of the examples' jar
     * with two epochs and the caller's options after them. The stand-in examples jar prints what each rank was given.
     */
    @Test
    void demoBuildsTheExamplesAndRunsTheirJarOnLocalRanks() throws Exception {
        Map<String, String> env = env(Path.of(System.getProperty("java.home")), tmp.resolve("nojvms"));
        writeRunnableJar(repo.resolve("examples.jar"), repo.resolve("examples/target"), PrintsItsRank.class);
        executable(repo.resolve("mvnw"), """
                #!/bin/sh
                printf '%s\\n' "$*" > build-args
                mkdir -p tools/target examples/target
                cp prepared.jar tools/target/jccl.jar
                cp examples.jar examples/target/jccl-examples.jar
                """);
        Files.createDirectories(repo.resolve("examples/src/main/java"));

        Cli.Result r = jccl(env, "demo", "-np", "2", "--batch", "8");
        assertEquals(0, r.code(), r::toString);
        assertEquals(
                "-q -DskipTests -Dspotless.check.skip=true -Dcheckstyle.skip=true package -pl tools,examples -am",
                Files.readString(repo.resolve("build-args")).strip());
        assertTrue(r.out().contains("[0] rank 0 of 2: --epochs 2 --batch 8"), r::toString);
        assertTrue(r.out().contains("[1] rank 1 of 2: --epochs 2 --batch 8"), r::toString);
    }

    /** The stand-in examples' main: prints its rank (from {@code jccl run}'s variables) and arguments. */
    public static final class PrintsItsRank {
        public static void main(String[] args) {
            System.out.println("rank " + System.getenv("JCCL_RANK") + " of " + System.getenv("JCCL_WORLD_SIZE") + ": "
                    + String.join(" ", args));
        }
    }

    /** A jar that runs JcclCommand from this build's classes; class path entries relative to {@code jarDir}. */
    private static void writeRunnableJar(Path jar, Path jarDir) throws IOException, URISyntaxException {
        writeRunnableJar(jar, jarDir, JcclCommand.class);
    }

    /** A jar whose main is {@code main}, from this build's classes. */
    private static void writeRunnableJar(Path jar, Path jarDir, Class<?> main) throws IOException, URISyntaxException {
        StringBuilder classPath = new StringBuilder();
        for (Class<?> c : List.of(main, JcclCommand.class, Jccl.class, CommandLine.class)) {
            Path entry = Path.of(
                    c.getProtectionDomain().getCodeSource().getLocation().toURI());
            String relative = jarDir.relativize(entry).toString();
            classPath.append(relative).append(Files.isDirectory(entry) ? "/ " : " ");
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, main.getName());
        manifest.getMainAttributes()
                .put(Attributes.Name.CLASS_PATH, classPath.toString().strip());
        try (OutputStream out = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(out, manifest)) {
            j.flush();
        }
    }
}
