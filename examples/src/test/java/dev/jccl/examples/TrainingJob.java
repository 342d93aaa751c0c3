package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.File;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@link DataParallelTraining} as a job of JVMs of their own, set up through JCCL_* variables as jccl run does. */
final class TrainingJob {
    private TrainingJob() {}

    /**
     * Runs {@code exitCodes.size()} ranks with {@code args}, waits at most {@code waitSeconds} for each, checks each
     * rank's exit code, and returns each rank's output (stdout and stderr).
     *
     * @param timeoutSeconds the ranks' JCCL_TIMEOUT
     */
    static List<String> run(List<String> args, List<Integer> exitCodes, int timeoutSeconds, int waitSeconds)
            throws Exception {
        int ranks = exitCodes.size();
        UniqueId id = UniqueId.create(Config.builder().socketIfname("lo").build());
        // create() holds the root port for an in-process rank 0; rank 0 is another JVM here.
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int r = 0; r < ranks; r++) {
                Path log = Files.createTempFile("training-" + r + "-", ".log");
                logs.add(log);
                List<String> command = new ArrayList<>(List.of(
                        java,
                        "-Xmx256m",
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        DataParallelTraining.class.getName()));
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
                processes.add(pb.start());
            }
            List<String> outputs = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                boolean done = processes.get(r).waitFor(waitSeconds, TimeUnit.SECONDS);
                String output = Files.readString(logs.get(r), StandardCharsets.UTF_8);
                assertTrue(done, () -> "rank " + rank + " did not finish in " + waitSeconds + " s:\n" + output);
                assertEquals(
                        exitCodes.get(r).intValue(),
                        processes.get(r).exitValue(),
                        () -> "rank " + rank + " exited with another code:\n" + output);
                outputs.add(output);
            }
            return outputs;
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            for (Path l : logs) Files.deleteIfExists(l);
        }
    }
}
