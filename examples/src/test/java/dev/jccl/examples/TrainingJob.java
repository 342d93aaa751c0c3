package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@link DataParallelTraining} as a job of JVMs of their own, set up through JCCL_* variables as jccl run does. */
final class TrainingJob {
    private TrainingJob() {}

    /** The small model the training tests use: 32 inputs, hidden layers of 64 and 48, 5 classes. */
    static final String SMALL_MODEL = "--inputs 32 --hidden 64,48 --classes 5";

    /** {@code commandLine}'s arguments, as a shell would split it at its spaces. */
    static String[] args(String commandLine) {
        return commandLine.split(" ");
    }

    /**
     * Runs {@code exitCodes.size()} ranks with {@code args}, waits at most {@code waitSeconds} for each, checks each
     * rank's exit code, and returns each rank's output (stdout and stderr).
     *
     * @param timeoutSeconds the ranks' JCCL_TIMEOUT
     */
    static List<String> run(List<String> args, List<Integer> exitCodes, int timeoutSeconds, int waitSeconds)
            throws Exception {
        int ranks = exitCodes.size();
        try (JobRanks job = JobRanks.start(ranks, "training-", DataParallelTraining.class, args, timeoutSeconds)) {
            List<String> outputs = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                boolean done = job.processes.get(r).waitFor(waitSeconds, TimeUnit.SECONDS);
                String output = job.output(r);
                assertTrue(done, () -> "rank " + rank + " did not finish in " + waitSeconds + " s:\n" + output);
                assertEquals(
                        exitCodes.get(r).intValue(),
                        job.processes.get(r).exitValue(),
                        () -> "rank " + rank + " exited with another code:\n" + output);
                outputs.add(output);
            }
            return outputs;
        }
    }
}
