package dev.jccl.runtime;

/**
 * Where this rank is, for the ranks that compare notes after a failure ({@link FailureAgreement}): the operation it is
 * in, if any, how many collectives it has completed, and why it failed. Written by the thread running operations (two
 * volatile writes an operation), read by the control channel's threads at any time, even while an operation is stuck.
 */
final class RankActivity {
    private volatile OpContext current;
    private volatile long collectivesCompleted;
    private volatile String failure = "";

    void started(OpContext ctx) {
        current = ctx;
    }

    void completed(OpContext ctx) {
        if (ctx.isCollective()) collectivesCompleted = ctx.sequence() + 1;
        current = null;
    }

    /** The operation stays current: it is where this rank stopped. */
    void failed(String why) {
        failure = why;
    }

    RankStatus snapshot(int rank) {
        OpContext op = current;
        long completed = collectivesCompleted;
        if (op == null) return RankStatus.idle(rank, completed, failure);
        return new RankStatus(
                rank,
                op.isCollective() ? op.sequence() : -1,
                op.descriptor(),
                op.count(),
                op.describe(),
                System.nanoTime() - op.startNanos(),
                completed,
                failure);
    }
}
