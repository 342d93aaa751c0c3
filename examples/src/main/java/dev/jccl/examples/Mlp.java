package dev.jccl.examples;

import java.util.SplittableRandom;
import java.util.function.IntConsumer;

/**
 * A multilayer perceptron in plain Java: fully connected layers, ReLU between them, softmax cross-entropy on top, and a
 * backward pass that hands out its gradients as it finishes them.
 *
 * <h2>One flat array, in backward order</h2>
 *
 * All parameters live in {@link #params}, all gradients at the same offsets in {@link #grads}, laid out in the order
 * the backward pass produces them, last layer first:
 *
 * <pre>
 *  0                                                                                       P
 *  | b[L-1] | W[L-1] | b[L-2] | W[L-2] |  …  | b[0] | W[0] |
 *    W[l] is in(l) × out(l), row-major: row i holds the weights from input unit i
 *  ──────────────────────────────────────────────────────────▶ backward pass writes this way
 * </pre>
 *
 * So "the gradients are final up to offset {@code k}" is one number, which the backward pass reports (through
 * {@code readyUpTo}) after each row of a weight gradient. A bucket of gradients is then a slice {@code [start, end)} of
 * {@link #grads} that can be reduced in place as soon as {@code end} has been reported, while the pass goes on below
 * it: the pass never writes to a slice it has reported, and reads only {@link #params}.
 *
 * <h2>Determinism</h2>
 *
 * Every sum runs in a fixed order that does not depend on the batch size or on which samples share a batch, so a
 * sample's activations are bitwise the same whether it is in a shard or in the whole batch; only the sums over samples
 * (the gradients) round differently.
 *
 * <p>Not thread-safe: one model per rank.
 */
final class Mlp {
    private final int[] widths;
    private final int layers;
    private final int[] weightOffset;
    private final int[] biasOffset;
    /** Parameters; see the class comment for the layout. */
    final float[] params;
    /** Gradients of the mean loss over the last batch, laid out like {@link #params}. */
    final float[] grads;

    private int capacity;
    /** act[0]: the input batch; act[l]: the output of layer l-1 (after ReLU; logits for the last). */
    private float[][] act;
    /** Gradient of the loss with respect to layer l's pre-activation output, per sample. */
    private float[][] delta;

