package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.TestRanks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The elastic run: four ranks in their own JVMs train with {@code --elastic}; rank 2 kills itself with SIGKILL
 * at step 13; the three survivors shrink, split each batch three ways, redo the step and finish. Their weights must be
 * those of a three-rank run that starts from the state they went on from.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ElasticTrainingTest {
    private static final int KILLED = 2;
    private static final int KILL_AT = 13;

    /** 48 divides by 4 and by 3; 480 samples make 10 steps an epoch, 30 in all. */
    private static final String[] OPTIONS = TrainingJob.args(TrainingJob.SMALL_MODEL
            + " --train-samples 480 --test-samples 0 --batch 48 --epochs 3 --lr 0.05 --bucket-kb 4");

    @Test
    void survivorsOfAKilledRankFinishWithTheWeightsOfAThreeRankRunFromThatStep(@TempDir Path dir) throws Exception {
        Path state = dir.resolve("state.bin");
        Path elasticWeights = dir.resolve("elastic.f32");
        List<String> outputs = runFourRanksKillingOne(state, elasticWeights, dir);

        String rank0 = outputs.get(0);
        assertTrue(outputs.get(KILLED).contains("step " + KILL_AT + ": killing this rank with SIGKILL"), rank0);
        assertTrue(rank0.contains("step " + KILL_AT + ": lost rank(s) [" + KILLED + "]"), rank0);
        assertTrue(rank0.contains("the 3 survivors shrank the communicator and go on from step " + KILL_AT), rank0);
        assertTrue(rank0.contains("finished on 3 ranks (1 lost)"), rank0);
        assertTrue(rank0.contains("epoch 3/3: train loss"), rank0);

        // The reference: three ranks (threads of this JVM) from the state the survivors went on from.
        Path referenceWeights = dir.resolve("reference.f32");
        ElasticOptions resume = new ElasticOptions(false, -1, -1, null, state, referenceWeights);
        List<Object> results = TestRanks.run(
                3,
                TestRanks.loopback(Duration.ofSeconds(60)),
                (rank, c) -> ElasticTraining.train(c, TrainingOptions.parse(OPTIONS), resume));
        for (Object r : results) {
            if (r instanceof Throwable t) throw new AssertionError("reference run failed", t);
        }
        float[] elastic = TrainingState.readWeights(elasticWeights);
        float[] reference = TrainingState.readWeights(referenceWeights);
        assertEquals(5_477, elastic.length);
        // The same ranks, shards, algorithm and order of sums: the same bits, not merely close.
        assertArrayEquals(
                reference, elastic, "the survivors' weights differ from a three-rank run from step " + KILL_AT);
        float[] fromStart = TrainingState.readWeights(dir.resolve("weights-from-start.f32"));
        assertTrue(
                !java.util.Arrays.equals(fromStart, elastic),
                "a run that lost no rank ends elsewhere; otherwise the comparison shows nothing");
        System.out.println("elastic run (rank 0):\n" + rank0);
        System.out.println("survivors' weights equal a 3-rank run resumed at step " + KILL_AT + ": "
                + DataParallelTraining.fingerprint(elastic));
    }

    @Test
    void theElasticOptionsAreCheckedBeforeAnythingRuns() {
        assertThrows(IllegalArgumentException.class, () -> ElasticOptions.parse("--kill-rank", "1"));
        assertThrows(IllegalArgumentException.class, () -> ElasticOptions.parse("--save-state", "x"));
        IllegalArgumentException e = assertInstanceOf(
                IllegalArgumentException.class,
                assertThrows(IllegalArgumentException.class, () -> ElasticOptions.parse("--kill-at-step", "x")));
        assertTrue(e.getMessage().contains("--kill-at-step needs a whole number"), e.getMessage());
        ElasticOptions.Parsed p = ElasticOptions.parse("--elastic", "--epochs", "2", "--weights-out", "w");
        assertTrue(p.options().elastic());
        assertArrayEquals(new String[] {"--epochs", "2"}, p.rest());
    }

    /**
     * Four ranks of {@link DataParallelTraining} in their own JVMs, set up as {@code jccl run} does; returns each
     * rank's output. Also runs, first, the same job with no rank lost (its weights, for the check that the comparison
     * can fail).
     */
    private static List<String> runFourRanksKillingOne(Path state, Path weights, Path dir) throws Exception {
        List<String> plain = new ArrayList<>(List.of(OPTIONS));
        plain.addAll(
                List.of("--weights-out", dir.resolve("weights-from-start.f32").toString()));
        TrainingJob.run(plain, List.of(0, 0, 0, 0), 30, 120);
        List<String> elastic = new ArrayList<>(List.of(OPTIONS));
        elastic.addAll(List.of(
                "--elastic",
                "--kill-rank",
                Integer.toString(KILLED),
                "--kill-at-step",
                Integer.toString(KILL_AT),
                "--save-state",
                state.toString(),
                "--weights-out",
                weights.toString()));
        return TrainingJob.run(elastic, List.of(0, 0, 137, 0), 30, 120);
    }
}
