package dev.jccl.transport.tcp;

import dev.jccl.JcclException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import dev.jccl.transport.Transport;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The socket transport: one NIO socket per peer pair, opened when a schedule first needs it. The higher rank of a pair
 * dials the lower one's listener and proves the job secret in a {@link DataHello}; the lower rank accepts while it
 * progresses. All I/O is non-blocking and driven by the thread running the operation, so a blocking collective costs no
 * thread handoff. A socket whose last read drained it is read again only once a selector says bytes came (see
 * {@code TcpConnection.readable}).
 */
public final class TcpTransport implements Transport {
    private static final long DIAL_TIMEOUT_MILLIS = 10_000;
    /** A real peer writes its hello right after connecting; a caller silent this long is not one. */
    static final long HELLO_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Callers still owing a hello; past this the oldest is refused, so a flood cannot exhaust descriptors. */
    private static final int MAX_PENDING_ACCEPTS = 64;

    private int rank = -1;
    private final long commId;
    private final byte[] secret;
    private final int stagingBytes;
    private final Log log;
    private final ServerSocketChannel listener;
    private final Selector selector;
    /**
     * A second selector on every connection, always for reads: what {@link #progress} asks before reading a socket its
     * last read drained (see {@code TcpConnection.needsPoll}). {@link #selector}'s interest follows what the blocked
     * operation waits for, and changing it costs a system call per change; this one's never changes.
     */
    private final Selector readiness;

    private TcpConnection[] connections = new TcpConnection[0];
    private final List<PendingAccept> accepting = new ArrayList<>();
    private final List<TcpConnection> active = new ArrayList<>();
    private List<PeerInfo> peers = List.of();
    private volatile boolean closed;
    /** The listener was readable at the last select: accept even if nobody is expected. */
    private boolean acceptReady;

    private long lastAcceptPollNanos = System.nanoTime();
    private static final long ACCEPT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final class PendingAccept {
        final SocketChannel channel;
        final ByteBuffer hello = ByteBuffer.allocate(DataHello.BYTES);
        final SelectionKey key;
        final long acceptedNanos = System.nanoTime();

        PendingAccept(SocketChannel channel, SelectionKey key) {
            this.channel = channel;
            this.key = key;
        }
    }

