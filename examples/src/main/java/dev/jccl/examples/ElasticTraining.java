package dev.jccl.examples;

import dev.jccl.Communicator;
import dev.jccl.FailureVerdict;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Data-parallel training that outlives a lost rank ({@code --elastic}): it trains step by step, keeping the weights and
 * momentum of the last completed step. When a step fails (a rank was killed, stopped or cut off), every survivor gets
 * the same verdict naming the lost rank, puts back the last completed step's state, calls {@link Communicator#shrink}
 * and redoes the step on the smaller communicator, each rank now taking {@code batch / survivors} samples of every
 * batch. The global batch is the same, so from that step on the survivors compute what a fresh run of that many ranks
 * would from the same state: {@code --save-state} writes that state and {@code --resume-from} starts such a run.
 *
 * <p>Without {@code --elastic} the same loop runs (for {@code --kill-rank}, {@code --resume-from},
 * {@code --weights-out}) and a lost rank ends the job, as in the plain mode.
 */
final class ElasticTraining {
    private final TrainingOptions options;
    private final ElasticOptions elastic;
    private final TeacherDataset data;
    private final Mlp model;
    private final float[] velocity;
    /** The weights and momentum after the last completed step: what a failed step goes back to. */
    private final float[] savedParams;

    private final float[] savedVelocity;
    private final int originalRank;
    /** The caller's communicator, which the caller closes; the survivors' ones are this class's to close. */
    private final Communicator original;

    private Communicator comm;
    private DataParallelTrainer trainer;
    private int lostRanks;

    private ElasticTraining(Communicator comm, TrainingOptions options, ElasticOptions elastic) {
        this.options = options;
        this.elastic = elastic;
        this.comm = comm;
        this.original = comm;
        this.originalRank = comm.rank();
        this.data = TeacherDataset.of(options);
        this.model = new Mlp(options.widths(), options.seed());
        this.velocity = new float[model.parameterCount()];
        this.savedParams = new float[model.parameterCount()];
        this.savedVelocity = new float[model.parameterCount()];
    }

    /**
     * Trains on {@code comm} (and, after a lost rank, on the survivors' communicators, which it closes); returns this
     * rank's final weights. {@code comm} stays the caller's to close.
     */
    static float[] train(Communicator comm, TrainingOptions options, ElasticOptions elastic) {
        ElasticTraining t = new ElasticTraining(comm, options, elastic);
        try {
            return t.run();
        } finally {
            if (t.comm != comm) t.comm.close();
        }
    }

    private float[] run() {
        int first = 0;
        if (elastic.resumeFrom() != null) {
            TrainingState s = TrainingState.read(elastic.resumeFrom(), model.parameterCount());
            System.arraycopy(s.params(), 0, model.params, 0, s.params().length);
            System.arraycopy(s.velocity(), 0, velocity, 0, s.velocity().length);
            first = s.step();
        } else {
            comm.broadcast(model.params, 0);
        }
        save();
        trainer = trainerOn(comm, first);
        int total = options.epochs() * options.stepsPerEpoch();
        PrintStream out = comm.rank() == 0 ? System.out : null;
        if (out != null) {
            out.printf(
                    Locale.ROOT,
                    "Elastic data-parallel training on %d ranks: MLP %s, steps %d..%d of %d, " + "global batch %d%s%n",
                    comm.size(),
                    options.shape(),
                    first,
                    total - 1,
                    total,
                    options.batch(),
                    elastic.elastic() ? "; a lost rank is survived" : "");
        }
        double lossSum = 0;
        for (int step = first; step < total; ) {
            if (originalRank == elastic.killRank() && step == elastic.killAtStep()) killThisProcess(step);
            try {
                lossSum += trainer.trainStep(step);
                step++;
                save();
                if (step % options.stepsPerEpoch() == 0) {
                    reportEpoch(step / options.stepsPerEpoch(), lossSum);
                    lossSum = 0;
                }
            } catch (JcclException failure) {
                goOnWithTheSurvivors(failure, step);
                lossSum = 0;
            }
        }
        if (comm.rank() == 0) {
            if (elastic.weightsOut() != null) TrainingState.writeWeights(elastic.weightsOut(), model.params);
            System.out.printf(
                    Locale.ROOT,
                    "finished on %d rank%s (%d lost); %s%n",
                    comm.size(),
                    comm.size() == 1 ? "" : "s",
                    lostRanks,
                    DataParallelTraining.fingerprint(model.params));
        }
        return model.params.clone();
    }

