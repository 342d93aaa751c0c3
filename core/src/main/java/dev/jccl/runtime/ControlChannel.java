package dev.jccl.runtime;

import dev.jccl.FailureVerdict;
import dev.jccl.JcclException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A rank's side channel, apart from the data path that may be stuck: a small TCP listener, served by its own threads,
 * that answers "where are you?" ({@link RankStatus}) and, on the rank that decides, "what went wrong?"
 * ({@link FailureVerdict}). It answers while the rank's operation thread is blocked in a collective; a rank whose
 * process is stopped or gone cannot answer, and that silence is itself the evidence {@link FailureAgreement} needs.
 *
 * <p>Every request carries a token derived from the communicator's secret, so only the job's own ranks are answered.
 */
final class ControlChannel implements AutoCloseable {
    private static final int MAGIC = 0x4A43544C; // "JCTL"
    private static final byte ASK_STATUS = 1;
    private static final byte ASK_VERDICT = 2;
    private static final byte JOIN = 3;
    /** How long a member waits for the coordinator's table beyond the time the coordinator may take to settle it. */
    private static final int JOIN_SLACK_MILLIS = 2_000;

    private static final int REQUEST_READ_MILLIS = 5_000;
    /** A listener that is there accepts at once (even a stopped process's kernel does); longer means no host. */
    private static final int CONNECT_MILLIS = 5_000;

    /** What this rank says when asked; set once the communicator exists. */
    interface Responder {
        RankStatus status();

        /** Decides (the first time) and returns the verdict for rank {@code asker}; blocks while ranks are asked. */
        FailureVerdict verdictFor(int asker);
    }

    private final ServerSocket server;
    private final byte[] token;
    private final Thread acceptor;
    private final Rendezvous rendezvous = new Rendezvous();
    private volatile Responder responder;
    private volatile boolean closed;

    private ControlChannel(ServerSocket server, byte[] token) {
        this.server = server;
        this.token = token;
        this.acceptor = Thread.ofPlatform()
                .daemon()
                .name("jccl-control-" + server.getLocalPort())
                .unstarted(this::acceptLoop);
    }

    /** Listens on {@code address} (the interface the data path uses), any free port. */
    static ControlChannel open(InetAddress address, byte[] secret, long commId) {
        try {
            ServerSocket s = new ServerSocket();
            // A split brings every rank to the coordinator at once: a short backlog would make thousands retry.
            s.bind(new InetSocketAddress(address, 0), 4096);
            ControlChannel c = new ControlChannel(s, token(secret, commId));
            c.acceptor.start();
            return c;
        } catch (IOException e) {
            throw new JcclException(
                    "cannot open the control listener on " + address.getHostAddress() + ": " + e.getMessage()
                            + " (it carries the ranks' failure reports)",
                    e);
        }
    }

    int port() {
        return server.getLocalPort();
    }

    byte[] token() {
        return token.clone();
    }

    void serve(Responder r) {
        responder = r;
    }