    /**
     * Opens the listener on {@code bindAddress} (port chosen by the OS). The transport carries no data until
     * {@link #start} tells it this rank's place and the peers' addresses, which are only known after the listener's
     * address has been exchanged.
     */
    public TcpTransport(long commId, byte[] secret, int stagingBytes, InetAddress bindAddress, Log log) {
        this.commId = commId;
        this.secret = secret.clone();
        this.stagingBytes = stagingBytes;
        this.log = log;
        try {
            this.selector = Selector.open();
            this.readiness = Selector.open();
            this.listener = ServerSocketChannel.open();
            listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            listener.bind(new InetSocketAddress(bindAddress, 0), 1024);
            listener.configureBlocking(false);
            listener.register(selector, 0);
        } catch (IOException e) {
            throw new JcclException("cannot listen on " + bindAddress.getHostAddress() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "Socket";
    }

    public InetSocketAddress listenAddress() {
        try {
            return (InetSocketAddress) listener.getLocalAddress();
        } catch (IOException e) {
            throw new JcclException("listener closed", e);
        }
    }

    /** This rank's place, and the peer table from the bootstrap: where to dial each lower rank. */
    public void start(int rank, List<PeerInfo> peers) {
        if (this.rank >= 0) throw new IllegalStateException("transport already started");
        this.rank = rank;
        this.peers = List.copyOf(peers);
        this.connections = new TcpConnection[peers.size()];
    }

    @Override
    public boolean tryConnect(Collection<Integer> wanted) throws IOException {
        boolean all = true;
        for (int peer : wanted) {
            if (peer == rank || connections[peer] != null) continue;
            if (peer < rank) {
                dial(peer);
            } else {
                all = false;
            }
        }
        if (!all) {
            acceptPending();
            all = true;
            for (int peer : wanted) {
                if (peer != rank && connections[peer] == null) all = false;
            }
        }
        return all;
    }

    private void dial(int peer) throws IOException {
        PeerInfo p = peers.get(peer);
        InetSocketAddress address = new InetSocketAddress(p.dataHost(), p.dataPort());
        SocketChannel ch = SocketChannel.open();
        try {
            ch.socket().connect(address, (int) DIAL_TIMEOUT_MILLIS);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer hello = DataHello.encode(commId, rank, peer, secret);
            while (hello.hasRemaining()) ch.write(hello);
            ch.configureBlocking(false);
        } catch (IOException e) {
            ch.close();
            throw new PeerLostException(peer, "cannot connect to " + address + ": " + e.getMessage(), e);
        }
        register(peer, ch);
        log.info(
                Log.Subsys.NET,
                "Channel 00 : " + rank + "[" + rank + "] -> " + peer + "[" + peer + "] via NET/Socket/"
                        + address.getAddress().getHostAddress() + " (dialled)");
    }

    private void register(int peer, SocketChannel ch) throws IOException {
        TcpConnection c = new TcpConnection(peer, ch, stagingBytes);
        c.setKey(ch.register(selector, 0, c));
        ch.register(readiness, SelectionKey.OP_READ, c);
        connections[peer] = c;
    }

    /**
     * Accepts incoming connections and completes their hellos without blocking. Anything that is not a peer of this job
     * proving the secret costs one warning line and its connection: a caller that closes early, stays silent past
     * {@link #HELLO_TIMEOUT_NANOS}, or sends bytes that are not a hello of this communicator.
     */
    private int acceptPending() throws IOException {
        int work = 0;
        acceptReady = false;
        SocketChannel ch;
        while ((ch = listener.accept()) != null) {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            if (accepting.size() >= MAX_PENDING_ACCEPTS) {
                refuse(accepting.removeFirst(), "too many callers without a hello");
            }
            accepting.add(new PendingAccept(ch, ch.register(selector, 0)));
            work++;
        }
        long now = System.nanoTime();
        for (Iterator<PendingAccept> it = accepting.iterator(); it.hasNext(); ) {
            PendingAccept pa = it.next();
            int n;
            try {
                n = pa.channel.read(pa.hello);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                refuse(pa, "closed after " + pa.hello.position() + " of the hello's " + DataHello.BYTES + " bytes");
                it.remove();
                continue;
            }
            if (pa.hello.hasRemaining()) {
                if (now - pa.acceptedNanos > HELLO_TIMEOUT_NANOS) {
                    refuse(
                            pa,
                            "sent " + pa.hello.position() + " of the hello's " + DataHello.BYTES + " bytes in "
                                    + TimeUnit.NANOSECONDS.toSeconds(HELLO_TIMEOUT_NANOS) + " s");
                    it.remove();
                }
                continue;
            }
            it.remove();
            work++;
            pa.hello.flip();
            DataHello.Parsed h = DataHello.decode(pa.hello);
            if (h == null) {
                refuse(pa, DataHello.whyNot(pa.hello));
            } else if (h.commId() != commId || h.to() != rank) {
                refuse(
                        pa,
                        "hello for communicator " + Long.toHexString(h.commId()) + " rank " + h.to() + ", this is "
                                + Long.toHexString(commId) + " rank " + rank);
            } else if (!DataHello.valid(h, secret)) {
                refuse(pa, "wrong token (not this job's secret)");
            } else if (h.from() <= rank || h.from() >= connections.length) {
                refuse(pa, "unexpected caller rank " + h.from());
            } else if (connections[h.from()] != null) {
                refuse(pa, "rank " + h.from() + " is already connected");
            } else {
                pa.key.cancel();
                selector.selectNow(); // completes the cancellation so the channel can be registered again
                register(h.from(), pa.channel);
                log.info(
                        Log.Subsys.NET,
                        "Channel 00 : " + h.from() + "[" + h.from() + "] -> " + rank + "[" + rank + "] via NET/Socket/"
                                + listenAddress().getAddress().getHostAddress() + " (accepted)");
            }
        }
        return work;
    }

    private void refuse(PendingAccept pa, String reason) {
        String remote;
        try {
            remote = String.valueOf(pa.channel.getRemoteAddress());
        } catch (IOException e) {
            remote = "?";
        }
        log.warn(Log.Subsys.NET, "refused data connection from " + remote + ": " + reason);
        pa.key.cancel();
        try {
            pa.channel.close();
        } catch (IOException ignored) {
            // refusing is all we wanted
        }
    }

    private TcpConnection connection(int peer) {
        TcpConnection c = connections[peer];
        if (c == null) {
            throw new IllegalStateException("rank " + rank + " has no connection to " + peer + " (tryConnect first)");
        }
        return c;
    }

    @Override
    public TransferHandle postSend(int peer, FrameHeader header, MemorySegment data, long readyBytes) {
        TcpConnection c = connection(peer);
        markActive(c);
        return c.postSend(header, data, readyBytes);
    }

    @Override
    public TransferHandle postRecv(int peer, FrameHeader expected, int elementBytes, RecvSink sink) {
        TcpConnection c = connection(peer);
        markActive(c);
        return c.postRecv(expected, elementBytes, sink);
    }

    private void markActive(TcpConnection c) {
        if (!active.contains(c)) active.add(c);
    }

    @Override
    public int progress() throws IOException {
        if (closed) throw new IOException("transport closed");
        int work = 0;
        boolean poll = false;
        for (int i = 0; i < active.size(); i++) poll |= active.get(i).needsPoll();
        if (poll) readiness.selectNow(onReady);
        for (int i = active.size() - 1; i >= 0; i--) {
            TcpConnection c = active.get(i);
            work += c.progress();
            if (!c.wantsRead() && !c.hasSends()) active.remove(i);
        }
        // Callers nobody expects (strangers, scanners) are looked at a few times a second even
        // while every operation finds its data without waiting, so they are refused promptly.
        long now = System.nanoTime();
        if (now - lastAcceptPollNanos > ACCEPT_POLL_NANOS) {
            lastAcceptPollNanos = now;
            acceptReady = true;
        }
        if (!accepting.isEmpty() || acceptReady) work += acceptPending();
        return work;
    }

    /** {@link #ready} as the selectors' action, made once: progress looks at {@link #readiness} often. */
    private static final Consumer<SelectionKey> onReady = TcpTransport::ready;

    /** A key a selector found ready; a connection's means bytes (or an end) to read. */
    private static void ready(SelectionKey key) {
        if (key.attachment() instanceof TcpConnection c && key.isValid() && key.isReadable()) c.markReadable();
    }

    @Override
    public void awaitIo(long maxNanos) throws IOException {
        if (closed) throw new IOException("transport closed");
        SelectionKey lk = listener.keyFor(selector);
        lk.interestOps(SelectionKey.OP_ACCEPT);
        for (PendingAccept pa : accepting) pa.key.interestOps(SelectionKey.OP_READ);
        for (TcpConnection c : active) {
            int ops = (c.wantsRead() ? SelectionKey.OP_READ : 0) | (c.wantsWrite() ? SelectionKey.OP_WRITE : 0);
            if (c.key().interestOps() != ops) c.key().interestOps(ops);
        }
        long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(maxNanos));
        selector.select(millis);
        if (lk.isValid() && selector.selectedKeys().contains(lk)) acceptReady = true;
        for (SelectionKey k : selector.selectedKeys()) ready(k);
        selector.selectedKeys().clear();
        for (TcpConnection c : active) c.key().interestOps(0);
    }

    @Override
    public boolean busy() {
        return !active.isEmpty() || !accepting.isEmpty();
    }

    @Override
    public String describePending(int peer) {
        TcpConnection c = connections[peer];
        if (c == null) return peer > rank ? "rank " + peer + " has not connected to us" : "not connected";
        return c.describePending();
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    /** Sends every connection an abandon frame with {@code reason}, where that can be done at once. */
    @Override
    public void abandon(String reason) {
        if (closed) return;
        byte[] bounded = FrameHeader.abandonReason(reason);
        for (TcpConnection c : connections) {
            if (c != null) c.sendAbandon(bounded);
        }
    }

    @Override
    public void close() {
        // Abort (from any thread) and close may arrive together: exactly one of them releases.
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        for (TcpConnection c : connections) {
            if (c != null) c.close();
        }
        for (PendingAccept pa : accepting) {
            try {
                pa.channel.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
        try {
            listener.close();
        } catch (IOException ignored) {
            // best effort
        }
        try {
            selector.wakeup();
            selector.close();
        } catch (IOException ignored) {
            // best effort
        }
        try {
            readiness.close();
        } catch (IOException ignored) {
            // best effort
        }
    }
}
