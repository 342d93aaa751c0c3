package dev.jccl.reduce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a main class of the test classpath in a fresh JVM with extra flags, for tests that need JIT settings. */
final class ChildJvm {

    /** Exit value ({@code -1} if it had to be killed at the deadline) and everything it printed. */
    record Result(int exitValue, String output) {}

    private ChildJvm() {}

    /** {@link #run} on a thread of its own, so that two children (each mostly one busy thread) overlap. */
    static CompletableFuture<Result> start(
            List<String> jvmFlags, Class<?> mainClass, long timeoutSeconds, String... args) {
        CompletableFuture<Result> result = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        result.complete(run(jvmFlags, mainClass, timeoutSeconds, args));
                    } catch (IOException | InterruptedException | RuntimeException e) {
                        result.completeExceptionally(e);
                    }
                },
                "child JVM " + mainClass.getSimpleName());
        thread.setDaemon(true);
        thread.start();
        return result;
    }

    static Result run(List<String> jvmFlags, Class<?> mainClass, long timeoutSeconds, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        Path log = Files.createTempFile("jccl-child-", ".log");
        try {
            // Output to a file, not a pipe: a child that prints a lot never blocks on a full pipe.
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(-1, Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
