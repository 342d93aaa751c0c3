package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import dev.jccl.transport.FrameHeader;

/**
 * One operation as error messages and frame headers describe it: which collective, its arguments, its sequence number,
 * and when it started.
 *
 * <p>{@code root} is the root, the peer of a Send/Recv, or the peer a SendRecv sends to; {@code recvPeer} is the peer a
 * SendRecv receives from (-1 otherwise). {@code sequence} numbers the operation among the communicator's collectives, a
 * Send/Recv among the messages of its ordered pair of ranks, and a SendRecv's send half among those to {@code root};
 * {@code recvSequence} numbers a SendRecv's receive half among the messages from {@code recvPeer} (-1 otherwise).
 */
record OpContext(
        Collective collective,
        long count,
        DataType type,
        ReduceOp op,
        int root,
        int recvPeer,
        long sequence,
        long recvSequence,
        long startNanos) {

    /** Any operation but SendRecv. */
    OpContext(Collective collective, long count, DataType type, ReduceOp op, int root, long sequence, long startNanos) {
        this(collective, count, type, op, root, -1, sequence, -1, startNanos);
    }

    /**
     * The header of a chunk this rank sends at {@code step}, which is also the header the peer expects: both sides of a
     * transfer compute it from their own calls. A Send and its Recv share one wire form (the collective SEND, no root),
     * their sequence counting messages of that ordered pair; each half of a SendRecv has that form too, so it matches a
     * plain Send or Recv.
     */
    FrameHeader sendHeader(int step, long bytes) {
        return header(step, bytes, sequence);
    }

    /** The header this rank expects on a chunk it receives at {@code step}; see {@link #sendHeader}. */
    FrameHeader recvHeader(int step, long bytes) {
        return header(step, bytes, collective == Collective.SEND_RECV ? recvSequence : sequence);
    }

    private FrameHeader header(int step, long bytes, long seq) {
        boolean p2p = isPointToPoint();
        return new FrameHeader(
                p2p ? Collective.SEND.ordinal() : collective.ordinal(),
                type.ordinal(),
                op == null ? FrameHeader.NO_OP : op.ordinal(),
                step,
                p2p ? -1 : root,
                seq,
                bytes,
                count);
    }

    /** True for the collectives, which {@link #sequence} numbers among themselves. */
    boolean isCollective() {
        return !isPointToPoint();
    }

    private boolean isPointToPoint() {
        return collective.isPointToPoint();
    }

    /**
     * The operation's signature in one word, which ranks compare to catch mismatched calls: collective, type and op in
     * the low three bytes, {@code root + 1} in the next four, and {@link #NEEDS_EVERY_RANK} for collectives that no
     * rank can finish without every other. The count travels beside it.
     */
    long descriptor() {
        boolean everyRank = switch (collective) {
            case ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> true;
            default -> false;
        };
        return descriptor(collective.ordinal(), type.ordinal(), op == null ? 0xFF : op.ordinal(), root)
                | (everyRank ? NEEDS_EVERY_RANK : 0);
    }

    /** Descriptor bit: the operation cannot finish on any rank until every rank has joined it. */
    static final long NEEDS_EVERY_RANK = dev.jccl.transport.OperationBoard.NEEDS_EVERY_RANK;

    static long descriptor(int collective, int type, int op, int root) {
        return (collective & 0xFF)
                | (type & 0xFF) << 8
                | (long) (op & 0xFF) << 16
                | ((long) root + 1 & 0xFFFF_FFFFL) << 24;
    }

    /** Describes an operation from its {@link #descriptor()} and count: {@code AllReduce #12 (1000 × FLOAT32, SUM)}. */
    static String describe(long sequence, long descriptor, long count) {
        int coll = (int) (descriptor & 0xFF);
        int type = (int) (descriptor >>> 8 & 0xFF);
        int op = (int) (descriptor >>> 16 & 0xFF);
        int root = (int) (descriptor >>> 24 & 0xFFFF_FFFFL) - 1;
        Collective[] cs = Collective.values();
        DataType[] ts = DataType.values();
        StringBuilder sb = new StringBuilder(coll < cs.length ? cs[coll].displayName() : "collective " + coll)
                .append(" #")
                .append(sequence)
                .append(" (")
                .append(count)
                .append(" × ")
                .append(type < ts.length ? ts[type].name() : "type " + type);
        if (op < ReduceOp.values().length) sb.append(", ").append(ReduceOp.values()[op]);
        if (root >= 0) sb.append(", root ").append(root);
        return sb.append(')').toString();
    }

    /** {@code AllReduce #12 (1000 × FLOAT32, SUM)}; {@code SendRecv #3/#5 (100 × FLOAT32, to 1, from 2)}. */
    String describe() {
        StringBuilder sb =
                new StringBuilder(collective.displayName()).append(" #").append(sequence);
        if (collective == Collective.SEND_RECV) sb.append("/#").append(recvSequence);
        sb.append(" (").append(count).append(" × ").append(type);
        if (op != null) sb.append(", ").append(op);
        if (collective == Collective.SEND_RECV) {
            sb.append(", to ").append(root).append(", from ").append(recvPeer);
        } else if (collective == Collective.SEND || collective == Collective.RECV) {
            sb.append(", peer ").append(root);
        } else if (root >= 0) {
            sb.append(", root ").append(root);
        }
        return sb.append(')').toString();
    }

    /**
     * Describes what a peer's header says it is doing: {@code AllReduce #3 (101 × FLOAT32, SUM) step 0 with 404 bytes}.
     */
    static String describe(FrameHeader h) {
        if (h == null) return "bytes that are not a Jccl frame";
        Collective[] cs = Collective.values();
        DataType[] ts = DataType.values();
        String coll = h.collective() < cs.length ? cs[h.collective()].displayName() : "collective " + h.collective();
        String type = h.dataType() < ts.length ? ts[h.dataType()].name() : "type " + h.dataType();
        String op = h.op() == FrameHeader.NO_OP || h.op() >= ReduceOp.values().length
                ? ""
                : ", " + ReduceOp.values()[h.op()];
        String root = h.root() >= 0 ? ", root " + h.root() : "";
        return coll + " #" + h.sequence() + " (" + h.count() + " × " + type + op + root + ") step " + h.step()
                + " with " + h.length() + " bytes";
    }

    /** This operation, started at {@code nanos} instead (see {@link Sequencer#CLOCK_REUSE_MAX}). */
    OpContext startedAt(long nanos) {
        return new OpContext(collective, count, type, op, root, recvPeer, sequence, recvSequence, nanos);
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
