package dev.jccl.examples;

import java.util.SplittableRandom;

/**
 * One rank's share of data-parallel SGD. Every epoch all ranks shuffle the training set the same way (from the seed);
 * step {@code s} takes the global batch {@code order[s·B, (s+1)·B)}, and rank {@code r} of {@code n} trains on block
 * {@code r} of it, {@code B/n} samples. Each rank's gradient is the mean over its block; the {@link GradientExchange}
 * averages those over the ranks, which is the mean over the whole global batch, so every rank applies the update a
 * single process would have applied to the whole batch, up to float rounding.
 *
 * <p>Each step is timed: compute (batch gather, forward, backward, update), time blocked waiting for communication, and
 * (when the exchange is a {@link BucketedAllReduce}) how long the AllReduces were in flight. Whether a step overlaps
 * its AllReduces with its backward pass follows {@link TrainingOptions#overlap()}; it changes the timing, never the
 * weights.
 */
final class DataParallelTrainer {
    private final TrainingOptions options;
    private final TeacherDataset data;
    private final int rank;
    private final int size;
    private final int shard;
    private final Mlp model;
    private final float[] velocity;
    private final GradientExchange exchange;
    private final int[] shardLabels;

    /** Per step, over the whole run: total, compute, blocked on communication, communication in flight (ns). */
    final long[] stepNanos;

    final long[] computeNanos;
    final long[] waitNanos;
    final long[] inFlightNanos;
    /** Per step: whether its AllReduces overlapped the backward pass. */
    final boolean[] overlapped;

    private int step;
    /** The epoch whose shuffled order {@link #order} holds; -1 before the first step. */
    private int orderEpoch = -1;

    private int[] order;

    DataParallelTrainer(
            TrainingOptions options, TeacherDataset data, int rank, int size, Mlp model, GradientExchange exchange) {
        this(options, data, rank, size, model, exchange, new float[model.parameterCount()], 0);
    }

    /**
     * A trainer that goes on from global step {@code firstStep} with the optimiser state {@code velocity} (kept, not
     * copied): how an elastic job carries on after its ranks change.
     */
    DataParallelTrainer(
            TrainingOptions options,
            TeacherDataset data,
            int rank,
            int size,
            Mlp model,
            GradientExchange exchange,
            float[] velocity,
            int firstStep) {
        if (options.batch() % size != 0) {
            throw new IllegalArgumentException("--batch " + options.batch() + " does not split evenly over " + size
                    + " ranks; use a multiple of " + size + " (equal shards keep the average exact)");
        }
        this.options = options;
        this.data = data;
        this.rank = rank;
        this.size = size;
        this.shard = options.batch() / size;
        this.model = model;
        if (velocity.length != model.parameterCount()) {
            throw new IllegalArgumentException(
                    velocity.length + " momentum values for " + model.parameterCount() + " parameters");
        }
        this.velocity = velocity;
        this.step = firstStep;
        this.exchange = exchange;
        this.shardLabels = new int[shard];
        int steps = options.epochs() * options.stepsPerEpoch();
        stepNanos = new long[steps];
        computeNanos = new long[steps];
        waitNanos = new long[steps];
        inFlightNanos = new long[steps];
        overlapped = new boolean[steps];
    }

    Mlp model() {
        return model;
    }

    /** Samples of the global batch this rank trains on. */
    int shard() {
        return shard;
    }

    /** Trains one epoch (0-based); returns the sum over its steps of this rank's mean shard loss. */
    double trainEpoch(int epoch) {
        double lossSum = 0;
        for (int s = 0; s < options.stepsPerEpoch(); s++) lossSum += trainStep(epoch * options.stepsPerEpoch() + s);
        return lossSum;
    }

    /** The optimiser's momentum, one value per parameter. */
    float[] velocity() {
        return velocity;
    }

    /**
     * Trains global step {@code global} (epoch {@code global / stepsPerEpoch}); returns this rank's mean shard loss.
     * Steps must come in order, each once, from the trainer's first step on.
     */
    double trainStep(int global) {
        if (global != step) throw new IllegalStateException("step " + global + " asked for, " + step + " is next");
        int epoch = global / options.stepsPerEpoch();
        int s = global % options.stepsPerEpoch();
        if (epoch != orderEpoch) {
            order = shuffled(data.trainSamples, TeacherDataset.mix(options.seed(), 1_000_000L + epoch));
            orderEpoch = epoch;
        }
        long t0 = System.nanoTime();
        float[] x = model.input(shard);
        int first = s * options.batch() + rank * shard;
        for (int b = 0; b < shard; b++) {
            int sample = order[first + b];
            System.arraycopy(data.features, sample * data.inputs, x, b * data.inputs, data.inputs);
            shardLabels[b] = data.labels[sample];
        }
        overlapped[step] = options.overlap().at(step);
        exchange.beginStep(overlapped[step]);
        double loss = model.forwardBackward(shard, shardLabels, 0, exchange::gradientsReady);
        long t1 = System.nanoTime();
        exchange.finishStep();
        long t2 = System.nanoTime();
        update();
        long t3 = System.nanoTime();
        stepNanos[step] = t3 - t0;
        computeNanos[step] = (t1 - t0) + (t3 - t2);
        waitNanos[step] = t2 - t1;
        inFlightNanos[step] = exchange instanceof BucketedAllReduce b ? b.inFlightNanos() : 0;
        step++;
        return loss;
    }

    /**
     * Evaluates this rank's block of the held-out set (rank r of n takes samples {@code [r·T/n, (r+1)·T/n)}): returns
     * {summed loss, number right, number of samples}.
     */
    double[] evaluateShard() {
        int t = data.testSamples;
        int from = (int) ((long) rank * t / size), to = (int) ((long) (rank + 1) * t / size);
        double[] out = new double[3];
        int chunk = Math.max(shard, 64);
        for (int start = from; start < to; start += chunk) {
            int n = Math.min(chunk, to - start);
            float[] x = model.input(n);
            int sample0 = data.trainSamples + start;
            System.arraycopy(data.features, sample0 * data.inputs, x, 0, n * data.inputs);
            model.evaluate(n, data.labels, sample0, out);
        }
        out[2] = to - from;
        return out;
    }

    /** SGD with momentum: v = μ·v + g; w −= lr·v. */
    private void update() {
        float[] w = model.params, g = model.grads, v = velocity;
        float mu = options.momentum(), lr = options.learningRate();
        for (int k = 0; k < w.length; k++) {
            v[k] = mu * v[k] + g[k];
            w[k] -= lr * v[k];
        }
    }

    private static int[] shuffled(int n, long seed) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = i;
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
        }
        return a;
    }
}
