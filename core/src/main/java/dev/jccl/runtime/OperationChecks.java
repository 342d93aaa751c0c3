package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.plan.Collective;
import java.lang.foreign.MemorySegment;

/**
 * Builds an {@link Operation} from a call's arguments and checks them, in one place for host and device memory alike
 * (NCCL's argcheck): a bad call throws {@link IllegalArgumentException} on the calling rank before anything is numbered
 * or sent, and the communicator stays usable.
 *
 * <p>Broadcast reads {@code send} only at the root and Reduce writes {@code recv} only at the root, but a buffer that
 * is passed is checked on every rank: the same bad call then fails the same way everywhere instead of on the root
 * alone, which would leave its peers waiting. A rank with no use for the buffer may pass null.
 */
public final class OperationChecks {
    /** Says which kind of memory a segment is; throws (through {@code check}) for memory no executor here can use. */
    @FunctionalInterface
    public interface MemoryKinds {
        MemoryKinds HOST_ONLY = (segment, check, name) -> MemoryKind.HOST;

        MemoryKind kindOf(MemorySegment segment, ArgumentChecks check, String name);
    }

    private final int rank;
    private final int size;
    private volatile MemoryKinds kinds = MemoryKinds.HOST_ONLY;

    public OperationChecks(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    /** From now on, segments are classified by {@code k} (a device executor was attached). */
    void classifyWith(MemoryKinds k) {
        kinds = k;
    }

    public Operation allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        ArgumentChecks check = checks("AllReduce", count, "count", type);
        check.op(op);
        Buffers b = sameSize(check, send, recv, check.bytes(count, 1, type), new Shape(count, type));
        return new Operation(Collective.ALL_REDUCE, b.send(), b.recv(), count, type, op, -1, -1, kindOf(check, b));
    }

