package dev.jccl.runtime;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;

/**
 * Checks a call's arguments before anything is sequenced or sent, so a bad call throws {@link IllegalArgumentException}
 * on the calling rank and leaves the communicator usable. Public so that other kinds of buffer (the cuda module's
 * device buffers) check the same way in the same words.
 */
public class ArgumentChecks {
    private final String collective;
    private final int rank;

    public ArgumentChecks(String collective, int rank) {
        this.collective = collective;
        this.rank = rank;
    }

    public IllegalArgumentException bad(String what) {
        return new IllegalArgumentException(collective + " on rank " + rank + ": " + what);
    }

    public void count(long count, String name) {
        if (count < 0) throw bad(name + " must be >= 0, got " + count);
    }

    public void type(DataType type) {
        if (type == null) throw bad("data type is null");
    }

    public void op(ReduceOp op) {
        if (op == null) throw bad("reduce op is null");
    }

    public void rankInRange(int r, int size, String name) {
        if (r < 0 || r >= size) throw bad(name + " " + r + " is outside 0.." + (size - 1));
    }

    public long bytes(long count, long elements, DataType type) {
        try {
            return Math.multiplyExact(Math.multiplyExact(count, elements), (long) type.byteSize());
        } catch (ArithmeticException e) {
            throw bad("count " + count + " × " + elements + " elements of " + type + " overflows a long");
        }
    }

    /** The segment exists, is accessible from this thread, and holds at least {@code bytes}. */
    public void readable(MemorySegment seg, long bytes, String name, Shape shape) {
        if (seg == null) throw bad(name + " buffer is null");
        if (!seg.scope().isAlive()) throw bad(name + " buffer's arena is already closed");
        if (!seg.isAccessibleBy(Thread.currentThread())) {
            throw bad(name
                    + " buffer is confined to another thread; pass it from its owner thread or use Arena.ofShared()");
        }
        if (seg.byteSize() < bytes) {
            throw bad(name + " buffer holds " + seg.byteSize() + " bytes but " + shape + " needs " + bytes);
        }
    }

    public void writable(MemorySegment seg, long bytes, String name, Shape shape) {
        readable(seg, bytes, name, shape);
        if (seg.isReadOnly()) throw bad(name + " buffer is read-only");
    }

    /** Send and receive may be the same memory (in place) or disjoint, nothing in between. */
    public void inPlaceOrDisjoint(MemorySegment send, MemorySegment recv, boolean inPlace) {
        if (!inPlace && Memory.overlap(send, recv)) {
            throw bad("send and recv buffers overlap without being in place; use the same memory "
                    + "for in-place, or separate buffers");
        }
    }

    /** For async calls: the progress thread must be able to touch the segment. */
    void accessibleFrom(MemorySegment seg, Thread worker, String name) {
        if (seg != null && !seg.isAccessibleBy(worker)) {
            throw bad(name + " buffer is confined to thread '"
                    + Thread.currentThread().getName() + "' but async operations run on "
                    + "the communicator's progress thread. Allocate it from Arena.ofShared(), "
                    + "Arena.ofAuto() or Arena.global() "
                    + "(or use a heap array), or call the blocking form");
        }
    }

    public void notSelf(int peer) {
        if (peer == rank) {
            throw bad("peer " + peer + " is this rank; copy the data locally instead of sending it to yourself");
        }
    }

    /** SendRecv with itself is a local copy, allowed both ways at once; one way only is a mistake. */
    public void selfBothWaysOrNeither(int sendPeer, int recvPeer) {
        if ((sendPeer == rank) == (recvPeer == rank)) return;
        String self = sendPeer == rank ? "sendPeer " + sendPeer : "recvPeer " + recvPeer;
        String other = sendPeer == rank ? "recvPeer " + recvPeer : "sendPeer " + sendPeer;
        throw bad(self + " is this rank but " + other + " is not: a rank can exchange with itself only both ways "
                + "(sendPeer == recvPeer == rank, a local copy); pass two other ranks, or use send/recv");
    }
}