    /** Ranks average the epoch's training loss; on a failure here too the survivors shrink and report again. */
    private void reportEpoch(int epoch, double lossSum) {
        double[] mean = {lossSum / options.stepsPerEpoch()};
        try {
            comm.allReduce(mean, ReduceOp.AVG);
        } catch (JcclException failure) {
            goOnWithTheSurvivors(failure, epoch * options.stepsPerEpoch());
            return;
        }
        if (comm.rank() == 0) {
            System.out.printf(
                    Locale.ROOT,
                    "epoch %d/%d: train loss %.4f (%d ranks)%n",
                    epoch,
                    options.epochs(),
                    mean[0],
                    comm.size());
        }
    }

    /**
     * The step failed: puts back the last completed step's weights and momentum, shrinks the communicator to the
     * survivors and makes a trainer that splits each batch over them, starting again at {@code step}.
     */
    private void goOnWithTheSurvivors(JcclException failure, int step) {
        if (!elastic.elastic()) throw failure;
        FailureVerdict verdict = failure.verdict();
        restore();
        Communicator failed = comm;
        Communicator survivors = failed.shrink();
        if (failed != original) failed.close(); // an earlier shrink's: ours to close; the caller closes its own
        lostRanks += failed.size() - survivors.size();
        comm = survivors;
        if (options.batch() % comm.size() != 0) {
            throw new JcclException("--batch " + options.batch() + " does not split evenly over the " + comm.size()
                    + " surviving ranks; use a batch that divides by every number of ranks the job may shrink to");
        }
        trainer = trainerOn(comm, step);
        if (comm.rank() == 0) {
            System.out.printf(
                    Locale.ROOT,
                    "step %d: lost rank(s) %s (%s); the %d survivors shrank the communicator"
                            + " and go on from step %d with %d samples each%n",
                    step,
                    verdict == null ? "?" : verdict.culprits(),
                    verdict == null ? failure.getMessage() : verdict.explanation(),
                    comm.size(),
                    step,
                    options.batch() / comm.size());
            if (elastic.saveState() != null) {
                new TrainingState(step, model.params.clone(), velocity.clone()).write(elastic.saveState());
            }
        }
    }

    private DataParallelTrainer trainerOn(Communicator c, int step) {
        return new DataParallelTrainer(
                options,
                data,
                c.rank(),
                c.size(),
                model,
                new BucketedAllReduce(c, model.grads, options.bucketBytes()),
                velocity,
                step);
    }

    private void save() {
        System.arraycopy(model.params, 0, savedParams, 0, savedParams.length);
        System.arraycopy(velocity, 0, savedVelocity, 0, savedVelocity.length);
    }

    private void restore() {
        System.arraycopy(savedParams, 0, model.params, 0, savedParams.length);
        System.arraycopy(savedVelocity, 0, velocity, 0, savedVelocity.length);
    }

    /** Fault injection: SIGKILL to this process, as an OOM killer or a lost node would do it. */
    private static void killThisProcess(int step) {
        System.out.printf(Locale.ROOT, "step %d: killing this rank with SIGKILL (--kill-rank)%n", step);
        System.out.flush();
        try {
            new ProcessBuilder(
                            "kill", "-9", Long.toString(ProcessHandle.current().pid()))
                    .start()
                    .waitFor();
            Thread.sleep(60_000); // the signal is on its way
        } catch (IOException | InterruptedException e) {
            Runtime.getRuntime().halt(137);
        }
        Runtime.getRuntime().halt(137);
    }
}
