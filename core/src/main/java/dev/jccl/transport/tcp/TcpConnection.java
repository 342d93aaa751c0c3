package dev.jccl.transport.tcp;

import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.FrameMismatchException;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;

/**
 * One socket to one peer, with a FIFO of frames to send and a FIFO of frames expected.
 *
 * <p>Receiving never reads past the frame at the head of the receive FIFO: bytes of a frame no one has asked for yet
 * stay in the kernel, which is what makes the step-synchronous schedules safe with bounded memory. Incoming payload
 * lands in a direct staging buffer and is handed to the sink in whole elements (a TCP read may end mid-element; the
 * tail waits for the next read).
 */
final class TcpConnection {
    private static final int MAX_READS_PER_PROGRESS = 16;
    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final int peer;
    private final SocketChannel channel;
    private final ArrayDeque<OutgoingFrame> sends = new ArrayDeque<>();
    private final ArrayDeque<IncomingFrame> recvs = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> freeSendBuffers = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> freeHeaders = new ArrayDeque<>();
    private final ByteBuffer recvHeader =
            ByteBuffer.allocateDirect(FrameHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer staging;
    /** The header and payload buffers of one scattering read; reused. */
    private final ByteBuffer[] scatter = new ByteBuffer[2];

    private final MemorySegment stagingSegment;
    private SelectionKey key;
    /** The reason of a peer's abandon frame while it is being read; null otherwise. */
    private ByteBuffer abandonReason;

    /**
     * Whether the socket may hold bytes: true after a read that got all it asked for, false after one that came back
     * short or empty, until the selector reports the socket readable again ({@link #markReadable}). A read of an empty
     * socket is not free: it takes the socket's lock, which the loopback delivery of the peer's next segment, running
     * in the peer's send call, then waits for; a segment that arrives while the reader holds the lock is queued to its
     * backlog and handled when the lock is released. An epoll_wait looks at a ready list without the socket's lock.
     * 2-rank 8-byte AllReduce over loopback (2026-11-29): polling with reads, a rank spent 8.6% of its CPU in that
     * lock's slow path and 33% in reads; asking the selector first, 4.1% and 15% (plus 14% in the selector), and the
     * call took 7.01-7.48 µs against 7.16-7.57 (4 runs each, interleaved; Open MPI's TCP BTL 7.91-8.56).
     */
    private boolean readable = true;

    /**
     * A frame being written: its header, then its payload as far as the send's ready mark allows. Native data is
     * written straight from the caller's memory; heap data is copied, as it becomes ready, into pooled direct memory
     * (NIO would copy it into a temporary direct buffer anyway).
     */
    private static final class OutgoingFrame {
        final ByteBuffer header;
        final MemorySegment data;
        final ByteBuffer payload;
        final boolean copied;
        final TransferHandle handle;
        final ByteBuffer[] buffers;
        long copiedBytes;

        OutgoingFrame(
                ByteBuffer header, MemorySegment data, ByteBuffer payload, boolean copied, TransferHandle handle) {
            this.header = header;
            this.data = data;
            this.payload = payload;
            this.copied = copied;
            this.handle = handle;
            this.buffers = new ByteBuffer[] {header, payload};
        }

        /** Lets the payload's limit follow the ready mark, copying newly ready heap bytes first. */
        void exposeReady() {
            int ready = (int) Math.min(handle.readyBytes(), data.byteSize());
            if (copied && ready > copiedBytes) {
                MemorySegment.copy(
                        data,
                        copiedBytes,
                        MemorySegment.ofBuffer(payload.duplicate().clear()),
                        copiedBytes,
                        ready - copiedBytes);
                copiedBytes = ready;
            }
            if (payload.limit() < ready) payload.limit(ready);
        }

        boolean fullyWritten() {
            return !header.hasRemaining() && payload.position() == data.byteSize();
        }

        long unsent() {
            return header.remaining() + data.byteSize() - payload.position();
        }
    }

    private static final class IncomingFrame {
        final FrameHeader expected;
        final int elementBytes;
        final RecvSink sink;
        final TransferHandle handle;
        boolean headerRead;
        long payloadRead;
        long delivered;
        /** The sink's direct target as a buffer, when the payload is read straight into it. */
        ByteBuffer direct;

        IncomingFrame(FrameHeader expected, int elementBytes, RecvSink sink, TransferHandle handle) {
            this.expected = expected;
            this.elementBytes = elementBytes;
            this.sink = sink;
            this.handle = handle;
        }
    }

    TcpConnection(int peer, SocketChannel channel, int stagingBytes) {
        this.peer = peer;
        this.channel = channel;
        this.staging = ByteBuffer.allocateDirect(stagingBytes);
        this.stagingSegment = MemorySegment.ofBuffer(staging);
    }

    int peer() {
        return peer;
    }

    SocketChannel channel() {
        return channel;
    }

    void setKey(SelectionKey key) {
        this.key = key;
    }

    SelectionKey key() {
        return key;
    }

    boolean wantsRead() {
        return !recvs.isEmpty();
    }

    /** True if a receive waits and the last read drained the socket: ask the selector before reading again. */
    boolean needsPoll() {
        return !readable && !recvs.isEmpty();
    }

    /** The selector reported bytes (or an end) on the socket. */
    void markReadable() {
        readable = true;
    }

    /** True while a send is queued, ready or not: the connection must stay among the active ones. */
    boolean hasSends() {
        return !sends.isEmpty();
    }

    /** True if the socket has bytes to take now (a queued send whose ready mark is ahead of what was written). */
    boolean wantsWrite() {
        OutgoingFrame f = sends.peek();
        return f != null
                && (f.header.hasRemaining()
                        || f.payload.position() < Math.min(f.handle.readyBytes(), f.data.byteSize()));
    }

    TransferHandle postSend(FrameHeader header, MemorySegment data, long readyBytes) {
        // Direct memory is slow to allocate; headers are reused once their frame is written.
        ByteBuffer h = freeHeaders.poll();
        if (h == null) h = ByteBuffer.allocateDirect(FrameHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.clear();
        header.encode(h);
        h.flip();
        TransferHandle handle = new TransferHandle(peer, readyBytes);
        OutgoingFrame f;
        if (data.byteSize() == 0) {
            f = new OutgoingFrame(h, data, EMPTY, false, handle);
        } else if (data.isNative()) {
            f = new OutgoingFrame(h, data, data.asByteBuffer().limit(0), false, handle);
        } else {
            // Heap segments of non-byte arrays have no ByteBuffer view: copy into pooled direct memory.
            f = new OutgoingFrame(h, data, takeSendBuffer(data.byteSize()).limit(0), true, handle);
        }
        sends.add(f);
        return handle;
    }

    private ByteBuffer takeSendBuffer(long bytes) {
        ByteBuffer b = bytes <= staging.capacity() ? freeSendBuffers.poll() : null;
        if (b == null) b = ByteBuffer.allocateDirect((int) Math.max(bytes, staging.capacity()));
        b.clear();
        return b;
    }

    TransferHandle postRecv(FrameHeader expected, int elementBytes, RecvSink sink) {
        if (elementBytes > staging.capacity()) throw new IllegalArgumentException("element larger than staging");
        TransferHandle handle = new TransferHandle(peer);
        recvs.add(new IncomingFrame(expected, elementBytes, sink, handle));
        return handle;
    }

    int progress() throws IOException {
        return progressSends() + progressRecvs();
    }

    private int progressSends() throws IOException {
        int work = 0;
        OutgoingFrame f;
        while ((f = sends.peek()) != null) {
            f.exposeReady();
            long n;
            try {
                n = channel.write(f.buffers);
            } catch (IOException e) {
                throw lost("write failed: " + e.getMessage(), e);
            }
            if (n > 0) work += (int) Math.min(n, Integer.MAX_VALUE);
            if (!f.fullyWritten()) break;
            f.handle.markDone();
            sends.poll();
            if (f.copied && f.payload.capacity() == staging.capacity()) freeSendBuffers.add(f.payload);
            freeHeaders.add(f.header);
        }
        return work;
    }

    private int progressRecvs() throws IOException {
        if (abandonReason != null) readAbandonReason();
        int work = 0;
        for (int reads = 0; reads < MAX_READS_PER_PROGRESS && readable; reads++) {
            IncomingFrame f = recvs.peek();
            if (f == null) break;
            if (!f.headerRead) {
                // The header and as much of the payload as the frame holds, in one read: a small frame then costs one
                // system call instead of two (at 8 B over loopback the second read was a third of a call's reads).
                ByteBuffer payload = payloadTarget(f);
                int before = payload.position();
                int n = read(recvHeader, payload);
                if (n <= 0) break;
                work += n;
                if (recvHeader.hasRemaining()) continue;
                recvHeader.flip();
                FrameHeader actual = FrameHeader.decode(recvHeader);
                recvHeader.clear();
                int early = payload.position() - before;
                if (actual != null && actual.isAbandon()) {
                    abandonReason = ByteBuffer.allocate((int) actual.length());
                    abandonReason.put(
                            payload.flip().position(before).limit(before + Math.min(early, abandonReason.capacity())));
                    readAbandonReason();
                    return work;
                }
                if (!f.expected.equals(actual)) throw new FrameMismatchException(peer, f.expected, actual);
                f.headerRead = true;
                if (early > 0) {
                    f.payloadRead += early;
                    if (f.direct != null) f.sink.delivered(f.payloadRead);
                    else deliverWholeElements(f);
                }
            }
            long payloadLeft = f.expected.length() - f.payloadRead;
            if (payloadLeft > 0 && f.direct != null) {
                int n = read(f.direct);
                if (n <= 0) break;
                work += n;
                f.payloadRead += n;
                f.sink.delivered(f.payloadRead);
            } else if (payloadLeft > 0) {
                staging.limit((int) Math.min(staging.capacity(), staging.position() + payloadLeft));
                int n = read(staging);
                if (n <= 0) break;
                work += n;
                f.payloadRead += n;
                deliverWholeElements(f);
            }
            if (f.payloadRead == f.expected.length()) {
                f.handle.markDone();
                recvs.poll();
            }
        }
        return work;
    }

    /** Reads the reason of the peer's abandon frame; once it is all there (or the peer has gone), fails with it. */
    private void readAbandonReason() throws IOException {
        int n;
        try {
            n = channel.read(abandonReason);
        } catch (IOException e) {
            n = -1;
        }
        if (n >= 0 && abandonReason.hasRemaining()) return;
        String reason =
                new String(abandonReason.array(), 0, abandonReason.position(), java.nio.charset.StandardCharsets.UTF_8);
        throw lost("it stopped: " + (reason.isEmpty() ? "(no reason given)" : reason), null);
    }

    /**
     * Queues nothing and never blocks: writes an abandon frame with {@code reason} if no frame is half written (a
     * partial frame's bytes would be taken for payload) and the socket takes it all now; otherwise the peer learns of
     * the end from the closed connection alone.
     */
    void sendAbandon(byte[] reason) {
        OutgoingFrame f = sends.peek();
        if (f != null && (f.header.position() > 0 || f.payload.position() > 0)) return;
        ByteBuffer frame =
                ByteBuffer.allocate(FrameHeader.BYTES + reason.length).order(ByteOrder.LITTLE_ENDIAN);
        FrameHeader.abandon(reason.length).encode(frame);
        frame.put(reason).flip();
        try {
            channel.write(frame);
        } catch (IOException | RuntimeException e) {
            // the connection is going anyway
        }
    }

    private void deliverWholeElements(IncomingFrame f) {
        int buffered = staging.position();
        int whole = buffered - buffered % f.elementBytes;
        if (whole == 0) return;
        f.sink.accept(stagingSegment.asSlice(0, whole), f.delivered);
        f.delivered += whole;
        int tail = buffered - whole;
        if (tail > 0) MemorySegment.copy(stagingSegment, whole, stagingSegment, 0, tail);
        staging.clear();
        staging.position(tail);
    }

    /**
     * Where the payload of {@code f}, whose header is next on the socket, is read to: the sink's memory where it takes
     * the whole payload directly, else the staging buffer, limited to the frame so that no read takes the next frame's
     * bytes.
     */
    private ByteBuffer payloadTarget(IncomingFrame f) {
        long length = f.expected.length();
        MemorySegment target = f.sink.directTarget();
        if (length > 0 && target != null && target.byteSize() == length) {
            f.direct = target.asByteBuffer();
            return f.direct;
        }
        staging.clear();
        staging.limit((int) Math.min(staging.capacity(), length));
        return staging;
    }

    private int read(ByteBuffer header, ByteBuffer payload) throws IOException {
        scatter[0] = header;
        scatter[1] = payload;
        long asked = header.remaining() + (long) payload.remaining();
        long n;
        try {
            n = channel.read(scatter);
        } catch (IOException e) {
            throw lost("read failed: " + e.getMessage(), e);
        } finally {
            scatter[1] = null;
        }
        if (n < 0) throw lost("connection closed by the peer", null);
        if (n < asked) readable = false;
        return (int) n;
    }

    private int read(ByteBuffer into) throws IOException {
        int asked = into.remaining();
        int n;
        try {
            n = channel.read(into);
        } catch (IOException e) {
            throw lost("read failed: " + e.getMessage(), e);
        }
        if (n < 0) throw lost("connection closed by the peer", null);
        if (n < asked) readable = false;
        return n;
    }

    private PeerLostException lost(String detail, Throwable cause) {
        return new PeerLostException(peer, detail, cause);
    }

    String describePending() {
        StringBuilder sb = new StringBuilder();
        OutgoingFrame s = sends.peek();
        if (s != null) {
            long left = s.unsent();
            sb.append(sends.size()).append(" send(s) queued, ").append(left).append(" bytes of the first unsent");
        }
        IncomingFrame r = recvs.peek();
        if (r != null) {
            if (!sb.isEmpty()) sb.append("; ");
            sb.append(recvs.size())
                    .append(" receive(s) waiting, first has ")
                    .append(r.headerRead ? r.payloadRead + " of " + r.expected.length() + " bytes" : "no header yet");
        }
        return sb.isEmpty() ? "nothing pending" : sb.toString();
    }

    void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is best effort; the peer sees EOF either way
        }
    }
}
