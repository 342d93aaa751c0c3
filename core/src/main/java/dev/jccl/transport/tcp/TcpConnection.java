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
 * <p>Receiving never reads past the frame at the head of the receive FIFO: bytes of a frame no
 * one has asked for yet stay in the kernel, which is what makes the step-synchronous schedules
 * safe with bounded memory. Incoming payload lands in a direct staging buffer and is handed to
 * the sink in whole elements (a TCP read may end mid-element; the tail waits for the next read).
 */
final class TcpConnection {
    private static final int MAX_READS_PER_PROGRESS = 16;

    private final int peer;
    private final SocketChannel channel;
    private final ArrayDeque<OutgoingFrame> sends = new ArrayDeque<>();
    private final ArrayDeque<IncomingFrame> recvs = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> freeSendBuffers = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> freeHeaders = new ArrayDeque<>();
    private final ByteBuffer recvHeader = ByteBuffer.allocateDirect(FrameHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer staging;
    private final MemorySegment stagingSegment;
    private SelectionKey key;

    private static final class OutgoingFrame {
        final ByteBuffer[] buffers;
        final TransferHandle handle;
        final ByteBuffer pooled;

        OutgoingFrame(ByteBuffer[] buffers, TransferHandle handle, ByteBuffer pooled) {
            this.buffers = buffers;
            this.handle = handle;
            this.pooled = pooled;
        }

        boolean fullyWritten() {
            return !buffers[buffers.length - 1].hasRemaining();
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

    boolean wantsWrite() {
        return !sends.isEmpty();
    }

    TransferHandle postSend(FrameHeader header, MemorySegment data) {
        // Direct memory is slow to allocate; headers are reused once their frame is written.
        ByteBuffer h = freeHeaders.poll();
        if (h == null) h = ByteBuffer.allocateDirect(FrameHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.clear();
        header.encode(h);
        h.flip();
        TransferHandle handle = new TransferHandle(peer);
        ByteBuffer[] buffers;
        ByteBuffer pooled = null;
        if (data.byteSize() == 0) {
            buffers = new ByteBuffer[] {h};
        } else if (data.isNative()) {
            buffers = new ByteBuffer[] {h, data.asByteBuffer()};
        } else {
            // Heap segments of non-byte arrays have no ByteBuffer view, and NIO would copy a heap
            // buffer into a temporary direct one anyway: copy once into pooled direct memory.
            pooled = takeSendBuffer(data.byteSize());
            MemorySegment.ofBuffer(pooled).copyFrom(data);
            buffers = new ByteBuffer[] {h, pooled};
        }
        sends.add(new OutgoingFrame(buffers, handle, pooled));
        return handle;
    }

    private ByteBuffer takeSendBuffer(long bytes) {
        ByteBuffer b = bytes <= staging.capacity() ? freeSendBuffers.poll() : null;
        if (b == null) b = ByteBuffer.allocateDirect((int) Math.max(bytes, staging.capacity()));
        b.clear().limit((int) bytes);
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
            if (f.pooled != null && f.pooled.capacity() == staging.capacity()) freeSendBuffers.add(f.pooled);
            freeHeaders.add(f.buffers[0]);
        }
        return work;
    }

    private int progressRecvs() throws IOException {
        int work = 0;
        for (int reads = 0; reads < MAX_READS_PER_PROGRESS; reads++) {
            IncomingFrame f = recvs.peek();
            if (f == null) break;
            if (!f.headerRead) {
                int n = read(recvHeader);
                if (n <= 0) break;
                work += n;
                if (recvHeader.hasRemaining()) continue;
                recvHeader.flip();
                FrameHeader actual = FrameHeader.decode(recvHeader);
                recvHeader.clear();
                if (!f.expected.equals(actual)) throw new FrameMismatchException(peer, f.expected, actual);
                f.headerRead = true;
                staging.clear();
            }
            long payloadLeft = f.expected.length() - f.payloadRead;
            if (payloadLeft > 0) {
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

    private int read(ByteBuffer into) throws IOException {
        int n;
        try {
            n = channel.read(into);
        } catch (IOException e) {
            throw lost("read failed: " + e.getMessage(), e);
        }
        if (n < 0) throw lost("connection closed by the peer", null);
        return n;
    }

    private PeerLostException lost(String detail, Throwable cause) {
        return new PeerLostException(peer, detail, cause);
    }

    String describePending() {
        StringBuilder sb = new StringBuilder();
        OutgoingFrame s = sends.peek();
        if (s != null) {
            long left = 0;
            for (ByteBuffer b : s.buffers) left += b.remaining();
            sb.append(sends.size()).append(" send(s) queued, ").append(left).append(" bytes of the first unsent");
        }
        IncomingFrame r = recvs.peek();
        if (r != null) {
            if (!sb.isEmpty()) sb.append("; ");
            sb.append(recvs.size()).append(" receive(s) waiting, first has ")
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
