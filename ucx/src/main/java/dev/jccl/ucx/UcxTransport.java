package dev.jccl.ucx;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.FrameMismatchException;
import dev.jccl.transport.NetTransport;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

/**
 * Frames over UCP tagged messages: each frame is two messages, the 40-byte {@link FrameHeader} and then its payload
 * (none when it is empty), the payload sent straight from the caller's memory where it is native and through a staging
 * buffer where it is on the heap. Two contiguous messages and not one I/O vector of two pieces: UCX moves a contiguous
 * message with its zero-copy rendezvous, an I/O vector by packing it through bounce buffers, measured here with
 * {@code ucx_perftest -t tag_bw} over the tcp transport at 64 MiB: 3.2 GB/s contiguous, 1.1 GB/s as an I/O vector
 * ({@code -D iov}); Jccl's AllReduce over UCX was 0.5 GB/s busbw with one I/O vector per frame. The tag names the
 * sender and the message's number on that ordered pair (a frame's header even, its payload odd), so frames match in
 * posting order whatever order UCX delivers them in. Both receives are posted when the runtime posts the frame, so UCX
 * matches them on arrival as expected messages and puts each straight into staging; then the transport checks the
 * header (a different one is a mismatch, described on both sides; an abandon frame carries the peer's reason) and hands
 * the payload to the sink.
 *
 * <p>Why tagged messages and not RMA puts: a put needs the receiver's slot address and key and a completion flag per
 * frame, which is two operations and a second round of bookkeeping; over UCX's own transports (RDMA, tcp) a tagged send
 * already moves large messages with the rendezvous protocol, which is a zero-copy RDMA read or write on RDMA hardware.
 * Memory registration is UCX's (its registration cache keeps the staging buffers registered).
 *
 * <p>Dead peers: endpoints use UCX's peer error handling, so a peer that dies fails its endpoint, and every transfer
 * with it ends in a {@link PeerLostException}. UCX 1.13 then uses no shared-memory transports between the ranks, which
 * is fine: ranks of one host use Jccl's.
 *
 * <p>Threads: one thread drives it at a time (the runtime's contract); {@link #close} may come from another, so native
 * calls and teardown take the same lock, and the worker is never freed under a thread inside
 * {@code ucp_worker_progress}.
 */
final class UcxTransport implements NetTransport {
    private static final int TAG_SEQ_BITS = 44;
    private static final long TAG_SEQ_MASK = (1L << TAG_SEQ_BITS) - 1;
    private static final long FULL_MASK = -1L;
    private static final long HEADER_ROOM = FrameHeader.BYTES + FrameHeader.MAX_REASON_BYTES;
    private static final long AWAIT_SLICE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final UcpContext context;
    private final UcpWorker worker;
    private final byte[] address;
    private final String description;
    private final String devices;
    private final int chunkBytes;
    private final Log log;
    private final Object lock = new Object();
    private final Arena arena = Arena.ofShared();
    private final ArrayDeque<MemorySegment> freeStaging = new ArrayDeque<>();
    private final ArrayDeque<MemorySegment> freeHeaders = new ArrayDeque<>();

    private int rank = -1;
    private List<PeerInfo> peers = List.of();
    private UcpEndpoint[] endpoints = new UcpEndpoint[0];
    private long[] sendSeq = new long[0];
    private long[] recvSeq = new long[0];
    private volatile String[] lost = new String[0];
    private final List<OutgoingFrame> sends = new ArrayList<>();
    private final List<IncomingFrame> recvs = new ArrayList<>();
    private volatile boolean closed;
    private volatile Thread waiter;

    UcxTransport(UcpContext context, UcpWorker worker, String description, String devices, int chunkBytes, Log log) {
        this.context = context;
        this.worker = worker;
        ByteBuffer a = worker.getAddress();
        this.address = new byte[a.remaining()];
        a.get(address);
        this.description = description;
        this.devices = devices;
        this.chunkBytes = chunkBytes;
        this.log = log;
    }

    @Override
    public String name() {
        return "UCX";
    }

