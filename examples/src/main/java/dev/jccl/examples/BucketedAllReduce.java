package dev.jccl.examples;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Averages gradients over the ranks in buckets, the way PyTorch's DistributedDataParallel does: the flat gradient array
 * (laid out in backward order, see {@link Mlp}) is cut into consecutive slices of at most {@code bucketBytes}, and each
 * slice is one in-place {@link Communicator#allReduceAsync AllReduce} with {@link ReduceOp#AVG}.
 *
 * <p>With overlap on, a bucket's AllReduce starts the moment the backward pass reports its last gradient, and runs on
 * the communicator's progress thread while the pass computes the layers below; with overlap off, all of them start when
 * the pass is over. Either way the buckets, their order and so the arithmetic are the same, so both give bitwise the
 * same gradients. Every rank launches the same buckets in the same order, as Jccl (like NCCL) requires.
 *
 * <p>Also keeps the time of the current step's communication: when the first bucket started and when the last one
 * completed.
 */
final class BucketedAllReduce implements GradientExchange {
    private final Communicator comm;
    private final MemorySegment gradients;
    /** Bucket k is [bounds[k], bounds[k + 1]) in elements. */
    private final int[] bounds;

    private boolean overlap;
    private final CompletableFuture<?>[] pending;
    private int launched;
    private long firstStartNanos;
    /** Written on the progress thread when a bucket completes; read after waiting on the bucket. */
    private final long[] doneNanos;

    BucketedAllReduce(Communicator comm, float[] gradients, int bucketBytes) {
        this.comm = comm;
        this.gradients = MemorySegment.ofArray(gradients);
        int perBucket = Math.max(1, bucketBytes / Float.BYTES);
        int n = (gradients.length + perBucket - 1) / perBucket;
        bounds = new int[n + 1];
        for (int k = 0; k < n; k++) bounds[k] = k * perBucket;
        bounds[n] = gradients.length;
        pending = new CompletableFuture<?>[n];
        doneNanos = new long[n];
    }

    int buckets() {
        return pending.length;
    }

    @Override
    public void beginStep(boolean overlap) {
        this.overlap = overlap;
        launched = 0;
    }

    @Override
    public void gradientsReady(int end) {
        if (!overlap) return;
        while (launched < pending.length && bounds[launched + 1] <= end) launch(launched++);
    }

    @Override
    public void finishStep() {
        while (launched < pending.length) launch(launched++);
        for (int k = 0; k < pending.length; k++) {
            try {
                pending[k].join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof JcclException j) throw j;
                throw e;
            }
            pending[k] = null;
        }
    }

    /**
     * Nanoseconds from the start of this step's first AllReduce to the completion of its last (after
     * {@link #finishStep}).
     */
    long inFlightNanos() {
        return doneNanos[pending.length - 1] - firstStartNanos;
    }

    private void launch(int k) {
        long now = System.nanoTime();
        if (k == 0) firstStartNanos = now;
        MemorySegment slice =
                gradients.asSlice((long) bounds[k] * Float.BYTES, (long) (bounds[k + 1] - bounds[k]) * Float.BYTES);
        // whenComplete's future completes after the time is written, so waiting on it makes the write visible.
        pending[k] = comm.allReduceAsync(slice, slice, bounds[k + 1] - bounds[k], DataType.FLOAT32, ReduceOp.AVG)
                .whenComplete((v, e) -> doneNanos[k] = System.nanoTime());
    }
}
