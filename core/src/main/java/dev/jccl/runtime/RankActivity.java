package dev.jccl.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Where this rank is, for the ranks that compare notes after a failure ({@link FailureAgreement}): the operation it is
 * in, if any, how many collectives it has completed, and why it failed. Written by the thread running operations, read
 * by the control channel's threads at any time, even while an operation is stuck. The per-operation writes are release
 * stores (plain stores on x86; a volatile store's fence would cost each operation some 10 ns for a reader that comes
 * once, after a failure), read with acquire.
 */
final class RankActivity {
    private OpContext current;
    private long collectivesCompleted;
    private volatile String failure = "";

    private static final VarHandle CURRENT;
    private static final VarHandle COMPLETED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CURRENT = lookup.findVarHandle(RankActivity.class, "current", OpContext.class);
            COMPLETED = lookup.findVarHandle(RankActivity.class, "collectivesCompleted", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    void started(OpContext ctx) {
        CURRENT.setRelease(this, ctx);
    }

    void completed(OpContext ctx) {
        if (ctx.isCollective()) COMPLETED.setRelease(this, ctx.sequence() + 1);
        CURRENT.setRelease(this, null);
    }

    /** The operation stays current: it is where this rank stopped. */
    void failed(String why) {
        failure = why;
    }

    RankStatus snapshot(int rank) {
        OpContext op = (OpContext) CURRENT.getAcquire(this);
        long completed = (long) COMPLETED.getAcquire(this);
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
