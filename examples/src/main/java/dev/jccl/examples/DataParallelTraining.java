package dev.jccl.examples;

import dev.jccl.Communicator;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * Data-parallel training, the workload Jccl exists for: every rank holds the same MLP, trains on its own shard of each
 * global batch, and averages the gradients with AllReduce, in buckets that start while the backward pass is still
 * running (see {@link BucketedAllReduce}).
 *
 * <pre>
 * ./mvnw -q -pl examples -am package -DskipTests      # builds examples/target/jccl-examples.jar
 * ./jccl run -np 4 -- java -jar examples/target/jccl-examples.jar [--epochs 3] [--no-overlap | --compare-overlap] …
 * </pre>
 *
 * Rank 0 prints the loss per epoch and, at the end, where a step's time went: computing, waiting for AllReduce, and how
 * much of the AllReduce was hidden behind the backward pass ({@code --compare-overlap} alternates overlap on and off
 * step by step and prints both). Other ranks print only errors. {@code --help} lists the options. With the same options
 * and seed, any number of ranks (that divides the batch) ends with the weights one process gets on the whole batch, up
 * to float rounding; the last line prints a fingerprint of them to compare runs by.
 */
public final class DataParallelTraining {
    private DataParallelTraining() {}

    public static void main(String[] args) {
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.print(TrainingOptions.USAGE + ElasticOptions.USAGE);
            return;
        }
        TrainingOptions options;
        ElasticOptions elastic;
        try {
            ElasticOptions.Parsed parsed = ElasticOptions.parse(args);
            elastic = parsed.options();
            options = TrainingOptions.parse(parsed.rest());
        } catch (IllegalArgumentException e) {
            System.err.println("DataParallelTraining: " + e.getMessage());
            System.err.print(TrainingOptions.USAGE + ElasticOptions.USAGE);
            System.exit(2);
            return;
        }
        Communicator joined;
        try {
            joined = Jccl.fromEnvironment();
        } catch (IllegalArgumentException e) {
            System.err.println("DataParallelTraining: " + e.getMessage()
                    + "\nStart it under a launcher, e.g. ./jccl "
                    + "run -np 4 -- java -jar examples/target/jccl-examples.jar"
                    + " (-np 1 for a single process)");
            System.exit(2);
            return;
        } catch (JcclException e) {
            System.err.println("DataParallelTraining: " + e);
            System.exit(1);
            return;
        }
        int status = 0;
        try (Communicator comm = joined) {
            if (options.batch() % comm.size() != 0) {
                // Every rank sees the same sizes, so every rank stops here, before any collective.
                System.err.println("DataParallelTraining: --batch " + options.batch() + " does not split evenly over "
                        + comm.size() + " ranks; use a multiple of " + comm.size());
                status = 2;
            } else if (elastic.anySet()) {
                ElasticTraining.train(comm, options, elastic);
            } else {
                train(comm, options, comm.rank() == 0 ? System.out : null);
            }
        } catch (JcclException e) {
            System.err.println("DataParallelTraining: " + e);
            status = 1;
        }
        System.exit(status);
    }

    /**
     * Trains on {@code comm}'s ranks (this is one of them) and returns this rank's final parameters.
     *
     * @param out where to print the progress and the timing summary; null to stay quiet
     */
    static float[] train(Communicator comm, TrainingOptions o, PrintStream out) {
        TeacherDataset data = TeacherDataset.of(o);
        Mlp model = new Mlp(o.widths(), o.seed());
        // As DDP does: start every rank from rank 0's weights (the same seed makes them equal anyway).
        comm.broadcast(model.params, 0);
        BucketedAllReduce buckets = new BucketedAllReduce(comm, model.grads, o.bucketBytes());
        DataParallelTrainer trainer = new DataParallelTrainer(o, data, comm.rank(), comm.size(), model, buckets);

        if (out != null) {
            out.printf(
                    Locale.ROOT,
                    "Data-parallel training on %d rank%s: MLP %s, %,d parameters (%s of FLOAT32 gradients) "
                            + "in %d bucket%s of <= %s, overlap %s%n",
                    comm.size(),
                    comm.size() == 1 ? "" : "s",
                    o.shape(),
                    model.parameterCount(),
                    bytes(4L * model.parameterCount()),
                    buckets.buckets(),
                    buckets.buckets() == 1 ? "" : "s",
                    bytes(o.bucketBytes()),
                    switch (o.overlap()) {
                        case ON -> "on (each bucket's AllReduce starts during the backward pass)";
                        case OFF -> "off (all AllReduces start after the backward pass)";
                        case ALTERNATE -> "on and off in turn, step by step (to compare them)";
                    });
            out.printf(
                    Locale.ROOT,
                    "Data: %,d training + %,d test samples from a fixed teacher network (seed %d); "
                            + "global batch %d = %d rank%s x %d; %d steps per epoch%n",
                    o.trainSamples(),
                    o.testSamples(),
                    o.seed(),
                    o.batch(),
                    comm.size(),
                    comm.size() == 1 ? "" : "s",
                    trainer.shard(),
                    o.stepsPerEpoch());
        }
        for (int epoch = 0; epoch < o.epochs(); epoch++) {
            long start = System.nanoTime();
            double lossSum = trainer.trainEpoch(epoch);
            double[] eval = trainer.evaluateShard();
            // {training loss summed over steps, averaged over ranks later; test loss sum, right, count}
            double[] totals = {lossSum, eval[0], eval[1], eval[2]};
            comm.allReduce(totals, ReduceOp.SUM);
            if (out != null) {
                double trainLoss = totals[0] / comm.size() / o.stepsPerEpoch();
                String test = totals[3] == 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "  test loss %.4f  test accuracy %5.1f%%",
                                totals[1] / totals[3],
                                100 * totals[2] / totals[3]);
                out.printf(
                        Locale.ROOT,
                        "epoch %d/%d: train loss %.4f%s  (%.1f s)%n",
                        epoch + 1,
                        o.epochs(),
                        trainLoss,
                        test,
                        (System.nanoTime() - start) / 1e9);
            }
        }
        // Each rank's per-step means (and median), averaged over the ranks: one AllReduce.
        Timing[] timings = switch (o.overlap()) {
            case ON, OFF ->
                new Timing[] {Timing.of(trainer, o.warmupSteps(), o.overlap() == TrainingOptions.Overlap.ON)};
            case ALTERNATE ->
                new Timing[] {Timing.of(trainer, o.warmupSteps(), true), Timing.of(trainer, o.warmupSteps(), false)};
        };
        double[] averaged = new double[timings.length * Timing.FIELDS];
        for (int k = 0; k < timings.length; k++) timings[k].copyTo(averaged, k * Timing.FIELDS);
        comm.allReduce(averaged, ReduceOp.AVG);
        String bandwidth = AllReduceBandwidth.measure(comm, model.params.length, out);
        if (out != null) {
            String over = comm.size() > 1 ? "averaged over ranks" : "one rank";
            for (int k = 0; k < timings.length; k++) {
                Timing.from(averaged, k * Timing.FIELDS).print(out, over);
            }
            if (timings.length == 2) {
                Timing on = Timing.from(averaged, 0), off = Timing.from(averaged, Timing.FIELDS);
                out.printf(
                        Locale.ROOT,
                        "overlap saves %.2f ms per step (median %.2f -> %.2f ms, %.1f%%)%n",
                        off.medianStep() - on.medianStep(),
                        off.medianStep(),
                        on.medianStep(),
                        100 * (off.medianStep() - on.medianStep()) / off.medianStep());
            }
            out.println(bandwidth);
            out.println(fingerprint(model.params));
        }
        return model.params.clone();
    }

    /**
     * "weights after training: L2 norm …, mean |w| …" to six significant digits, which is where runs with different
     * numbers of ranks agree (they differ in float rounding only, some 1e-7 of a weight); with or without overlap they
     * are the same bits.
     */
    static String fingerprint(float[] w) {
        double sq = 0, abs = 0;
        for (float v : w) {
            sq += (double) v * v;
            abs += Math.abs(v);
        }
        return String.format(
                Locale.ROOT, "weights after training: L2 norm %.6g, mean |w| %.6g", Math.sqrt(sq), abs / w.length);
    }

    private static String bytes(long n) {
        if (n >= 1 << 20) return String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0);
        if (n >= 1 << 10) return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
        return n + " B";
    }

    /** Per-step times over the steps after the warm-up that did (or did not) overlap, in milliseconds. */
    record Timing(
            boolean overlap,
            int steps,
            double medianStep,
            double meanStep,
            double compute,
            double blocked,
            double inFlight) {
        static final int FIELDS = 7;

        static Timing of(DataParallelTrainer t, int warmup, boolean overlap) {
            int n = t.stepNanos.length;
            int from = warmup < n ? warmup : 0;
            long[] steps = new long[n - from];
            double compute = 0, blocked = 0, inFlight = 0;
            int count = 0;
            for (int i = from; i < n; i++) {
                if (t.overlapped[i] != overlap) continue;
                steps[count++] = t.stepNanos[i];
                compute += t.computeNanos[i];
                blocked += t.waitNanos[i];
                inFlight += t.inFlightNanos[i];
            }
            if (count == 0) return new Timing(overlap, 0, 0, 0, 0, 0, 0);
            long[] sorted = Arrays.copyOf(steps, count);
            Arrays.sort(sorted);
            double median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2.0;
            double mean = Arrays.stream(sorted).sum() / (double) count;
            return new Timing(
                    overlap,
                    count,
                    median / 1e6,
                    mean / 1e6,
                    compute / count / 1e6,
                    blocked / count / 1e6,
                    inFlight / count / 1e6);
        }

        void copyTo(double[] a, int at) {
            double[] v = {overlap ? 1 : 0, steps, medianStep, meanStep, compute, blocked, inFlight};
            System.arraycopy(v, 0, a, at, FIELDS);
        }

        static Timing from(double[] a, int at) {
            return new Timing(
                    a[at] > 0.5, (int) Math.round(a[at + 1]), a[at + 2], a[at + 3], a[at + 4], a[at + 5], a[at + 6]);
        }

        void print(PrintStream out, String over) {
            double busy = compute + blocked;
            out.printf(
                    Locale.ROOT,
                    "step time, overlap %s (%d steps after the warm-up, %s): median %.2f ms, mean %.2f ms%n",
                    overlap ? "on" : "off",
                    steps,
                    over,
                    medianStep,
                    meanStep);
            out.printf(
                    Locale.ROOT,
                    "  computing (batch, forward, backward, update) %8.2f ms  %5.1f%%%n",
                    compute,
                    100 * compute / busy);
            out.printf(
                    Locale.ROOT,
                    "  communicating (blocked on AllReduce)         %8.2f ms  %5.1f%%%n",
                    blocked,
                    100 * blocked / busy);
            out.printf(
                    Locale.ROOT,
                    "  AllReduce in flight %.2f ms per step, %.2f ms of it hidden behind the backward pass%n",
                    inFlight,
                    Math.max(0, inFlight - blocked));
        }
    }
}