    /** The membership rounds this rank coordinates (a split's, a shrink's). */
    Rendezvous rendezvous() {
        return rendezvous;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().name("jccl-control-request").start(() -> answer(s));
            } catch (IOException e) {
                if (closed) return;
            }
        }
    }

    private void answer(Socket socket) {
        try (socket) {
            socket.setSoTimeout(REQUEST_READ_MILLIS);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            if (in.readInt() != MAGIC) return;
            byte[] theirs = new byte[token.length];
            in.readFully(theirs);
            if (!MessageDigest.isEqual(theirs, token)) return; // not this job: say nothing
            byte kind = in.readByte();
            Responder r = responder;
            if (kind == JOIN) {
                answerJoin(in, out);
            } else if (r == null) {
                out.writeBoolean(false);
                out.writeUTF("still initialising");
            } else if (kind == ASK_STATUS) {
                out.writeBoolean(true);
                r.status().write(out);
            } else if (kind == ASK_VERDICT) {
                FailureVerdict v = r.verdictFor(in.readInt());
                out.writeBoolean(true);
                writeVerdict(out, v);
            } else {
                return;
            }
            out.flush();
        } catch (IOException | RuntimeException e) {
            // The asker sees a closed connection and treats this rank as not answering.
        }
    }

    /** A member's contribution to a membership round this rank coordinates: answers the table, or why not. */
    private void answerJoin(DataInputStream in, DataOutputStream out) throws IOException {
        long id = in.readLong();
        int member = in.readInt();
        int waitMillis = in.readInt();
        byte[] contribution = Rendezvous.readBytes(in);
        Rendezvous.Table table;
        try {
            table = rendezvous.joined(id, member, contribution, TimeUnit.MILLISECONDS.toNanos(waitMillis));
        } catch (JcclException e) {
            out.writeBoolean(false);
            writeLong(out, e.getMessage());
            return;
        }
        out.writeBoolean(true);
        table.write(out);
    }

    /**
     * Sends this rank's contribution to membership round {@code id} at the coordinator at {@code address} and returns
     * the table it settles: waiting at most {@code waitMillis} for the coordinator to take part, then as long again for
     * it to settle the round (plus a little for the wire).
     *
     * @throws IOException if the coordinator cannot be reached or does not answer in time
     * @throws JcclException if the coordinator settled the round and it failed, or left this rank out
     */
    static Rendezvous.Table join(
            InetSocketAddress address, byte[] token, long id, int member, byte[] contribution, int waitMillis)
            throws IOException {
        try (Socket s = connect(address, token, JOIN, 2 * waitMillis + JOIN_SLACK_MILLIS)) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeLong(id);
            out.writeInt(member);
            out.writeInt(waitMillis);
            Rendezvous.writeBytes(out, contribution);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            if (!in.readBoolean()) throw new JcclException(readLong(in));
            return Rendezvous.Table.read(in);
        }
    }

    /**
     * The rank answered, but its communicator is not made yet ({@link #serve} not called): it is alive and answers once
     * its start-up ends. A rank that aborts as soon as its own init returns can ask while its peers finish theirs.
     */
    static final class NotReadyException extends IOException {
        NotReadyException(String message) {
            super(message);
        }
    }

    /** Asks the rank at {@code address} where it is; {@link NotReadyException} while it is still starting. */
    static RankStatus askStatus(InetSocketAddress address, byte[] token, int timeoutMillis) throws IOException {
        try (Socket s = connect(address, token, ASK_STATUS, timeoutMillis)) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            if (!in.readBoolean()) throw new NotReadyException("it is " + in.readUTF());
            return RankStatus.read(in);
        }
    }

    /**
     * Asks the rank at {@code address} for the verdict, which it decides if no one has asked it before;
     * {@link NotReadyException} while it is still starting.
     */
    static FailureVerdict askVerdict(InetSocketAddress address, byte[] token, int asker, int timeoutMillis)
            throws IOException {
        try (Socket s = connect(address, token, ASK_VERDICT, timeoutMillis)) {
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(asker);
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            if (!in.readBoolean()) throw new NotReadyException("it is " + in.readUTF());
            return readVerdict(in);
        }
    }

    private static Socket connect(InetSocketAddress address, byte[] token, byte kind, int timeoutMillis)
            throws IOException {
        Socket s = new Socket();
        try {
            s.connect(address, Math.min(timeoutMillis, CONNECT_MILLIS));
            s.setSoTimeout(timeoutMillis);
            s.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(MAGIC);
            out.write(token);
            out.writeByte(kind);
            out.flush();
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static void writeVerdict(DataOutputStream out, FailureVerdict v) throws IOException {
        out.writeInt(v.culprits().size());
        for (int r : v.culprits()) out.writeInt(r);
        writeLong(out, v.operation());
        writeLong(out, v.explanation());
        out.writeInt(v.decidedBy());
    }

    private static FailureVerdict readVerdict(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 20) throw new IOException("malformed verdict (" + n + " culprits)");
        List<Integer> culprits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) culprits.add(in.readInt());
        return new FailureVerdict(culprits, readLong(in), readLong(in), in.readInt());
    }

    /** Text of any length (writeUTF stops at 64 KiB, and a verdict over thousands of ranks may pass that). */
    private static void writeLong(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readLong(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 24) throw new IOException("malformed text of " + n + " bytes");
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] token(byte[] secret, long commId) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("jccl-control".getBytes(StandardCharsets.US_ASCII));
            d.update(secret);
            d.update(ByteBuffer.allocate(8).putLong(commId).array());
            return d.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing: nothing to do
        }
        try {
            acceptor.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A connection the peer's host reset before the peer answered: its process closed the socket without reading the
     * question, which a process being killed does (seen in the fault suite, kill -9 over TCP: the connection was taken
     * into the dying process's backlog, then reset as the kernel closed its sockets).
     */
    static boolean reset(IOException e) {
        return e instanceof SocketException && String.valueOf(e.getMessage()).contains("reset");
    }

    /** A connection the peer's host turned away: nothing listens there any more. */
    static boolean refused(IOException e) {
        return e instanceof java.net.ConnectException
                || e instanceof SocketException
                        && String.valueOf(e.getMessage()).contains("refused");
    }
}
