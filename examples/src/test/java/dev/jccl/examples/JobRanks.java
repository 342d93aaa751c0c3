package dev.jccl.examples;

import dev.jccl.ChildProcesses;
import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The ranks of a job, each a JVM of its own on this test's classpath, set up only through JCCL_* variables as a
 * launcher (jccl run) would; each writes to a log file. Closing kills what is left and deletes the logs.
 */
final class JobRanks implements AutoCloseable {
    final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    private JobRanks() {}

    /** Starts {@code ranks} JVMs running {@code main} with {@code args}, their JCCL_TIMEOUT {@code timeoutSeconds}. */
    static JobRanks start(int ranks, String logPrefix, Class<?> main, List<String> args, int timeoutSeconds)
            throws IOException {
        UniqueId id = UniqueId.createForAnotherProcess(
                Config.builder().socketIfname("lo").build());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        JobRanks job = new JobRanks();
        try {
            for (int r = 0; r < ranks; r++) {
                Path log = Files.createTempFile(logPrefix + r + "-", ".log");
                job.logs.add(log);
                List<String> command = new ArrayList<>(List.of(
                        java,
                        "-Xmx256m",
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        main.getName()));
                command.addAll(args);
                ProcessBuilder pb = new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                pb.environment().put("JCCL_RANK", Integer.toString(r));
                pb.environment().put("JCCL_WORLD_SIZE", Integer.toString(ranks));
                pb.environment().put("JCCL_ID", id.toString());
                pb.environment().put("JCCL_SOCKET_IFNAME", "lo");
                pb.environment().put("JCCL_TIMEOUT", Integer.toString(timeoutSeconds));
                job.processes.add(pb.start());
            }
            return job;
        } catch (IOException | RuntimeException e) {
            job.close();
            throw e;
        }
    }

    /** What rank {@code r} has printed so far (stdout and stderr). */
    String output(int r) throws IOException {
        return Files.readString(logs.get(r), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        for (Process p : processes) ChildProcesses.kill(p);
        for (Path l : logs) Files.deleteIfExists(l);
    }
}
