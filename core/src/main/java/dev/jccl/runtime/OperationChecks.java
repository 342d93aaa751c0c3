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
        ArgumentChecks check = new ArgumentChecks("AllReduce", rank);
        check.count(count, "count");
        check.type(type);
        check.op(op);
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = recv.asSlice(0, bytes);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Operation(Collective.ALL_REDUCE, s, r, count, type, op, -1, -1, kindOf(check, s, r));
    }

    public Operation broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        ArgumentChecks check = new ArgumentChecks("Broadcast", rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(root, size, "root");
        long bytes = check.bytes(count, 1, type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment r = recv.asSlice(0, bytes);
        MemorySegment s = r;
        if (send != null || rank == root) {
            check.readable(send, bytes, "send", count + " × " + type);
            s = send.asSlice(0, bytes);
            check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        }
        return new Operation(
                Collective.BROADCAST, rank == root ? s : r, r, count, type, null, root, -1, kindOf(check, s, r));
    }

    public Operation reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        ArgumentChecks check = new ArgumentChecks("Reduce", rank);
        check.count(count, "count");
        check.type(type);
        check.op(op);
        check.rankInRange(root, size, "root");
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = s;
        if (recv != null || rank == root) {
            check.writable(recv, bytes, "recv", count + " × " + type);
            r = recv.asSlice(0, bytes);
            check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        }
        return new Operation(
                Collective.REDUCE, s, rank == root ? r : s, count, type, op, root, -1, kindOf(check, s, r));
    }

    public Operation allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        ArgumentChecks check = new ArgumentChecks("AllGather", rank);
        check.count(sendCount, "sendCount");
        check.type(type);
        long block = check.bytes(sendCount, 1, type);
        long total = check.bytes(sendCount, size, type);
        check.readable(send, block, "send", sendCount + " × " + type);
        check.writable(recv, total, "recv", size + " ranks × " + sendCount + " × " + type);
        MemorySegment s = send.asSlice(0, block);
        MemorySegment r = recv.asSlice(0, total);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r.asSlice(rank * block, block)));
        return new Operation(Collective.ALL_GATHER, s, r, sendCount, type, null, -1, -1, kindOf(check, s, r));
    }

    public Operation reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        ArgumentChecks check = new ArgumentChecks("ReduceScatter", rank);
        check.count(recvCount, "recvCount");
        check.type(type);
        check.op(op);
        long block = check.bytes(recvCount, 1, type);
        long total = check.bytes(recvCount, size, type);
        check.readable(send, total, "send", size + " ranks × " + recvCount + " × " + type);
        check.writable(recv, block, "recv", recvCount + " × " + type);
        MemorySegment s = send.asSlice(0, total);
        MemorySegment r = recv.asSlice(0, block);
        check.inPlaceOrDisjoint(s, r, Memory.same(r, s.asSlice(rank * block, block)));
        return new Operation(Collective.REDUCE_SCATTER, s, r, recvCount, type, op, -1, -1, kindOf(check, s, r));
    }

    public Operation allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        ArgumentChecks check = new ArgumentChecks("AllToAll", rank);
        check.count(countPerPeer, "countPerPeer");
        check.type(type);
        long total = check.bytes(countPerPeer, size, type);
        check.readable(send, total, "send", size + " ranks × " + countPerPeer + " × " + type);
        check.writable(recv, total, "recv", size + " ranks × " + countPerPeer + " × " + type);
        MemorySegment s = send.asSlice(0, total);
        MemorySegment r = recv.asSlice(0, total);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Operation(Collective.ALL_TO_ALL, s, r, countPerPeer, type, null, -1, -1, kindOf(check, s, r));
    }

    public Operation send(MemorySegment buf, long count, DataType type, int peer) {
        return pointToPoint(Collective.SEND, buf, count, type, peer);
    }

    public Operation recv(MemorySegment buf, long count, DataType type, int peer) {
        return pointToPoint(Collective.RECV, buf, count, type, peer);
    }

    private Operation pointToPoint(Collective kind, MemorySegment buf, long count, DataType type, int peer) {
        ArgumentChecks check = new ArgumentChecks(kind.displayName(), rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(peer, size, "peer");
        check.notSelf(peer);
        long bytes = check.bytes(count, 1, type);
        String name = kind == Collective.SEND ? "send" : "recv";
        if (kind == Collective.SEND) check.readable(buf, bytes, name, count + " × " + type);
        else check.writable(buf, bytes, name, count + " × " + type);
        MemorySegment b = buf.asSlice(0, bytes);
        return new Operation(
                kind, b, b, count, type, null, peer, -1, bytes == 0 ? MemoryKind.HOST : kinds.kindOf(b, check, name));
    }

    /**
     * Both peers may be this rank (a local copy, as MPI allows), or neither; one but not the other is almost certainly
     * a mistake in the caller's peer arithmetic, so it is refused.
     */
    public Operation sendRecv(
            MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        ArgumentChecks check = new ArgumentChecks("SendRecv", rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(sendPeer, size, "sendPeer");
        check.rankInRange(recvPeer, size, "recvPeer");
        check.selfBothWaysOrNeither(sendPeer, recvPeer);
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = recv.asSlice(0, bytes);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Operation(Collective.SEND_RECV, s, r, count, type, null, sendPeer, recvPeer, kindOf(check, s, r));
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
