package dev.jccl.transport.shm;

import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.FrameMismatchException;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * This rank's end of the pair segment it shares with one local peer: a FIFO of frames to write into the outgoing ring
 * and a FIFO of frames expected from the incoming one. Receivers are handed the payload where it lies in the ring, so a
 * reducing receive reads the peer's data straight out of shared memory, with no copy in between.
 */
final class ShmConnection {
    private final int peer;
    private final ShmSegment segment;
    private final ShmRing out;
    private final ShmRing in;
    private final ArrayDeque<Frame<MemorySegment>> sends = new ArrayDeque<>();
    private final ArrayDeque<Frame<RecvSink>> recvs = new ArrayDeque<>();

    /**
     * A frame on its way through a ring, either way: its header (the one to write, or the one expected), its payload's
     * end on this side (the data to send, or the sink that takes what arrives), the caller's handle, and how far it has
     * got.
     */
    private static final class Frame<P> {
        final FrameHeader header;
        final P payload;
        final TransferHandle handle;
        boolean headerDone;
        long bytesDone;

        Frame(FrameHeader header, P payload, TransferHandle handle) {
            this.header = header;
            this.payload = payload;
            this.handle = handle;
        }
    }

    ShmConnection(int peer, ShmSegment segment, int ringBytes, boolean thisIsLow) {
        this.peer = peer;
        this.segment = segment;
        this.out = new ShmRing(segment.memory(), ringBytes, thisIsLow);
        this.in = new ShmRing(segment.memory(), ringBytes, !thisIsLow);
    }

    int peer() {
        return peer;
    }

    ShmSegment segment() {
        return segment;
    }

    TransferHandle postSend(FrameHeader header, MemorySegment data, long readyBytes) {
        TransferHandle h = new TransferHandle(peer, readyBytes);
        sends.add(new Frame<>(header, data, h));
        return h;
    }

    TransferHandle postRecv(FrameHeader expected, RecvSink sink) {
        TransferHandle h = new TransferHandle(peer);
        recvs.add(new Frame<>(expected, sink, h));
        return h;
    }

    boolean idle() {
        return sends.isEmpty() && recvs.isEmpty();
    }

    /** True if a receive waits and the peer has published nothing for it. */
    boolean awaitsData() {
        return !recvs.isEmpty() && !in.dataNow();
    }

    /**
     * True if this connection cannot finish without the peer doing more: a send waits (for room, or for the peer to
     * read it), or a receive waits and the ring holds nothing for it. Where neither holds, whatever the peer left in
     * the ring before it closed is still to be read.
     */
    boolean needsPeer() {
        return !sends.isEmpty() || awaitsData();
    }

    /**
     * True if {@link #progress} would have something to do now: data for a waiting receive, or room for a send with
     * ready bytes. Checked after announcing sleep, before sleeping.
     */
    boolean hasNews() {
        if (!recvs.isEmpty() && in.dataNow()) return true;
        Frame<MemorySegment> f = sends.peek();
        if (f == null) return false;
        boolean ready = !f.headerDone || Math.min(f.handle.readyBytes(), f.payload.byteSize()) > f.bytesDone;
        return ready && out.roomNow();
    }

    int progress() throws FrameMismatchException {
        return progressSends() + progressRecvs();
    }

    private int progressSends() {
        int work = 0;
        Frame<MemorySegment> f;
        while ((f = sends.peek()) != null) {
            if (!f.headerDone) {
                if (!out.tryWriteHeader(f.header)) break;
                f.headerDone = true;
                work++;
            }
            long length = f.payload.byteSize();
            while (f.bytesDone < length) {
                long ready = Math.min(f.handle.readyBytes(), length) - f.bytesDone;
                long n = out.writePayload(f.payload, f.bytesDone, ready, length - f.bytesDone);
                if (n == 0) break;
                f.bytesDone += n;
                work += (int) n;
            }
            if (f.bytesDone < length) break;
            f.handle.markDone();
            sends.poll();
        }
        return work;
    }

    private int progressRecvs() throws FrameMismatchException {
        int work = 0;
        Frame<RecvSink> f;
        while ((f = recvs.peek()) != null) {
            if (!f.headerDone) {
                if (!in.headerReadable()) break;
                FrameHeader actual = in.readHeader();
                if (!f.header.equals(actual)) throw new FrameMismatchException(peer, f.header, actual);
                f.headerDone = true;
                work++;
            }
            long length = f.header.length();
            if (length == 0) in.consume(0, true);
            while (f.bytesDone < length) {
                long n = in.readablePiece(length - f.bytesDone);
                if (n == 0) break;
                f.payload.accept(in.piece(n), f.bytesDone);
                f.bytesDone += n;
                in.consume(n, f.bytesDone == length);
                work += (int) n;
            }
            if (f.bytesDone < length) break;
            f.handle.markDone();
            recvs.poll();
        }
        return work;
    }

    String describePending() {
        StringBuilder sb = new StringBuilder();
        Frame<MemorySegment> s = sends.peek();
        if (s != null) {
            sb.append(sends.size())
                    .append(" send(s) queued, first has ")
                    .append(
                            s.headerDone
                                    ? s.bytesDone + " of " + s.payload.byteSize() + " bytes in the ring"
                                    : "its header waiting for room")
                    .append(" (outgoing ")
                    .append(out.describe())
                    .append(')');
        }
        Frame<RecvSink> r = recvs.peek();
        if (r != null) {
            if (!sb.isEmpty()) sb.append("; ");
            sb.append(recvs.size())
                    .append(" receive(s) waiting, first has ")
                    .append(r.headerDone ? r.bytesDone + " of " + r.header.length() + " bytes" : "no header yet")
                    .append(" (incoming ")
                    .append(in.describe())
                    .append(')');
        }
        return sb.isEmpty() ? "nothing pending" : sb.toString();
    }
}
