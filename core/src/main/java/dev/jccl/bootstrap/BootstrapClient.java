package dev.jccl.bootstrap;

import dev.jccl.BootstrapException;
import dev.jccl.debug.Log;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A non-root rank's side of the rendezvous: reach rank 0, prove the secret, get the peer table. */
final class BootstrapClient {
    /** Reported to the root as slightly less than we will wait, so its verdict reaches us in time. */
    private static final long MARGIN_MILLIS = 300;

    private static final SecureRandom RANDOM = new SecureRandom();

    private BootstrapClient() {}

    static List<PeerInfo> join(
            InetSocketAddress root,
            int rank,
            int size,
            byte[] secret,
            PeerInfo self,
            long deadlineNanos,
            long timeoutMillis,
            Log log) {
        Socket socket = connect(root, rank, deadlineNanos, timeoutMillis);
        try (socket) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(soTimeout(deadlineNanos, 1000));
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            BootstrapFrames.Frame challenge = BootstrapFrames.read(in);
            if (challenge.type() == BootstrapFrames.ERROR) throw refused(rank, root, challenge);
            if (challenge.type() != BootstrapFrames.CHALLENGE
                    || challenge.payload().length != BootstrapFrames.NONCE_BYTES) {
                throw new BootstrapException(
                        "rank " + rank + ": " + root + " did not answer like a Jccl root (is JCCL_ID right?)");
            }
            byte[] rankNonce = new byte[BootstrapFrames.NONCE_BYTES];
            RANDOM.nextBytes(rankNonce);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            DataOutputStream hello = new DataOutputStream(body);
            hello.writeInt(rank);
            hello.writeInt(size);
            hello.writeLong(
                    Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) - MARGIN_MILLIS));
            hello.write(rankNonce);
            hello.write(
                    BootstrapFrames.hmac(secret, "hello", challenge.payload(), BootstrapFrames.intBytes(rank, size)));
            hello.write(self.encode());
            BootstrapFrames.write(out, BootstrapFrames.HELLO, body.toByteArray());
            log.info(Log.Subsys.BOOTSTRAP, "joined root " + root + ", waiting for all " + size + " ranks");

            socket.setSoTimeout(soTimeout(deadlineNanos, 1000 + MARGIN_MILLIS));
            BootstrapFrames.Frame reply;
            try {
                reply = BootstrapFrames.read(in);
            } catch (SocketTimeoutException e) {
                throw new BootstrapException(
                        "rank " + rank + " joined the root at " + root + " but no peer table arrived within "
                                + timeoutMillis / 1000.0 + " s; the root (rank 0) may be stuck or dead");
            }
            if (reply.type() == BootstrapFrames.ERROR) throw refused(rank, root, reply);
            if (reply.type() != BootstrapFrames.TABLE) {
                throw new BootstrapException("rank " + rank + ": unexpected frame from root");
            }
            DataInputStream table = new DataInputStream(new java.io.ByteArrayInputStream(reply.payload()));
            byte[] proof = new byte[BootstrapFrames.PROOF_BYTES];
            table.readFully(proof);
            if (!BootstrapFrames.sameProof(proof, BootstrapFrames.hmac(secret, "table", rankNonce))) {
                throw new BootstrapException("rank " + rank + ": the process at " + root
                        + " does not know this job's secret; refusing its peer table");
            }
            int n = table.readInt();
            if (n != size) {
                throw new BootstrapException(
                        "rank " + rank + ": root sent a table of " + n + " ranks, expected " + size);
            }
            List<PeerInfo> peers = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                PeerInfo p = PeerInfo.decode(table);
                if (p.rank() != i) {
                    throw new BootstrapException(
                            "rank " + rank + ": malformed peer table (entry " + i + " is rank " + p.rank() + ")");
                }
                peers.add(p);
            }
            return peers;
        } catch (IOException e) {
            throw new BootstrapException(
                    "rank " + rank + ": rendezvous with root " + root + " failed: " + e.getMessage(), e);
        }
    }

    private static BootstrapException refused(int rank, InetSocketAddress root, BootstrapFrames.Frame f) {
        return new BootstrapException(
                "rank " + rank + ": " + new String(f.payload(), StandardCharsets.UTF_8) + " [root " + root + "]");
    }

    private static int soTimeout(long deadlineNanos, long graceMillis) {
        long ms = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + graceMillis;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    }

    /** Connects, retrying while the root is not listening yet (ranks start in any order). */
    private static Socket connect(InetSocketAddress root, int rank, long deadlineNanos, long timeoutMillis) {
        IOException last = null;
        long pause = 20;
        while (System.nanoTime() - deadlineNanos < 0) {
            Socket s = new Socket();
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
                s.connect(root, (int) Math.max(1, Math.min(left, 5000)));
                return s;
            } catch (ConnectException | SocketTimeoutException e) {
                last = e;
            } catch (IOException e) {
                last = e;
            }
            try {
                s.close();
                Thread.sleep(pause);
            } catch (IOException ignored) {
                // a socket that never connected
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BootstrapException("rank " + rank + ": interrupted while connecting to the root at " + root);
            }
            pause = Math.min(500, pause * 2);
        }
        throw new BootstrapException("rank " + rank + " could not reach the root (rank 0) at " + root + " within "
                + timeoutMillis / 1000.0 + " s" + (last == null ? "" : " (" + last.getMessage() + ")")
                + ". Is rank 0 running, and do all ranks use the same JCCL_ID / JCCL_ROOT?");
    }
}
