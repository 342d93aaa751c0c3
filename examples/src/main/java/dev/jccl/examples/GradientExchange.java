package dev.jccl.examples;

/**
 * What a training step does with its gradients between the backward pass and the update: in data parallel training,
 * average them over the ranks. The step calls {@link #beginStep}, then {@link #gradientsReady} as the backward pass
 * finishes gradients, then {@link #finishStep}, after which the gradients must be the ones to apply. Both ways of
 * timing the exchange must give the same gradients.
 */
interface GradientExchange {
    /** Keeps each rank's own gradients: a single process, or ranks that (wrongly) never talk. */
    GradientExchange NONE = new GradientExchange() {
        @Override
        public void beginStep(boolean overlap) {}

        @Override
        public void gradientsReady(int end) {}

        @Override
        public void finishStep() {}
    };

    /**
     * A new step's backward pass is about to start.
     *
     * @param overlap whether to start exchanging gradients while the pass runs (as they are reported ready) or only in
     *     {@link #finishStep}
     */
    void beginStep(boolean overlap);

    /** Gradients {@code [0, end)} are final for this step; {@code end} only grows within a step. */
    void gradientsReady(int end);

    /** The backward pass is over: returns once every gradient holds its final value. */
    void finishStep();
}
