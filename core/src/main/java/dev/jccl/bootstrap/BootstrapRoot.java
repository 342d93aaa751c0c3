package dev.jccl.bootstrap;

import dev.jccl.BootstrapException;
import dev.jccl.debug.Log;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Rank 0's side of the rendezvous: admits each rank that proves the secret, and once all have arrived sends everyone
 * the table of peers. Runs on rank 0's init thread; each connection's handshake runs on a virtual thread, so a slow or
 * hostile client cannot stall the others.
 *
 * <p>Deadline: each rank says how long it is willing to wait; when the earliest of those (or rank 0's own) passes with
 * ranks still missing, every waiting rank gets an ERROR frame naming the missing ranks, so all of them fail with the
 * same useful message instead of a bare timeout.
 */
final class BootstrapRoot {
    private static final long HANDSHAKE_MILLIS = 10_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private record Session(PeerInfo info, Socket socket, DataOutputStream out, byte[] rankNonce, long deadlineNanos) {}

    private final ServerSocketChannel listener;
    private final int size;
    private final byte[] secret;
    private final Log log;
    private final String rootAddress;
    private final Map<Integer, Session> joined = new TreeMap<>();
    private final List<Thread> handshakes = new ArrayList<>();

    BootstrapRoot(ServerSocketChannel listener, int size, byte[] secret, Log log) throws IOException {
        this.listener = listener;
        this.size = size;
        this.secret = secret;
        this.log = log;
        this.rootAddress = String.valueOf(listener.getLocalAddress());
    }

    List<PeerInfo> serve(PeerInfo self, long deadlineNanos, long startNanos) {
        try {
            listener.configureBlocking(true);
            listener.socket().setSoTimeout(50);
            while (true) {
                long earliest = deadlineNanos;
                synchronized (joined) {
                    if (joined.size() == size - 1) break;
                    for (Session s : joined.values()) earliest = Math.min(earliest, s.deadlineNanos);
                }
                if (System.nanoTime() - earliest >= 0) {
                    fail(startNanos);
                }
                Socket socket;
                try {
                    socket = listener.socket().accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                Thread t = Thread.ofVirtual().name("jccl-bootstrap-handshake").start(() -> handshake(socket));
                handshakes.add(t);
            }
            return sendTables(self);
        } catch (IOException e) {
            closeAll("the root failed: " + e.getMessage());
            throw new BootstrapException("bootstrap root at " + rootAddress + " failed: " + e.getMessage(), e);
        } finally {
            for (Thread t : handshakes) t.interrupt();
            try {
                listener.close();
            } catch (IOException ignored) {
                // closing a listener we are done with cannot lose data
            }
        }
    }

    private void fail(long startNanos) {
        List<Integer> missing = new ArrayList<>();
        List<Integer> present = new ArrayList<>();
        present.add(0);
        synchronized (joined) {
            for (int r = 1; r < size; r++) {
                if (joined.containsKey(r)) present.add(r);
                else missing.add(r);
            }
        }
        double waited = (System.nanoTime() - startNanos) / 1e9;
        String message = String.format(
                "bootstrap: rank%s %s of %d did not join the root at %s within %.1f s (joined: %s). "
                        + "Are they running, with the same JCCL_ID and world size? Raise JCCL_TIMEOUT "
                        + "if they start slowly.",
                missing.size() == 1 ? "" : "s", join(missing), size, rootAddress, waited, join(present));
        closeAll(message);
        throw new BootstrapException(message);
    }

    private static String join(List<Integer> ranks) {
        StringBuilder sb = new StringBuilder();
        for (int r : ranks) {
            if (!sb.isEmpty()) sb.append(", ");
            sb.append(r);
        }
        return sb.toString();
    }

    private void handshake(Socket socket) {
        String remote = String.valueOf(socket.getRemoteSocketAddress());
        DataOutputStream out = null;
        try {
            socket.setSoTimeout((int) HANDSHAKE_MILLIS);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
            byte[] nonce = new byte[BootstrapFrames.NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            BootstrapFrames.write(out, BootstrapFrames.CHALLENGE, nonce);
            BootstrapFrames.Frame frame = BootstrapFrames.read(in);
            if (frame.type() != BootstrapFrames.HELLO) {
                throw new BootstrapFrames.ProtocolException("expected HELLO, got type " + frame.type());
            }
            DataInputStream hello = new DataInputStream(new java.io.ByteArrayInputStream(frame.payload()));
            int rank = hello.readInt();
            int claimedSize = hello.readInt();
            long remainingMillis = hello.readLong();
            byte[] rankNonce = new byte[BootstrapFrames.NONCE_BYTES];
            hello.readFully(rankNonce);
            byte[] proof = new byte[BootstrapFrames.PROOF_BYTES];
            hello.readFully(proof);
            byte[] expected = BootstrapFrames.hmac(secret, "hello", nonce, BootstrapFrames.intBytes(rank, claimedSize));
            if (!BootstrapFrames.sameProof(proof, expected)) {
                refuse(socket, out, remote, "wrong secret (the JCCL_ID or JCCL_SECRET differs from this job's)");
                return;
            }
            if (claimedSize != size) {
                refuse(
                        socket,
                        out,
                        remote,
                        "rank " + rank + " says the job has " + claimedSize + " ranks, the root was started with "
                                + size);
                return;
            }
            if (rank < 1 || rank >= size) {
                refuse(socket, out, remote, "rank " + rank + " is outside 1.." + (size - 1));
                return;
            }
            PeerInfo info = PeerInfo.decode(hello);
            if (info.rank() != rank) {
                throw new BootstrapFrames.ProtocolException("peer info rank " + info.rank() + " != " + rank);
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, remainingMillis));
            synchronized (joined) {
                Session prior = joined.get(rank);
                if (prior != null) {
                    refuse(
                            socket,
                            out,
                            remote,
                            "rank " + rank + " already joined from " + prior.info.where()
                                    + "; is the same rank started twice?");
                    return;
                }
                socket.setSoTimeout(0);
                joined.put(rank, new Session(info, socket, out, rankNonce, deadline));
            }
            log.info(Log.Subsys.BOOTSTRAP, "rank " + rank + " joined from " + info.where() + " (" + remote + ")");
        } catch (IOException | RuntimeException e) {
            // Whatever a client sends, it costs it its connection and nothing else.
            String reason = e instanceof java.nio.channels.ClosedByInterruptException
                    ? "still silent when every rank had joined"
                    : e instanceof java.net.SocketTimeoutException
                            ? "sent no complete frame within " + HANDSHAKE_MILLIS / 1000 + " s"
                            : e instanceof java.io.EOFException
                                    ? "connection closed mid-frame (" + e.getMessage() + ")"
                                    : e.getMessage() != null
                                            ? e.getMessage()
                                            : e.getClass().getSimpleName();
            if (out != null) refuse(socket, out, remote, reason);
            else closeQuietly(socket);
        }
    }

    private void refuse(Socket socket, DataOutputStream out, String remote, String reason) {
        log.warn(Log.Subsys.BOOTSTRAP, "refused connection from " + remote + ": " + reason);
        try {
            BootstrapFrames.write(
                    out,
                    BootstrapFrames.ERROR,
                    ("root refused this connection: " + reason).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (IOException ignored) {
            // the peer may already be gone; refusing it is all we wanted
        }
        closeQuietly(socket);
    }

    private List<PeerInfo> sendTables(PeerInfo self) throws IOException {
        List<PeerInfo> table = new ArrayList<>(size);
        table.add(self);
        synchronized (joined) {
            for (Session s : joined.values()) table.add(s.info);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream tableOut = new DataOutputStream(body);
        tableOut.writeInt(size);
        for (PeerInfo p : table) tableOut.write(p.encode());
        byte[] tableBytes = body.toByteArray();
        for (Session s : joined.values()) {
            byte[] proof = BootstrapFrames.hmac(secret, "table", s.rankNonce);
            byte[] payload = new byte[proof.length + tableBytes.length];
            System.arraycopy(proof, 0, payload, 0, proof.length);
            System.arraycopy(tableBytes, 0, payload, proof.length, tableBytes.length);
            BootstrapFrames.write(s.out, BootstrapFrames.TABLE, payload);
        }
        for (Session s : joined.values()) closeQuietly(s.socket);
        return table;
    }

    private void closeAll(String message) {
        synchronized (joined) {
            for (Session s : joined.values()) {
                try {
                    BootstrapFrames.write(
                            s.out, BootstrapFrames.ERROR, message.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                } catch (IOException ignored) {
                    // that rank is gone already; the others still get the message
                }
                closeQuietly(s.socket);
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to recover
        }
    }
}
