package dev.jccl.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jccl.Config;
import dev.jccl.TestRanks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The data-parallel example's promise: N ranks that each train on 1/N of every batch and average their gradients with
 * bucketed AllReduce end with the weights one process reaches on the whole batches, whether or not the AllReduces
 * overlap the backward pass.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DataParallelTrainingTest {
    /**
     * A small model (5,477 parameters, so 6 buckets of 4 KiB: several per layer, and the first ones reduced while the
     * backward pass is still in the lower layers) and 48 steps of SGD with momentum.
     */
    private static final String SMALL_ARGS = TrainingJob.SMALL_MODEL
            + " --train-samples 512 --test-samples 128 --batch 32 --epochs 3 --lr 0.05 --bucket-kb 4"
            + " --warmup-steps 0";

    static final TrainingOptions SMALL = TrainingOptions.parse(TrainingJob.args(SMALL_ARGS));

    /**
     * How far N ranks' weights may be from the single process's, as a fraction of the largest weight. The two compute
     * the same sums in different orders: a rank sums its shard's per-sample gradients, then AllReduce sums the ranks'
     * means, where one process sums the whole batch at once. Each reordering moves a float32 sum by a few ulps
     * (relative 1e-7), and 48 steps of momentum SGD carry those differences along; measured here: 2e-7 for 2 and 4
     * ranks, 0 for one. 1e-5 leaves a margin of 50 over that, and is four orders of magnitude below what a wrong
     * average gives (SUM instead of AVG: 0.5 and more; ranks that skip the AllReduce: see
     * {@link #ranksThatDoNotAverageEndFarFromTheReference}). The run is kept short on purpose: SGD amplifies any
     * rounding difference over hundreds of steps (on the default model, nudging one weight in a thousand by one ulp
     * moves the weights 2e-4 after 128 steps and 1e-2 after 384, exactly as far as 4 ranks do), so a long run could not
     * tell a wrong sum from a reordered one.
     */
    static final double TOLERANCE = 1e-5;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 4})
    void nRanksReachTheWeightsOfOneProcessOnTheWholeBatch(int ranks) throws Exception {
        float[] reference = trainAlone(SMALL);

        List<float[]> overlapped = trainOnRanks(ranks, SMALL);
        List<float[]> sequential =
                trainOnRanks(ranks, TrainingOptions.parse(TrainingJob.args(SMALL_ARGS + " --no-overlap")));

        for (int r = 0; r < ranks; r++) {
            // AllReduce leaves the same bits on every rank, so the ranks never drift apart.
            assertArrayEquals(
                    overlapped.get(0), overlapped.get(r), "rank " + r + " ended with other weights than rank 0");
            // Overlap changes when each bucket is reduced, not what: same buckets, same order, same sums.
            assertArrayEquals(
                    overlapped.get(r),
                    sequential.get(r),
                    "rank " + r + ": overlapped and non-overlapped training ended with different weights");
        }
        double difference = relativeDifference(overlapped.get(0), reference);
        assertTrue(
                difference <= TOLERANCE,
                String.format(
                        "%d ranks ended %.3g (relative to the largest weight) away from one process "
                                + "on the whole batch; tolerance %.0e",
                        ranks, difference, TOLERANCE));
        if (ranks == 1) {
            // One rank's shard is the whole batch and AVG over one rank is the identity: same bits.
            assertArrayEquals(reference, overlapped.get(0), "1 rank differs from the process without a communicator");
        }
        System.out.printf(
                "%d ranks: largest weight difference from one process %.3g of the largest weight%n", ranks, difference);
    }

    /** Shows the tolerance can fail: ranks that skip the AllReduce each follow their own shards. */
    @Test
    void ranksThatDoNotAverageEndFarFromTheReference() {
        float[] reference = trainAlone(SMALL);
        TeacherDataset data = TeacherDataset.of(SMALL);
        for (int r = 0; r < 2; r++) {
            Mlp model = new Mlp(SMALL.widths(), SMALL.seed());
            DataParallelTrainer t = new DataParallelTrainer(SMALL, data, r, 2, model, GradientExchange.NONE);
            for (int e = 0; e < SMALL.epochs(); e++) t.trainEpoch(e);
            double difference = relativeDifference(model.params, reference);
            assertTrue(
                    difference > 100 * TOLERANCE,
                    "rank " + r + " without AllReduce is only " + difference + " away from the reference");
            System.out.printf(
                    "rank %d of 2 without AllReduce: %.3g of the largest weight away from one process%n",
                    r, difference);
        }
    }

    @Test
    void trainingLowersTheLoss() {
        TeacherDataset data = TeacherDataset.of(SMALL);
        Mlp model = new Mlp(SMALL.widths(), SMALL.seed());
        DataParallelTrainer t = new DataParallelTrainer(SMALL, data, 0, 1, model, GradientExchange.NONE);
        double[] before = t.evaluateShard();
        double first = t.trainEpoch(0) / SMALL.stepsPerEpoch(), last = first;
        for (int e = 1; e < SMALL.epochs(); e++) last = t.trainEpoch(e) / SMALL.stepsPerEpoch();
        double[] after = t.evaluateShard();
        assertTrue(last < 0.8 * first, "training loss went from " + first + " to " + last);
        assertTrue(
                after[0] / after[2] < before[0] / before[2],
                "test loss rose: " + Arrays.toString(before) + " -> " + Arrays.toString(after));
        assertTrue(after[1] > before[1], "test accuracy did not improve");
    }

    /** What overlap relies on: a gradient the backward pass has reported is never written again. */
    @Test
    void backwardPassReportsOnlyFinishedGradientsInOrder() {
        TeacherDataset data = TeacherDataset.of(SMALL);
        Mlp model = new Mlp(SMALL.widths(), SMALL.seed());
        int batch = 16;
        float[] x = model.input(batch);
        System.arraycopy(data.features, 0, x, 0, batch * data.inputs);
        List<Integer> ends = new ArrayList<>();
        List<float[]> snapshots = new ArrayList<>();
        model.forwardBackward(batch, data.labels, 0, end -> {
            ends.add(end);
            snapshots.add(Arrays.copyOf(model.grads, end));
        });
        assertEquals(model.parameterCount(), ends.getLast().intValue(), "the last report must cover every gradient");
        assertTrue(ends.size() > 3, "expected several reports, got " + ends);
        for (int k = 0; k < ends.size(); k++) {
            if (k > 0) assertTrue(ends.get(k) > ends.get(k - 1), "reports must grow: " + ends);
            assertArrayEquals(
                    Arrays.copyOf(model.grads, ends.get(k)),
                    snapshots.get(k),
                    "gradients below " + ends.get(k) + " changed after they were reported");
        }
    }

    /** The backward pass against central differences of the loss, for every parameter of a tiny model. */
    @Test
    void gradientsMatchFiniteDifferences() {
        TrainingOptions o = TrainingOptions.parse(
                "--inputs",
                "6",
                "--hidden",
                "5,4",
                "--classes",
                "3",
                "--train-samples",
                "8",
                "--test-samples",
                "0",
                "--batch",
                "8");
        TeacherDataset data = TeacherDataset.of(o);
        Mlp model = new Mlp(o.widths(), 7);
        // Zero biases put a sample whose ReLUs below are all off exactly on a kink (z = 0), where a
        // central difference measures half a slope: nudge every parameter off such ties.
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int k = 0; k < model.parameterCount(); k++) model.params[k] += (float) (0.1 * random.nextGaussian());
        int batch = 8;
        System.arraycopy(data.features, 0, model.input(batch), 0, batch * data.inputs);
        model.forwardBackward(batch, data.labels, 0, end -> {});
        float[] analytic = model.grads.clone();
        int checked = 0;
        for (int k = 0; k < model.parameterCount(); k++) {
            float saved = model.params[k];
            float h = 1e-3f;
            model.params[k] = saved + h;
            double up = loss(model, data, batch);
            model.params[k] = saved - h;
            double down = loss(model, data, batch);
            model.params[k] = saved;
            double numeric = (up - down) / (2 * h);
            assertEquals(numeric, analytic[k], 2e-3 + 0.02 * Math.abs(numeric), "gradient of parameter " + k);
            checked++;
        }
        assertEquals(74, checked);
    }

    @Test
    void aBatchThatDoesNotSplitEvenlyIsRefused() {
        TeacherDataset data = TeacherDataset.of(SMALL);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new DataParallelTrainer(SMALL, data, 0, 3, new Mlp(SMALL.widths(), 1), GradientExchange.NONE));
        assertTrue(e.getMessage().contains("--batch 32 does not split evenly over 3 ranks"), e.getMessage());
    }

    /**
     * The program as a job of 2 JVMs, set up through JCCL_* variables as jccl run does: what rank 0 prints (with both
     * timing summaries of --compare-overlap), and that rank 1 is quiet.
     */
    @Test
    void mainPrintsLossPerEpochAndTheTimeSplitOnRankZeroOnly() throws Exception {
        List<String> outputs = TrainingJob.run(
                List.of(TrainingJob.args(TrainingJob.SMALL_MODEL
                        + " --train-samples 512 --test-samples 128 --batch 32 --epochs 2 --bucket-kb 4 --lr 0.05"
                        + " --warmup-steps 4 --compare-overlap")),
                List.of(0, 0),
                60,
                90);
        String rank0 = outputs.get(0);
        String rank1 = outputs.get(1);
        for (String expected : List.of(
                "Data-parallel training on 2 ranks: MLP 32-64-48-5, 5,477 parameters",
                "in 6 buckets of <= 4.0 KiB, overlap on and off in turn",
                "global batch 32 = 2 ranks x 16; 16 steps per epoch",
                "epoch 1/2: train loss ",
                "epoch 2/2: train loss ",
                "step time, overlap on (14 steps after the warm-up, averaged over ranks)",
                "step time, overlap off (14 steps after the warm-up, averaged over ranks)",
                "overlap saves ",
                "computing (batch, forward, backward, update)",
                "communicating (blocked on AllReduce)",
                "AllReduce in flight",
                "AllReduce of the 21.4 KiB of gradients on 2 ranks: ",
                "weights after training: L2 norm ")) {
            assertTrue(rank0.contains(expected), "rank 0 did not print \"" + expected + "\":\n" + rank0);
        }
        assertEquals("", rank1, "rank 1 should print nothing");
    }

    private static double loss(Mlp model, TeacherDataset data, int batch) {
        double[] out = new double[2];
        System.arraycopy(data.features, 0, model.input(batch), 0, batch * data.inputs);
        model.evaluate(batch, data.labels, 0, out);
        return out[0] / batch;
    }

    /** One process, no communicator, the whole batch every step. */
    static float[] trainAlone(TrainingOptions o) {
        TeacherDataset data = TeacherDataset.of(o);
        Mlp model = new Mlp(o.widths(), o.seed());
        DataParallelTrainer t = new DataParallelTrainer(o, data, 0, 1, model, GradientExchange.NONE);
        for (int e = 0; e < o.epochs(); e++) t.trainEpoch(e);
        return model.params;
    }

    /** {@code ranks} threads, each a rank with its own communicator, through the example's own train(). */
    private static List<float[]> trainOnRanks(int ranks, TrainingOptions o) throws Exception {
        Config config = TestRanks.loopback(Duration.ofSeconds(30));
        List<Object> results = TestRanks.run(ranks, config, (rank, comm) -> DataParallelTraining.train(comm, o, null));
        List<float[]> weights = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            Object result = results.get(r);
            if (result instanceof Throwable t) fail("rank " + r + " of " + ranks + " failed", t);
            weights.add((float[]) result);
        }
        return weights;
    }

    /** max |a − b| over max |b|. */
    static double relativeDifference(float[] a, float[] b) {
        double diff = 0, scale = 0;
        for (int k = 0; k < b.length; k++) {
            diff = Math.max(diff, Math.abs((double) a[k] - b[k]));
            scale = Math.max(scale, Math.abs(b[k]));
        }
        return diff / scale;
    }
}