    @Override
    public byte[] localAddress() {
        return address.clone();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void start(int rank, List<PeerInfo> peers) {
        if (this.rank >= 0) throw new IllegalStateException("transport already started");
        this.rank = rank;
        this.peers = List.copyOf(peers);
        int n = peers.size();
        endpoints = new UcpEndpoint[n];
        sendSeq = new long[n];
        recvSeq = new long[n];
        lost = new String[n];
    }

    @Override
    public boolean tryConnect(Collection<Integer> wanted) throws IOException {
        synchronized (lock) {
            checkOpen();
            for (int peer : wanted) {
                if (peer == rank || endpoints[peer] != null) continue;
                byte[] remote = peers.get(peer).netAddressBytes();
                if (remote.length == 0) {
                    throw new PeerLostException(
                            peer,
                            "rank " + peer + " published no UCX address (is JCCL_NET=UCX set on every rank?)",
                            null);
                }
                ByteBuffer direct = ByteBuffer.allocateDirect(remote.length);
                direct.put(remote).flip();
                int p = peer;
                try {
                    endpoints[peer] = worker.newEndpoint(new UcpEndpointParams()
                            .setUcpAddress(direct)
                            .setPeerErrorHandlingMode()
                            .setName("jccl-" + rank + "-to-" + peer)
                            .setErrorHandler((ep, status, message) -> markLost(
                                    p, "UCX reports the endpoint failed: " + message + " (status " + status + ")")));
                } catch (RuntimeException e) {
                    throw new PeerLostException(
                            peer, "cannot create a UCX endpoint to rank " + peer + ": " + e.getMessage(), e);
                }
                log.info(
                        Log.Subsys.NET,
                        "Channel 00 : " + rank + "[" + rank + "] -> " + peer + "[" + peer + "] via NET/UCX/" + devices);
            }
            return true;
        }
    }

    private void markLost(int peer, String why) {
        String[] l = lost;
        if (peer < l.length && l[peer] == null) l[peer] = why;
        Thread w = waiter;
        if (w != null) LockSupport.unpark(w);
    }

    private static long tagOf(int sender, long sequence) {
        return ((long) sender << TAG_SEQ_BITS) | (sequence & TAG_SEQ_MASK);
    }

    /** The tag of frame {@code frame}'s header from {@code sender}; its payload's is the next one. */
    private static long headerTag(int sender, long frame) {
        return tagOf(sender, frame * 2);
    }

    private static long payloadTag(long headerTag) {
        return (headerTag & ~TAG_SEQ_MASK) | ((headerTag + 1) & TAG_SEQ_MASK);
    }

    /** What UCX reports of one request, set from its callback inside {@code worker.progress()}. */
    private static final class Completion extends UcxCallback {
        volatile boolean completed;
        volatile String error;
        /** For a receive: the length of the message that arrived, where JUCX reports it (0 otherwise). */
        volatile long received;

        @Override
        public void onSuccess(UcpRequest r) {
            if (r != null) received = r.getRecvSize();
            completed = true;
        }

        @Override
        public void onError(int status, String message) {
            error = message + " (status " + status + ")";
        }
    }

    // ---------------------------------------------------------------- sends

    /**
     * A frame to or from {@code peer}: its header and its payload travel as two tagged messages (an abandon frame's
     * reason rides with its header), each with its completion, through staging buffers where needed.
     */
    private abstract static class Frame {
        final int peer;
        final TransferHandle handle;
        final long tag;
        final Completion completion = new Completion();
        final Completion payloadCompletion = new Completion();
        MemorySegment headerStaging;
        MemorySegment staging;
        UcpRequest request;

        Frame(int peer, TransferHandle handle, long tag) {
            this.peer = peer;
            this.handle = handle;
            this.tag = tag;
        }
    }

    /** A frame on its way out; issued to UCX once all of its payload is ready. */
    private final class OutgoingFrame extends Frame {
        final FrameHeader header;
        final MemorySegment data;

        OutgoingFrame(int peer, FrameHeader header, MemorySegment data, TransferHandle handle, long tag) {
            super(peer, handle, tag);
            this.header = header;
            this.data = data;
        }

        boolean issued() {
            return request != null || completion.error != null;
        }

        /**
         * Hands the frame to UCX. UCX may refuse at once, with the JUCX {@code UcxException} of a failed
         * {@code ucp_tag_send_nbx}: an endpoint whose peer died is in error ("Endpoint timeout"). The refusal becomes
         * the frame's error, so that {@link #progress} reports it as a lost peer like any failed send; thrown from here
         * it reached the caller raw (seen once in {@code UcxFailureTest}: a survivor failed with the UcxException, not
         * the PeerFailedException naming the killed rank).
         */
        void issue() {
            try {
                issueToUcx();
            } catch (RuntimeException e) {
                completion.error = "UCX refused the send: " + e.getMessage();
            }
        }

        private void issueToUcx() {
            long length = data.byteSize();
            headerStaging = headerStagingFor();
            header.encode(headerStaging, 0);
            if (header.isAbandon()) {
                // The reason travels with its header, one message: the receiver's header buffer has room for it.
                MemorySegment.copy(data, 0, headerStaging, FrameHeader.BYTES, length);
                request = endpoints[peer].sendTaggedNonBlocking(
                        headerStaging.address(), FrameHeader.BYTES + length, tag, completion);
                payloadCompletion.completed = true;
                return;
            }
            request =
                    endpoints[peer].sendTaggedNonBlocking(headerStaging.address(), FrameHeader.BYTES, tag, completion);
            if (length == 0) {
                payloadCompletion.completed = true;
                return;
            }
            MemorySegment payload = data;
            if (!data.isNative()) {
                staging = stagingFor(length);
                MemorySegment.copy(data, 0, staging, 0, length);
                payload = staging;
            }
            endpoints[peer].sendTaggedNonBlocking(payload.address(), length, payloadTag(tag), payloadCompletion);
        }

        String error() {
            return completion.error != null ? completion.error : payloadCompletion.error;
        }

        boolean completed() {
            return completion.completed && payloadCompletion.completed;
        }
    }

    @Override
    public TransferHandle postSend(int peer, FrameHeader header, MemorySegment data, long readyBytes) {
        requireEndpoint(peer);
        TransferHandle handle = new TransferHandle(peer, readyBytes);
        synchronized (lock) {
            OutgoingFrame f = new OutgoingFrame(peer, header, data, handle, headerTag(rank, sendSeq[peer]++));
            sends.add(f);
            if (handle.readyBytes() >= data.byteSize() && !closed) f.issue();
        }
        return handle;
    }

    // ---------------------------------------------------------------- receives

    /** A frame this rank expects; its message is received once a probe finds it. */
    private final class IncomingFrame extends Frame {
        final FrameHeader expected;
        final RecvSink sink;
        UcpRequest payloadRequest;
        /** The header arrived and matched the expected one; only the payload is awaited. */
        boolean headerChecked;

        IncomingFrame(int peer, FrameHeader expected, RecvSink sink, TransferHandle handle, long tag) {
            super(peer, handle, tag);
            this.expected = expected;
            this.sink = sink;
        }

        /** Posts both receives, the header's with room for an abandon frame's reason. */
        void post() {
            headerStaging = headerStagingFor();
            request = worker.recvTaggedNonBlocking(
                    headerStaging.address(), headerStaging.byteSize(), tag, FULL_MASK, completion);
            long length = expected.length();
            if (length == 0) {
                payloadCompletion.completed = true;
                return;
            }
            staging = stagingFor(length);
            payloadRequest = worker.recvTaggedNonBlocking(
                    staging.address(), length, payloadTag(tag), FULL_MASK, payloadCompletion);
        }
    }

    @Override
    public TransferHandle postRecv(int peer, FrameHeader expected, int elementBytes, RecvSink sink) {
        requireEndpoint(peer);
        TransferHandle handle = new TransferHandle(peer);
        synchronized (lock) {
            IncomingFrame f = new IncomingFrame(peer, expected, sink, handle, headerTag(peer, recvSeq[peer]++));
            recvs.add(f);
            if (!closed) f.post();
        }
        return handle;
    }

    private void requireEndpoint(int peer) {
        if (endpoints[peer] == null) {
            throw new IllegalStateException("rank " + rank + " has no endpoint to " + peer + " (tryConnect first)");
        }
    }

    // ---------------------------------------------------------------- progress

    @Override
    public int progress() throws IOException {
        synchronized (lock) {
            checkOpen();
            int work;
            try {
                work = worker.progress();
            } catch (Exception e) {
                throw new IOException("UCX progress failed: " + e.getMessage(), e);
            }
            work += progressSends();
            work += progressReceives();
            return work;
        }
    }

    private int progressSends() throws PeerLostException {
        int work = 0;
        for (Iterator<OutgoingFrame> it = sends.iterator(); it.hasNext(); ) {
            OutgoingFrame f = it.next();
            failIfLost(f.peer);
            if (!f.issued()) {
                if (f.handle.readyBytes() < f.data.byteSize()) continue;
                f.issue();
                work++;
            }
            if (f.error() != null) {
                throw new PeerLostException(f.peer, "UCX send failed: " + f.error(), null);
            }
            if (f.completed()) {
                releaseHeader(f.headerStaging);
                release(f.staging);
                f.handle.markDone();
                it.remove();
                work++;
            }
        }
        return work;
    }

    private int progressReceives() throws IOException {
        int work = 0;
        for (int i = 0; i < recvs.size(); i++) {
            IncomingFrame f = recvs.get(i);
            if (f.completion.error != null) {
                throw new PeerLostException(f.peer, "UCX receive failed: " + f.completion.error, null);
            }
            if (!f.completion.completed) {
                failIfLost(f.peer);
                continue;
            }
            // The header first: an abandon frame or a different header explains a payload that never comes or does
            // not fit. Once: a large payload keeps the frame here for many rounds.
            if (!f.headerChecked) {
                checkHeader(f);
                f.headerChecked = true;
            }
            if (f.payloadCompletion.error != null) {
                throw new PeerLostException(f.peer, "UCX receive failed: " + f.payloadCompletion.error, null);
            }
            if (!f.payloadCompletion.completed) {
                failIfLost(f.peer);
                continue;
            }
            deliver(f);
            f.handle.markDone();
            releaseHeader(f.headerStaging);
            release(f.staging);
            recvs.remove(i);
            i--;
            work++;
        }
        return work;
    }

    /** Checks a received header against the expected one; an abandon frame ends the transfer with its reason. */
    private void checkHeader(IncomingFrame f) throws IOException {
        long length = f.completion.received > 0 ? f.completion.received : FrameHeader.BYTES;
        FrameHeader actual = length < FrameHeader.BYTES ? null : FrameHeader.decode(f.headerStaging, 0);
        if (actual == null) {
            throw new PeerLostException(
                    f.peer, "a UCX message of " + length + " bytes from rank " + f.peer + " is not a Jccl frame", null);
        }
        if (actual.isAbandon()) {
            long n = Math.min(actual.length(), f.headerStaging.byteSize() - FrameHeader.BYTES);
            String reason = new String(
                    f.headerStaging.asSlice(FrameHeader.BYTES, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                    StandardCharsets.UTF_8);
            throw new PeerLostException(
                    f.peer, "it stopped: " + (reason.isEmpty() ? "(no reason given)" : reason), null);
        }
        if (!f.expected.equals(actual)) throw new FrameMismatchException(f.peer, f.expected, actual);
    }

    /** Hands a received payload, whose header matched, to the sink. */
    private void deliver(IncomingFrame f) throws IOException {
        long payload = f.expected.length();
        long received = f.payloadCompletion.received;
        if (payload > 0 && received > 0 && received != payload) {
            throw new PeerLostException(
                    f.peer,
                    "frame from rank " + f.peer + " carries " + received + " bytes, its header says " + payload,
                    null);
        }
        if (payload > 0) f.sink.accept(f.staging.asSlice(0, payload), 0);
    }

    private void failIfLost(int peer) throws PeerLostException {
        String why = lost[peer];
        if (why != null) throw new PeerLostException(peer, why, null);
    }

    private void checkOpen() throws IOException {
        if (closed) throw new IOException("transport closed");
    }

    // ---------------------------------------------------------------- staging

    /** Native memory for one header, with room for an abandon frame's reason; reused. */
    private MemorySegment headerStagingFor() {
        MemorySegment s = freeHeaders.poll();
        return s != null ? s : arena.allocate(HEADER_ROOM, 64);
    }

    private void releaseHeader(MemorySegment staging) {
        if (staging != null && freeHeaders.size() < 256) freeHeaders.push(staging);
    }

    /** Native memory for one payload; buffers of a chunk are reused, larger ones are not kept. */
    private MemorySegment stagingFor(long bytes) {
        long standard = chunkBytes;
        if (bytes <= standard) {
            MemorySegment s = freeStaging.poll();
            return s != null ? s : arena.allocate(standard, 64);
        }
        return arena.allocate(bytes, 64);
    }

    private void release(MemorySegment staging) {
        if (staging != null && staging.byteSize() == chunkBytes && freeStaging.size() < 64) {
            freeStaging.push(staging);
        }
    }

    // ---------------------------------------------------------------- waiting, failure, closing

    @Override
    public void awaitIo(long maxNanos) throws IOException {
        checkOpen();
        // UCX's tcp and RDMA transports are progressed by polling; a short park bounds both the
        // CPU it costs and the latency it adds, and wakeup() or a peer failure cuts it short.
        waiter = Thread.currentThread();
        try {
            LockSupport.parkNanos(Math.max(1, Math.min(maxNanos, AWAIT_SLICE_NANOS)));
        } finally {
            waiter = null;
        }
    }

    @Override
    public boolean busy() {
        synchronized (lock) {
            return !sends.isEmpty() || !recvs.isEmpty();
        }
    }

    @Override
    public String describePending(int peer) {
        synchronized (lock) {
            long out = sends.stream().filter(f -> f.peer == peer).count();
            long unissued =
                    sends.stream().filter(f -> f.peer == peer && !f.issued()).count();
            long in = recvs.stream().filter(f -> f.peer == peer).count();
            long arrived = recvs.stream()
                    .filter(f -> f.peer == peer && f.completion.completed)
                    .count();
            StringBuilder sb = new StringBuilder();
            if (out > 0) {
                sb.append(out)
                        .append(" UCX send(s) not completed (")
                        .append(unissued)
                        .append(" waiting for their data)");
            }
            if (in > 0) {
                if (!sb.isEmpty()) sb.append("; ");
                sb.append(in).append(" receive(s) waiting, ").append(arrived).append(" of their messages arrived");
            }
            String why = peer < lost.length ? lost[peer] : null;
            if (why != null) sb.append(sb.isEmpty() ? "" : "; ").append(why);
            return sb.isEmpty() ? "nothing pending" : sb.toString();
        }
    }

    @Override
    public void wakeup() {
        Thread w = waiter;
        if (w != null) LockSupport.unpark(w);
    }

    /** Sends each connected peer an abandon frame with the reason, and gives them a moment to leave. */
    @Override
    public void abandon(String reason) {
        synchronized (lock) {
            if (closed || rank < 0) return;
            byte[] bounded = FrameHeader.abandonReason(reason);
            MemorySegment payload = arena.allocate(Math.max(1, bounded.length));
            MemorySegment.copy(MemorySegment.ofArray(bounded), 0, payload, 0, bounded.length);
            List<OutgoingFrame> goodbyes = new ArrayList<>();
            for (int peer = 0; peer < endpoints.length; peer++) {
                if (endpoints[peer] == null || lost[peer] != null) continue;
                OutgoingFrame f = new OutgoingFrame(
                        peer,
                        FrameHeader.abandon(bounded.length),
                        payload.asSlice(0, bounded.length),
                        new TransferHandle(peer),
                        headerTag(rank, sendSeq[peer]++));
                f.issue();
                // A peer that is unreachable gets no goodbye; the others still get theirs.
                if (f.error() == null) goodbyes.add(f);
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() < deadline
                    && goodbyes.stream().anyMatch(f -> !f.completed() && f.error() == null)) {
                try {
                    worker.progress();
                } catch (Exception e) {
                    break;
                }
            }
        }
    }

    private void cancel(UcpRequest request, Completion completion) {
        if (request == null || completion.completed) return;
        try {
            worker.cancelRequest(request);
        } catch (RuntimeException ignored) {
            // it completed meanwhile
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) return;
            closed = true;
            for (IncomingFrame f : recvs) {
                cancel(f.request, f.completion);
                cancel(f.payloadRequest, f.payloadCompletion);
            }
            for (UcpEndpoint ep : endpoints) {
                if (ep == null) continue;
                try {
                    UcpRequest r = ep.closeNonBlockingForce();
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                    while (r != null && !r.isCompleted() && System.nanoTime() < deadline) worker.progress();
                } catch (Exception ignored) {
                    // closing an endpoint to a dead peer can fail; the worker goes anyway
                }
            }
            worker.close();
            context.close();
            sends.clear();
            recvs.clear();
            arena.close();
        }
        wakeup();
    }
}
