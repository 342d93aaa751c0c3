package dev.jccl.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What every rank tells the others at start-up: who it is, where it runs, where to reach it.
 *
 * @param hostId    host identity (see {@code HostIdentity}); equal ids share memory
 * @param dataHost  address of this rank's data listener
 * @param dataPort  port of this rank's data listener
 */
public record PeerInfo(int rank, String hostId, String hostName, long pid, String dataHost, int dataPort) {

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(rank);
            out.writeUTF(hostId);
            out.writeUTF(hostName);
            out.writeLong(pid);
            out.writeUTF(dataHost);
            out.writeInt(dataPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes one record; a malformed one is an {@link IOException}, never a large allocation. */
    public static PeerInfo decode(DataInputStream in) throws IOException {
        int rank = in.readInt();
        String hostId = in.readUTF();
        String hostName = in.readUTF();
        long pid = in.readLong();
        String dataHost = in.readUTF();
        int dataPort = in.readInt();
        if (dataPort < 0 || dataPort > 65535) throw new IOException("bad data port " + dataPort);
        return new PeerInfo(rank, hostId, hostName, pid, dataHost, dataPort);
    }

    public static PeerInfo decode(byte[] bytes) throws IOException {
        return decode(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    /** {@code host:pid}, as error messages print a peer. */
    public String where() {
        return hostName + ":pid " + pid;
    }
}