    public Operation broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        ArgumentChecks check = checks("Broadcast", count, "count", type);
        check.rankInRange(root, size, "root");
        Buffers b = rooted(check, send, recv, check.bytes(count, 1, type), new Shape(count, type), true, rank == root);
        MemorySegment source = rank == root ? b.send() : b.recv(); // only the root's send is read
        return new Operation(Collective.BROADCAST, source, b.recv(), count, type, null, root, -1, kindOf(check, b));
    }

    public Operation reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        ArgumentChecks check = checks("Reduce", count, "count", type);
        check.op(op);
        check.rankInRange(root, size, "root");
        Buffers b = rooted(check, send, recv, check.bytes(count, 1, type), new Shape(count, type), false, rank == root);
        MemorySegment target = rank == root ? b.recv() : b.send(); // only the root's recv is written
        return new Operation(Collective.REDUCE, b.send(), target, count, type, op, root, -1, kindOf(check, b));
    }

    public Operation allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        ArgumentChecks check = checks("AllGather", sendCount, "sendCount", type);
        long block = check.bytes(sendCount, 1, type);
        long total = check.bytes(sendCount, size, type);
        check.readable(send, block, "send", new Shape(sendCount, type));
        check.writable(recv, total, "recv", new Shape(size, sendCount, type));
        MemorySegment s = prefix(send, block);
        MemorySegment r = prefix(recv, total);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r.asSlice(rank * block, block)));
        return new Operation(Collective.ALL_GATHER, s, r, sendCount, type, null, -1, -1, kindOf(check, s, r));
    }

    public Operation reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        ArgumentChecks check = checks("ReduceScatter", recvCount, "recvCount", type);
        check.op(op);
        long block = check.bytes(recvCount, 1, type);
        long total = check.bytes(recvCount, size, type);
        check.readable(send, total, "send", new Shape(size, recvCount, type));
        check.writable(recv, block, "recv", new Shape(recvCount, type));
        MemorySegment s = prefix(send, total);
        MemorySegment r = prefix(recv, block);
        check.inPlaceOrDisjoint(s, r, Memory.same(r, s.asSlice(rank * block, block)));
        return new Operation(Collective.REDUCE_SCATTER, s, r, recvCount, type, op, -1, -1, kindOf(check, s, r));
    }

    public Operation allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        ArgumentChecks check = checks("AllToAll", countPerPeer, "countPerPeer", type);
        long total = check.bytes(countPerPeer, size, type);
        Buffers b = sameSize(check, send, recv, total, new Shape(size, countPerPeer, type));
        return new Operation(
                Collective.ALL_TO_ALL, b.send(), b.recv(), countPerPeer, type, null, -1, -1, kindOf(check, b));
    }

    public Operation send(MemorySegment buf, long count, DataType type, int peer) {
        return pointToPoint(Collective.SEND, buf, count, type, peer);
    }

    public Operation recv(MemorySegment buf, long count, DataType type, int peer) {
        return pointToPoint(Collective.RECV, buf, count, type, peer);
    }

    private Operation pointToPoint(Collective kind, MemorySegment buf, long count, DataType type, int peer) {
        ArgumentChecks check = checks(kind.displayName(), count, "count", type);
        check.rankInRange(peer, size, "peer");
        check.notSelf(peer);
        long bytes = check.bytes(count, 1, type);
        String name = kind == Collective.SEND ? "send" : "recv";
        if (kind == Collective.SEND) check.readable(buf, bytes, name, new Shape(count, type));
        else check.writable(buf, bytes, name, new Shape(count, type));
        MemorySegment b = prefix(buf, bytes);
        return new Operation(
                kind, b, b, count, type, null, peer, -1, bytes == 0 ? MemoryKind.HOST : kinds.kindOf(b, check, name));
    }

    /**
     * Both peers may be this rank (a local copy, as MPI allows), or neither; one but not the other is almost certainly
     * a mistake in the caller's peer arithmetic, so it is refused.
     */
    public Operation sendRecv(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        ArgumentChecks check = checks("SendRecv", count, "count", type);
        check.rankInRange(sendPeer, size, "sendPeer");
        check.rankInRange(recvPeer, size, "recvPeer");
        check.selfBothWaysOrNeither(sendPeer, recvPeer);
        Buffers b = sameSize(check, send, recv, check.bytes(count, 1, type), new Shape(count, type));
        return new Operation(
                Collective.SEND_RECV, b.send(), b.recv(), count, type, null, sendPeer, recvPeer, kindOf(check, b));
    }

    /** Checks of a call named {@code call}, its element count and type already checked (the first checks of all). */
    private ArgumentChecks checks(String call, long count, String countName, DataType type) {
        ArgumentChecks check = new ArgumentChecks(call, rank);
        check.count(count, countName);
        check.type(type);
        return check;
    }

    /** A call's buffers, sliced to the bytes it uses. */
    private record Buffers(MemorySegment send, MemorySegment recv) {}

    /**
     * Checks and slices the buffers of a call that reads and writes {@code bytes} of each ({@code what} describes
     * them): they may be the same memory, or apart, but must not partly overlap.
     */
    private static Buffers sameSize(
            ArgumentChecks check, MemorySegment send, MemorySegment recv, long bytes, Shape what) {
        MemorySegment s = checked(check, send, true, bytes, what);
        MemorySegment r = checked(check, recv, false, bytes, what);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Buffers(s, r);
    }

    /**
     * Checks and slices the buffers of a rooted call that reads and writes {@code bytes}: Broadcast ({@code rootSends}:
     * only the root reads send) or Reduce (only the root writes recv). The buffer every rank uses is checked first; the
     * root-only one is checked wherever it is passed (see the class comment), and must then be the same memory as the
     * other or apart from it; a non-root that passes null gets the other buffer in its place.
     */
    private static Buffers rooted(
            ArgumentChecks check,
            MemorySegment send,
            MemorySegment recv,
            long bytes,
            Shape what,
            boolean rootSends,
            boolean isRoot) {
        MemorySegment used = checked(check, rootSends ? recv : send, !rootSends, bytes, what);
        MemorySegment rootOnly = rootSends ? send : recv;
        if (rootOnly == null && !isRoot) return new Buffers(used, used);
        MemorySegment other = checked(check, rootOnly, rootSends, bytes, what);
        Buffers b = rootSends ? new Buffers(other, used) : new Buffers(used, other);
        check.inPlaceOrDisjoint(b.send(), b.recv(), Memory.same(b.send(), b.recv()));
        return b;
    }

    /** {@code seg} checked as a call's send ({@code isSend}) or recv buffer of {@code bytes}, sliced to them. */
    private static MemorySegment checked(
            ArgumentChecks check, MemorySegment seg, boolean isSend, long bytes, Shape what) {
        if (isSend) check.readable(seg, bytes, "send", what);
        else check.writable(seg, bytes, "recv", what);
        return prefix(seg, bytes);
    }

    /**
     * The first {@code bytes} of {@code seg}: {@code seg} itself where that is all of it, as it is for most calls, so
     * that a small operation makes no new segment. The checks of a 2-rank 8-byte Broadcast took 4.7-7.9% of its CPU
     * time with the slice and 2.5-3.5% without (async-profiler, 2026-11-29).
     */
    private static MemorySegment prefix(MemorySegment seg, long bytes) {
        return seg.byteSize() == bytes ? seg : seg.asSlice(0, bytes);
    }

    private MemoryKind kindOf(ArgumentChecks check, Buffers b) {
        return kindOf(check, b.send(), b.recv());
    }

    /** For async calls: the progress thread must be able to touch the caller's segments. */
    void accessibleFrom(Operation op, MemorySegment send, MemorySegment recv, Thread worker) {
        ArgumentChecks check = new ArgumentChecks(op.collective().displayName() + "Async", rank);
        check.accessibleFrom(send, worker, "send");
        check.accessibleFrom(recv, worker, "recv");
    }

    /**
     * Both buffers' kind, which must be the same: an operation runs on one executor. An operation of no bytes runs on
     * the host path whatever its buffers, so that every rank (whose counts agree) takes the same path even where some
     * pass an empty device buffer and others a null address.
     */
    private MemoryKind kindOf(ArgumentChecks check, MemorySegment send, MemorySegment recv) {
        MemoryKinds k = kinds;
        if (k == MemoryKinds.HOST_ONLY || send.byteSize() == 0 && recv.byteSize() == 0) return MemoryKind.HOST;
        MemoryKind s = k.kindOf(send, check, "send");
        MemoryKind r = send == recv ? s : k.kindOf(recv, check, "recv");
        if (s != r) {
            throw check.bad("send is " + describe(s) + " but recv is " + describe(r)
                    + "; pass both buffers on the device, or both on the host");
        }
        return s;
    }

    private static String describe(MemoryKind kind) {
        return kind == MemoryKind.DEVICE ? "device memory" : "host memory";
    }
}