    /** He-initialised weights (from {@code seed}) and zero biases. */
    Mlp(int[] widths, long seed) {
        if (widths.length < 2) throw new IllegalArgumentException("need at least an input and an output width");
        this.widths = widths.clone();
        this.layers = widths.length - 1;
        weightOffset = new int[layers];
        biasOffset = new int[layers];
        long offset = 0;
        for (int l = layers - 1; l >= 0; l--) {
            biasOffset[l] = (int) offset;
            offset += widths[l + 1];
            weightOffset[l] = (int) offset;
            offset += (long) widths[l] * widths[l + 1];
            if (offset > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("model too large for one array");
        }
        params = new float[(int) offset];
        grads = new float[(int) offset];
        SplittableRandom r = new SplittableRandom(TeacherDataset.mix(seed, Long.MIN_VALUE));
        for (int l = 0; l < layers; l++) {
            double scale = Math.sqrt(2.0 / widths[l]);
            int n = widths[l] * widths[l + 1];
            for (int k = 0; k < n; k++) params[weightOffset[l] + k] = (float) (r.nextGaussian() * scale);
        }
    }

    int parameterCount() {
        return params.length;
    }

    int inputs() {
        return widths[0];
    }

    int classes() {
        return widths[layers];
    }

    /** The input buffer for a batch of {@code batch} samples, {@link #inputs()} floats per sample. */
    float[] input(int batch) {
        ensureCapacity(batch);
        return act[0];
    }

    /**
     * Forward and backward over the {@code batch} samples in {@link #input}: leaves in {@link #grads} the gradient of
     * the mean cross-entropy over the batch, and returns that mean loss.
     *
     * @param readyUpTo told {@code k} each time {@code grads[0, k)} is final, with {@code k} growing to
     *     {@code grads.length}; it must not touch {@code grads} beyond {@code k}
     */
    double forwardBackward(int batch, int[] labels, int labelOffset, IntConsumer readyUpTo) {
        forward(batch);
        double loss = softmaxCrossEntropy(batch, labels, labelOffset);
        for (int l = layers - 1; l >= 0; l--) {
            int in = widths[l], out = widths[l + 1];
            float[] a = act[l], d = delta[l + 1];
            if (l < layers - 1) {
                // delta of a hidden layer's output, through its ReLU (act > 0 exactly where z > 0)
                float[] h = act[l + 1];
                for (int k = 0; k < batch * out; k++) {
                    if (h[k] <= 0) d[k] = 0;
                }
            }
            biasGradient(batch, out, d, biasOffset[l]);
            weightGradient(batch, in, out, a, d, weightOffset[l], readyUpTo);
            if (l > 0) inputGradient(batch, in, out, d, weightOffset[l], delta[l]);
        }
        return loss;
    }

    /**
     * Forward only, for evaluation: adds the summed cross-entropy of the {@code batch} samples in {@link #input} to
     * {@code out[0]} and the number classified right to {@code out[1]}.
     */
    void evaluate(int batch, int[] labels, int labelOffset, double[] out) {
        forward(batch);
        float[] z = act[layers];
        int c = classes();
        for (int b = 0; b < batch; b++) {
            int row = b * c, best = 0;
            for (int o = 1; o < c; o++) {
                if (z[row + o] > z[row + best]) best = o;
            }
            int y = labels[labelOffset + b];
            out[0] -= logSoftmax(z, row, c, y);
            if (best == y) out[1]++;
        }
    }

    private void forward(int batch) {
        for (int l = 0; l < layers; l++) {
            int in = widths[l], out = widths[l + 1];
            float[] a = act[l], z = act[l + 1];
            int w = weightOffset[l];
            for (int b = 0; b < batch; b++) System.arraycopy(params, biasOffset[l], z, b * out, out);
            // z[b] += a[b][i] · W[i] for each input unit i: the inner loop is a saxpy the JIT
            // vectorises, and W's row i stays in cache while the batch passes over it.
            for (int i = 0; i < in; i++) {
                int wRow = w + i * out;
                for (int b = 0; b < batch; b++) {
                    float ai = a[b * in + i];
                    if (ai == 0) continue;
                    int zRow = b * out;
                    for (int o = 0; o < out; o++) z[zRow + o] += ai * params[wRow + o];
                }
            }
            if (l < layers - 1) {
                for (int k = 0; k < batch * out; k++) {
                    if (z[k] < 0) z[k] = 0;
                }
            }
        }
    }

    /** Mean cross-entropy over the batch; leaves (softmax − one-hot) / batch in the top delta. */
    private double softmaxCrossEntropy(int batch, int[] labels, int labelOffset) {
        float[] z = act[layers], d = delta[layers];
        int c = classes();
        double loss = 0;
        for (int b = 0; b < batch; b++) {
            int row = b * c, y = labels[labelOffset + b];
            double max = z[row];
            for (int o = 1; o < c; o++) max = Math.max(max, z[row + o]);
            double sum = 0;
            for (int o = 0; o < c; o++) sum += Math.exp(z[row + o] - max);
            for (int o = 0; o < c; o++) {
                double p = Math.exp(z[row + o] - max) / sum;
                d[row + o] = (float) ((p - (o == y ? 1 : 0)) / batch);
            }
            loss -= z[row + y] - max - Math.log(sum);
        }
        return loss / batch;
    }

    private static double logSoftmax(float[] z, int row, int c, int y) {
        double max = z[row];
        for (int o = 1; o < c; o++) max = Math.max(max, z[row + o]);
        double sum = 0;
        for (int o = 0; o < c; o++) sum += Math.exp(z[row + o] - max);
        return z[row + y] - max - Math.log(sum);
    }

    private void biasGradient(int batch, int out, float[] d, int at) {
        System.arraycopy(d, 0, grads, at, out);
        for (int b = 1; b < batch; b++) {
            int row = b * out;
            for (int o = 0; o < out; o++) grads[at + o] += d[row + o];
        }
    }

    /** dW[i] = Σ_b a[b][i] · d[b], row by row, reporting each row (a call per row costs nothing next to the row). */
    private void weightGradient(int batch, int in, int out, float[] a, float[] d, int at, IntConsumer readyUpTo) {
        for (int i = 0; i < in; i++) {
            int gRow = at + i * out;
            java.util.Arrays.fill(grads, gRow, gRow + out, 0f);
            for (int b = 0; b < batch; b++) {
                float ai = a[b * in + i];
                if (ai == 0) continue;
                int dRow = b * out;
                for (int o = 0; o < out; o++) grads[gRow + o] += ai * d[dRow + o];
            }
            readyUpTo.accept(gRow + out);
        }
    }

    /** dA[b][i] = W[i] · d[b]: the delta handed to the layer below (not a parameter gradient). */
    private void inputGradient(int batch, int in, int out, float[] d, int w, float[] dIn) {
        for (int i = 0; i < in; i++) {
            int wRow = w + i * out;
            for (int b = 0; b < batch; b++) dIn[b * in + i] = dot(d, b * out, params, wRow, out);
        }
    }

    /** Four partial sums in a fixed order: deterministic, and four independent add chains for the CPU. */
    private static float dot(float[] x, int xi, float[] y, int yi, int n) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        int k = 0;
        for (; k + 3 < n; k += 4) {
            s0 += x[xi + k] * y[yi + k];
            s1 += x[xi + k + 1] * y[yi + k + 1];
            s2 += x[xi + k + 2] * y[yi + k + 2];
            s3 += x[xi + k + 3] * y[yi + k + 3];
        }
        for (; k < n; k++) s0 += x[xi + k] * y[yi + k];
        return (s0 + s1) + (s2 + s3);
    }

    private void ensureCapacity(int batch) {
        if (batch <= capacity) return;
        act = new float[layers + 1][];
        delta = new float[layers + 1][];
        for (int l = 0; l <= layers; l++) {
            act[l] = new float[batch * widths[l]];
            delta[l] = new float[batch * widths[l]];
        }
        capacity = batch;
    }
}
