package dev.jccl.examples;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The settings of {@link DataParallelTraining}: model shape, data, optimiser, buckets. Every rank must run with the
 * same ones (the command line is the same for all ranks under {@code jccl run}).
 *
 * @param inputs features per sample
 * @param hidden widths of the hidden (ReLU) layers, first to last
 * @param classes number of classes (width of the output layer)
 * @param trainSamples size of the training set; an epoch is {@code trainSamples / batch} steps
 * @param testSamples size of the held-out set the loss and accuracy of each epoch are measured on
 * @param batch global batch per step, split evenly over the ranks
 * @param epochs passes over the training set
 * @param learningRate SGD step size
 * @param momentum SGD momentum (0 for plain SGD)
 * @param bucketBytes upper bound of one gradient bucket, in bytes of FLOAT32 gradients
 * @param overlap when each bucket's AllReduce starts (see {@link Overlap})
 * @param seed seeds the data (teacher and samples), the initial weights and the shuffling
 * @param warmupSteps first steps left out of the timing summary (JIT compilation, first touches)
 */
record TrainingOptions(
        int inputs,
        int[] hidden,
        int classes,
        int trainSamples,
        int testSamples,
        int batch,
        int epochs,
        float learningRate,
        float momentum,
        int bucketBytes,
        Overlap overlap,
        long seed,
        int warmupSteps)
        // Spark ships the options to its executors (SparkTraining).
        implements java.io.Serializable {

    /** When the AllReduce of a bucket starts. */
    enum Overlap {
        /** As soon as the backward pass has finished the bucket's gradients, while it goes on below. */
        ON,
        /** After the whole backward pass: the baseline that shows what overlapping saves. */
        OFF,
        /** ON on even steps, OFF on odd ones, to compare the two within one run (the result is the same). */
        ALTERNATE;

        boolean at(int step) {
            return this == ON || (this == ALTERNATE && step % 2 == 0);
        }
    }

    static final String USAGE = """
            Usage: DataParallelTraining [options]     (one process per rank, e.g. under jccl run -np N)
              --epochs N          passes over the training set                    (default 3)
              --batch N           global batch per step, a multiple of the ranks  (default 64)
              --hidden W,W,...    hidden layer widths                             (default 1024,1024)
              --inputs N          features per sample                             (default 256)
              --classes N         classes                                         (default 10)
              --train-samples N   training set size                               (default 8192)
              --test-samples N    held-out set size                               (default 2048)
              --lr X              learning rate                                   (default 0.01)
              --momentum X        SGD momentum                                    (default 0.9)
              --bucket-kb N       gradient bucket size in KiB                     (default 1024)
              --no-overlap        start the AllReduces only after the whole backward pass
              --compare-overlap   alternate overlap on and off step by step; report both
              --seed N            seed of data, initial weights and shuffling     (default 1)
              --warmup-steps N    steps left out of the timing summary            (default 20)
            """;

    /** The defaults: an MLP 256-1024-1024-10 (1.3 M parameters, 5.3 MB of gradients) in 1 MiB buckets. */
    static TrainingOptions defaults() {
        return new TrainingOptions(
                256, new int[] {1024, 1024}, 10, 8192, 2048, 64, 3, 0.01f, 0.9f, 1 << 20, Overlap.ON, 1, 20);
    }

    /** Parses command-line options over {@link #defaults()}; throws IllegalArgumentException saying what is wrong. */
    static TrainingOptions parse(String... args) {
        TrainingOptions d = defaults();
        int inputs = d.inputs, classes = d.classes, trainSamples = d.trainSamples, testSamples = d.testSamples;
        int batch = d.batch, epochs = d.epochs, bucketBytes = d.bucketBytes, warmupSteps = d.warmupSteps;
        int[] hidden = d.hidden;
        float learningRate = d.learningRate, momentum = d.momentum;
        Overlap overlap = d.overlap;
        long seed = d.seed;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--no-overlap") || name.equals("--compare-overlap")) {
                overlap = name.equals("--no-overlap") ? Overlap.OFF : Overlap.ALTERNATE;
                continue;
            }
            if (!name.startsWith("--")) throw new IllegalArgumentException("unexpected argument '" + name + "'");
            if (!USAGE.contains("  " + name + " ")) throw new IllegalArgumentException("unknown option " + name);
            if (i + 1 >= args.length) throw new IllegalArgumentException(name + " needs a value");
            String v = args[++i];
            switch (name) {
                case "--epochs" -> epochs = atLeast(name, v, 1);
                case "--batch" -> batch = atLeast(name, v, 1);
                case "--hidden" -> hidden = widths(name, v);
                case "--inputs" -> inputs = atLeast(name, v, 1);
                case "--classes" -> classes = atLeast(name, v, 2);
                case "--train-samples" -> trainSamples = atLeast(name, v, 1);
                case "--test-samples" -> testSamples = atLeast(name, v, 0);
                case "--lr" -> learningRate = number(name, v);
                case "--momentum" -> momentum = number(name, v);
                case "--bucket-kb" -> bucketBytes = Math.multiplyExact(atLeast(name, v, 1), 1024);
                case "--seed" -> seed = longValue(name, v);
                case "--warmup-steps" -> warmupSteps = atLeast(name, v, 0);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (batch > trainSamples) {
            throw new IllegalArgumentException("--batch " + batch + " is larger than --train-samples " + trainSamples);
        }
        return new TrainingOptions(
                inputs,
                hidden,
                classes,
                trainSamples,
                testSamples,
                batch,
                epochs,
                learningRate,
                momentum,
                bucketBytes,
                overlap,
                seed,
                warmupSteps);
    }

    /** Layer widths, input first: {@code inputs, hidden..., classes}. */
    int[] widths() {
        int[] w = new int[hidden.length + 2];
        w[0] = inputs;
        System.arraycopy(hidden, 0, w, 1, hidden.length);
        w[w.length - 1] = classes;
        return w;
    }

    int stepsPerEpoch() {
        return trainSamples / batch;
    }

    /** E.g. {@code 256-1024-1024-10}. */
    String shape() {
        return Arrays.stream(widths()).mapToObj(Integer::toString).collect(Collectors.joining("-"));
    }

    /** {@code v} as a whole number of at least {@code min}, or an error naming option {@code name}. */
    static int atLeast(String name, String v, int min) {
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, got '" + v + "'");
        }
        if (n < min) throw new IllegalArgumentException(name + " must be at least " + min + ", got " + n);
        return n;
    }

    private static long longValue(String name, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a whole number, got '" + v + "'");
        }
    }

    private static float number(String name, String v) {
        float f;
        try {
            f = Float.parseFloat(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a number, got '" + v + "'");
        }
        if (!(f >= 0) || Float.isInfinite(f)) {
            throw new IllegalArgumentException(name + " must be a finite number >= 0, got " + v);
        }
        return f;
    }

    private static int[] widths(String name, String v) {
        String[] parts = v.split(",");
        int[] w = new int[parts.length];
        for (int i = 0; i < parts.length; i++) w[i] = atLeast(name, parts[i].trim(), 1);
        return w;
    }
}
