package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import dev.jccl.transport.FrameHeader;

/**
 * One operation as error messages and frame headers describe it: which collective, its
 * arguments, its sequence number, and when it started.
 */
record OpContext(Collective collective, long count, DataType type, ReduceOp op, int root, long sequence, long startNanos) {

    /**
     * The header this rank sends at {@code step}, which is also the header it expects: both sides
     * of a transfer compute it from the same call. A Send and its Recv share one wire form (the
     * collective SEND, no root), their sequence counting messages of that ordered pair.
     */
    FrameHeader header(int step, long bytes) {
        boolean p2p = collective == Collective.SEND || collective == Collective.RECV;
        return new FrameHeader(p2p ? Collective.SEND.ordinal() : collective.ordinal(), type.ordinal(),
                op == null ? FrameHeader.NO_OP : op.ordinal(), step, p2p ? -1 : root, sequence, bytes);
    }

    /** {@code AllReduce #12 (1000 × FLOAT32, SUM)}. */
    String describe() {
        StringBuilder sb = new StringBuilder(collective.displayName()).append(" #").append(sequence).append(" (").append(count)
                .append(" × ").append(type);
        if (op != null) sb.append(", ").append(op);
        if (collective == Collective.SEND || collective == Collective.RECV) sb.append(", peer ").append(root);
        else if (root >= 0) sb.append(", root ").append(root);
        return sb.append(')').toString();
    }

    /** Describes what a peer's header says it is doing. */
    static String describe(FrameHeader h) {
        if (h == null) return "bytes that are not a Jccl frame";
        Collective[] cs = Collective.values();
        DataType[] ts = DataType.values();
        String coll = h.collective() < cs.length ? cs[h.collective()].displayName() : "collective " + h.collective();
        String type = h.dataType() < ts.length ? ts[h.dataType()].name() : "type " + h.dataType();
        String op = h.op() == FrameHeader.NO_OP || h.op() >= ReduceOp.values().length ? "" : ", " + ReduceOp.values()[h.op()];
        String root = h.root() >= 0 ? ", root " + h.root() : "";
        return coll + " #" + h.sequence() + " (" + type + op + root + ") step " + h.step() + " with " + h.length() + " bytes";
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
