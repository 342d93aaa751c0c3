package dev.jccl.cuda;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;

/**
 * Checks a device call's arguments on the calling thread before anything is queued, so a bad call
 * throws {@link IllegalArgumentException} at once, on the rank that made it, and the communicator
 * stays usable. Same rules and wording as the host path's checks.
 */
final class DeviceArgumentChecks {
    private final String collective;
    private final int rank;
    private final int device;

    DeviceArgumentChecks(String collective, int rank, int device) {
        this.collective = collective;
        this.rank = rank;
        this.device = device;
    }

    IllegalArgumentException bad(String what) {
        return new IllegalArgumentException(collective + " on rank " + rank + ": " + what);
    }

    void count(long count, String name) {
        if (count < 0) throw bad(name + " must be >= 0, got " + count);
    }

    void type(DataType type) {
        if (type == null) throw bad("data type is null");
    }

    void op(ReduceOp op) {
        if (op == null) throw bad("reduce op is null");
    }

    void rankInRange(int r, int size, String name) {
        if (r < 0 || r >= size) throw bad(name + " " + r + " is outside 0.." + (size - 1));
    }

    long bytes(long count, long elements, DataType type) {
        try {
            return Math.multiplyExact(Math.multiplyExact(count, elements), (long) type.byteSize());
        } catch (ArithmeticException e) {
            throw bad("count " + count + " × " + elements + " elements of " + type + " overflows a long");
        }
    }

    /** Present, on this communicator's device, and at least {@code bytes} long. */
    void buffer(DeviceBuffer b, long bytes, String name, String shape) {
        if (b == null) throw bad(name + " buffer is null");
        if (b.device() != device) throw bad(name + " buffer is on cuda:" + b.device() + " but this communicator works on cuda:" + device);
        if (b.byteSize() < bytes) throw bad(name + " buffer holds " + b.byteSize() + " bytes but " + shape + " needs " + bytes);
    }

    /** The used ranges are the same memory (in place) or disjoint, nothing in between. */
    void inPlaceOrDisjoint(DeviceBuffer send, long sendBytes, DeviceBuffer recv, long recvBytes, boolean inPlace) {
        if (inPlace || send == null || recv == null) return;
        if (send.slice(0, sendBytes).overlaps(recv.slice(0, recvBytes))) {
            throw bad("send and recv buffers overlap without being in place; use the same memory for in-place, or separate buffers");
        }
    }

    void notSelf(int peer) {
        if (peer == rank) throw bad("peer " + peer + " is this rank; copy the data locally instead of sending it to yourself");
    }

    void selfBothWaysOrNeither(int sendPeer, int recvPeer) {
        if ((sendPeer == rank) == (recvPeer == rank)) return;
        String self = sendPeer == rank ? "sendPeer " + sendPeer : "recvPeer " + recvPeer;
        String other = sendPeer == rank ? "recvPeer " + recvPeer : "sendPeer " + sendPeer;
        throw bad(self + " is this rank but " + other + " is not: a rank can exchange with itself only both ways "
                + "(sendPeer == recvPeer == rank, a local copy); pass two other ranks, or use send/recv");
    }
}
