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
    private final ArrayDeque<Outgoing> sends = new ArrayDeque<>();
    private final ArrayDeque<Incoming> recvs = new ArrayDeque<>();

    private static final class Outgoing {
        final FrameHeader header;
        final MemorySegment data;
        final TransferHandle handle;
        boolean headerWritten;
        long sent;

        Outgoing(FrameHeader header, MemorySegment data, TransferHandle handle) {
            this.header = header;
            this.data = data;
            this.handle = handle;
        }
    }

    private static final class Incoming {
        final FrameHeader expected;
        final RecvSink sink;
        final TransferHandle handle;
        boolean headerRead;
        long received;

        Incoming(FrameHeader expected, RecvSink sink, TransferHandle handle) {
            this.expected = expected;
            this.sink = sink;
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
        sends.add(new Outgoing(header, data, h));
        return h;
    }

    TransferHandle postRecv(FrameHeader expected, RecvSink sink) {
        TransferHandle h = new TransferHandle(peer);
        recvs.add(new Incoming(expected, sink, h));
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
        Outgoing f = sends.peek();
        if (f == null) return false;
        boolean ready = !f.headerWritten || Math.min(f.handle.readyBytes(), f.data.byteSize()) > f.sent;
        return ready && out.roomNow();
    }

    int progress() throws FrameMismatchException {
        return progressSends() + progressRecvs();
    }

    private int progressSends() {
        int work = 0;
        Outgoing f;
        while ((f = sends.peek()) != null) {
            if (!f.headerWritten) {
                if (!out.tryWriteHeader(f.header)) break;
                f.headerWritten = true;
                work++;
            }
            long length = f.data.byteSize();
            while (f.sent < length) {
                long ready = Math.min(f.handle.readyBytes(), length) - f.sent;
                long n = out.writePayload(f.data, f.sent, ready, length - f.sent);
                if (n == 0) break;
                f.sent += n;
                work += (int) n;
            }
            if (f.sent < length) break;
            f.handle.markDone();
            sends.poll();
        }
        return work;
    }

    private int progressRecvs() throws FrameMismatchException {
        int work = 0;
        Incoming f;
        while ((f = recvs.peek()) != null) {
            if (!f.headerRead) {
                if (!in.headerReadable()) break;
                FrameHeader actual = in.readHeader();
                if (!f.expected.equals(actual)) throw new FrameMismatchException(peer, f.expected, actual);
                f.headerRead = true;
                work++;
            }
            long length = f.expected.length();
            if (length == 0) in.consume(0, true);
            while (f.received < length) {
                long n = in.readablePiece(length - f.received);
                if (n == 0) break;
                f.sink.accept(in.piece(n), f.received);
                f.received += n;
                in.consume(n, f.received == length);
                work += (int) n;
            }
            if (f.received < length) break;
            f.handle.markDone();
            recvs.poll();
        }
        return work;
    }

    String describePending() {
        StringBuilder sb = new StringBuilder();
        Outgoing s = sends.peek();
        if (s != null) {
            sb.append(sends.size())
                    .append(" send(s) queued, first has ")
                    .append(
                            s.headerWritten
                                    ? s.sent + " of " + s.data.byteSize() + " bytes in the ring"
                                    : "its header waiting for room")
                    .append(" (outgoing ")
                    .append(out.describe())
                    .append(')');
        }
        Incoming r = recvs.peek();
        if (r != null) {
            if (!sb.isEmpty()) sb.append("; ");
            sb.append(recvs.size())
                    .append(" receive(s) waiting, first has ")
                    .append(r.headerRead ? r.received + " of " + r.expected.length() + " bytes" : "no header yet")
                    .append(" (incoming ")
                    .append(in.describe())
                    .append(')');
        }
        return sb.isEmpty() ? "nothing pending" : sb.toString();
    }
}
