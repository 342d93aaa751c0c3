package dev.jccl.modules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Core is the named module {@code dev.jccl.core}: it exports its API package and nothing else to everyone, needs
 * nothing outside the JDK, and works from the module path, with and without the Vector API module. The descriptor is
 * compiled into target/classes before the tests run (see the build's module-descriptor compilation).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ModulePathTest {
    private static final Path CLASSES = Path.of("target/classes");

    @Test
    void theDescriptorExportsOnlyTheApiAndNeedsOnlyTheJdk() {
        ModuleDescriptor core = ModuleFinder.of(CLASSES)
                .find("dev.jccl.core")
                .orElseThrow(() -> new AssertionError("no module dev.jccl.core in " + CLASSES.toAbsolutePath()))
                .descriptor();
        Set<String> everyone = new TreeSet<>();
        for (ModuleDescriptor.Exports e : core.exports()) {
            if (!e.isQualified()) everyone.add(e.source());
            else {
                assertTrue(
                        e.targets().stream().allMatch(t -> t.startsWith("dev.jccl.")),
                        e.source() + " is exported outside Jccl: " + e.targets());
            }
        }
        assertEquals(Set.of("dev.jccl"), everyone, "packages exported to every module");
        for (ModuleDescriptor.Requires r : core.requires()) {
            assertTrue(
                    r.name().startsWith("java.") || r.name().startsWith("jdk."),
                    "core requires " + r.name() + ": core's dependencies must stay at zero");
        }
        assertTrue(core.uses().contains("dev.jccl.transport.NetPlugin"), "network plugins are found as services");
    }

    /**
     * A runtime trimmed with jlink to java.base alone, the program and Jccl on the class path: collectives still run,
     * without flight-recorder events (jdk.jfr) and signal dumps (jdk.unsupported). A GPU machine's bundle without
     * jdk.jfr once failed every collective with NoClassDefFoundError.
     */
    @Test
    void aClassPathProgramRunsCollectivesOnARuntimeWithJavaBaseAlone() throws Exception {
        String out = runProbe(List.of(
                "--limit-modules",
                "java.base",
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                CLASSES + java.io.File.pathSeparator + "target/test-classes",
                "modulepath.ModulePathProbe"));
        assertTrue(out.contains("module null\n"), "Jccl was not on the class path:\n" + out);
        assertTrue(out.contains("allReduce 3.0,30.0 3.0,30.0\n"), out);
        assertTrue(!out.contains("Exception") && !out.contains("Error"), out);
    }

    private static String runProbe(List<String> arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(arguments);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the probe did not finish in 90 s: " + command);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), command + ":\n" + out);
        return out;
    }

    @Test
    void aProgramOnTheModulePathRunsCollectivesWithAndWithoutTheVectorModule() throws Exception {
        for (List<String> extra : List.<List<String>>of(List.of(), List.of("--add-modules", "jdk.incubator.vector"))) {
            List<String> command = new java.util.ArrayList<>(List.of(
                    "--module-path",
                    CLASSES.toString(),
                    "--add-modules",
                    "dev.jccl.core",
                    "--enable-native-access=dev.jccl.core"));
            command.addAll(extra);
            command.addAll(List.of("-cp", "target/test-classes", "modulepath.ModulePathProbe"));
            String out = runProbe(command);
            assertTrue(out.contains("module dev.jccl.core\n"), out);
            assertTrue(out.contains("exported dev.jccl true\n"), out);
            assertTrue(out.contains("exported dev.jccl.runtime false\n"), out);
            assertTrue(out.contains("allReduce 3.0,30.0 3.0,30.0\n"), out);
            // Native access is granted to the module, so the JVM has nothing to warn about but the incubator.
            List<String> warnings = out.lines()
                    .filter(l -> l.startsWith("WARNING") && !l.contains("Using incubator modules"))
                    .toList();
            assertEquals(List.of(), warnings, out);
        }
    }
}
