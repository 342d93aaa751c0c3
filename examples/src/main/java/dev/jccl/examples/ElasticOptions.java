package dev.jccl.examples;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@link DataParallelTraining}'s elastic mode, taken out of the command line before
 * {@link TrainingOptions} parses the rest.
 *
 * @param elastic survive a lost rank: shrink, rescale and redo the step (without it, a lost rank ends the job)
 * @param killRank the rank that kills itself with SIGKILL (fault injection, to show the elastic mode); -1 for none
 * @param killAtStep the global step (0-based) at whose start {@code killRank} kills itself
 * @param saveState where the survivors' new rank 0 writes the state they go on from (weights, momentum, step), so that
 *     a reference run can {@code --resume-from} it; null for none
 * @param resumeFrom start from a state written by {@code --save-state} instead of from step 0; null for none
 * @param weightsOut where rank 0 writes the final weights (raw little-endian FLOAT32), to compare runs; null for none
 */
record ElasticOptions(boolean elastic, int killRank, int killAtStep, Path saveState, Path resumeFrom, Path weightsOut) {

    static final String USAGE = """
            Elastic training (survive a lost rank):
              --elastic           when a rank is lost, the survivors shrink the communicator, split each
                                  batch over the ranks left (--batch must divide by their number) and
                                  redo the step; they end with the weights of a run of that many ranks
              --kill-rank R       fault injection: rank R kills itself with SIGKILL ...
              --kill-at-step S    ... at the start of global step S (0-based)
              --save-state FILE   the survivors write the state they go on from (for --resume-from)
              --resume-from FILE  start from such a state instead of from step 0
              --weights-out FILE  rank 0 writes the final weights (raw FLOAT32, little-endian)
            """;

    /** The elastic options in {@code args}, and the rest for {@link TrainingOptions#parse}. */
    record Parsed(ElasticOptions options, String[] rest) {}

    static Parsed parse(String... args) {
        boolean elastic = false;
        int killRank = -1, killAtStep = -1;
        Path save = null, resume = null, weights = null;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--elastic" -> elastic = true;
                case "--kill-rank", "--kill-at-step", "--save-state", "--resume-from", "--weights-out" -> {
                    if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
                    String v = args[++i];
                    switch (a) {
                        case "--kill-rank" -> killRank = TrainingOptions.atLeast(a, v, 0);
                        case "--kill-at-step" -> killAtStep = TrainingOptions.atLeast(a, v, 0);
                        case "--save-state" -> save = Path.of(v);
                        case "--resume-from" -> resume = Path.of(v);
                        default -> weights = Path.of(v);
                    }
                }
                default -> rest.add(a);
            }
        }
        if ((killRank < 0) != (killAtStep < 0)) {
            throw new IllegalArgumentException("--kill-rank and --kill-at-step go together");
        }
        if (save != null && !elastic) throw new IllegalArgumentException("--save-state needs --elastic");
        return new Parsed(
                new ElasticOptions(elastic, killRank, killAtStep, save, resume, weights), rest.toArray(String[]::new));
    }

    /** Whether this run needs the step-by-step loop of {@link ElasticTraining} rather than the plain one. */
    boolean anySet() {
        return elastic || killRank >= 0 || resumeFrom != null || weightsOut != null;
    }
}
