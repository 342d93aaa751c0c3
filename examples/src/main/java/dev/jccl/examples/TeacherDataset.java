package dev.jccl.examples;

import java.util.SplittableRandom;

/**
 * A classification problem generated from a seed, the same on every rank and every run, shaped like real data: each
 * sample has a few hidden causes, a {@value #LATENT}-dimensional standard normal vector {@code u}, seen through a fixed
 * random linear map into {@code inputs} features plus noise ({@code x = M·u + 0.5·ε}); its label is the class that a
 * fixed random "teacher" network ({@code u} → {@value #TEACHER_HIDDEN} tanh units → classes, weights of a scale that
 * keeps it mildly non-linear) scores highest. A student MLP learns it well but not instantly, which is what a training
 * example needs; no download, no files.
 *
 * <p>Sample {@code i} is drawn from its own random stream, seeded from {@code (seed, i)}, so a sample does not depend
 * on how many are generated or by whom. Samples {@code [0, trainSamples)} are the training set, the next
 * {@code testSamples} the held-out set.
 */
final class TeacherDataset {
    static final int LATENT = 16;
    static final int TEACHER_HIDDEN = 32;
    private static final double NOISE = 0.5;

    final int inputs;
    final int classes;
    final int trainSamples;
    final int testSamples;
    /** Row-major, {@code inputs} floats per sample, training samples first. */
    final float[] features;

    final int[] labels;

    TeacherDataset(long seed, int inputs, int classes, int trainSamples, int testSamples) {
        this.inputs = inputs;
        this.classes = classes;
        this.trainSamples = trainSamples;
        this.testSamples = testSamples;
        int n = trainSamples + testSamples;
        features = new float[Math.multiplyExact(n, inputs)];
        labels = new int[n];

        SplittableRandom fixed = new SplittableRandom(mix(seed, -1));
        double[] view = gaussians(fixed, inputs * LATENT, 1.0 / Math.sqrt(LATENT));
        double[] w1 = gaussians(fixed, LATENT * TEACHER_HIDDEN, 0.5 / Math.sqrt(LATENT));
        double[] w2 = gaussians(fixed, TEACHER_HIDDEN * classes, 1.0);
        double[] u = new double[LATENT];
        double[] h = new double[TEACHER_HIDDEN];
        for (int s = 0; s < n; s++) {
            SplittableRandom r = new SplittableRandom(mix(seed, s));
            for (int k = 0; k < LATENT; k++) u[k] = r.nextGaussian();
            int x = s * inputs;
            for (int i = 0; i < inputs; i++) {
                double v = NOISE * r.nextGaussian();
                for (int k = 0; k < LATENT; k++) v += view[i * LATENT + k] * u[k];
                features[x + i] = (float) v;
            }
            for (int j = 0; j < TEACHER_HIDDEN; j++) {
                double z = 0;
                for (int k = 0; k < LATENT; k++) z += u[k] * w1[k * TEACHER_HIDDEN + j];
                h[j] = Math.tanh(z);
            }
            int best = 0;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < classes; c++) {
                double score = 0;
                for (int j = 0; j < TEACHER_HIDDEN; j++) score += h[j] * w2[j * classes + c];
                if (score > bestScore) {
                    bestScore = score;
                    best = c;
                }
            }
            labels[s] = best;
        }
    }

    static TeacherDataset of(TrainingOptions o) {
        return new TeacherDataset(o.seed(), o.inputs(), o.classes(), o.trainSamples(), o.testSamples());
    }

    private static double[] gaussians(SplittableRandom r, int n, double scale) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) a[i] = r.nextGaussian() * scale;
        return a;
    }

    /**
     * A seed for stream {@code i} of {@code seed}: SplitMix64's finaliser over both, so nearby inputs give unrelated
     * seeds.
     */
    static long mix(long seed, long i) {
        long z = seed * 0x9E3779B97F4A7C15L + i * 0xC2B2AE3D27D4EB4FL + 0x165667B19E3779F9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
