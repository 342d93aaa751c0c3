package dev.jccl.bootstrap;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Wire format of the rendezvous with rank 0.
 *
 * <pre>
 *   0       4       6       8          12
 *   +-------+-------+-------+----------+---------------------+
 *   | magic |version| type  |  length  | payload (length B)  |
 *   | JCBS  |  u16  |  u16  |   u32    |                     |
 *   +-------+-------+-------+----------+---------------------+
 *
 *   root  -> rank : CHALLENGE  nonce[16]
 *   rank  -> root : HELLO      rank i32, size i32, remainingMillis i64, rankNonce[16],
 *                              proof[32] = HMAC-SHA256(secret, "hello" | nonce | rank | size),
 *                              PeerInfo
 *   root  -> rank : TABLE      proof[32] = HMAC-SHA256(secret, "table" | rankNonce), size i32, PeerInfo × size
 *   root  -> rank : ERROR      UTF-8 text
 * </pre>
 *
 * The length is checked against {@link #MAX_PAYLOAD} before anything is allocated, so a garbage or hostile frame costs
 * the root nothing but the connection.
 */
final class BootstrapFrames {
    static final int MAGIC = 0x4A434253; // "JCBS"
    static final short VERSION = 4;
    static final short CHALLENGE = 1;
    static final short HELLO = 2;
    static final short TABLE = 3;
    static final short ERROR = 4;
    static final int HEADER_BYTES = 12;
    /** Peer info is ~100 bytes; a table for 16k ranks fits comfortably. */
    static final int MAX_PAYLOAD = 8 << 20;
    /** HELLO (one PeerInfo) and ERROR (one message) never come near this. */
    static final int MAX_SMALL_PAYLOAD = 64 << 10;

    static final int NONCE_BYTES = 16;
    static final int PROOF_BYTES = 32;

    private BootstrapFrames() {}

    record Frame(short type, byte[] payload) {}

    static void write(DataOutputStream out, short type, byte[] payload) throws IOException {
        out.writeInt(MAGIC);
        out.writeShort(VERSION);
        out.writeShort(type);
        out.writeInt(payload.length);
        out.write(payload);
        out.flush();
    }

    /** Reads one frame, refusing a wrong magic, version, type or length with a precise reason. */
    static Frame read(DataInputStream in) throws IOException {
        int magic;
        try {
            magic = in.readInt();
        } catch (EOFException e) {
            throw new EOFException("connection closed before a frame arrived");
        }
        if (magic != MAGIC) {
            throw new ProtocolException(String.format("not a Jccl bootstrap frame (magic 0x%08x)", magic));
        }
        int version = in.readUnsignedShort();
        if (version != VERSION) {
            throw new ProtocolException("bootstrap protocol version " + version + ", this Jccl speaks " + VERSION
                    + " (mixed Jccl versions in one job?)");
        }
        short type = in.readShort();
        if (type < CHALLENGE || type > ERROR) throw new ProtocolException("unknown frame type " + type);
        long length = Integer.toUnsignedLong(in.readInt());
        long limit = maxPayload(type);
        if (length > limit) {
            throw new ProtocolException("frame length " + length + " exceeds " + limit + " for frame type " + type);
        }
        // readNBytes grows its buffer as bytes arrive, so a peer that announces megabytes and
        // sends nothing costs a few kilobytes, not the announced length.
        byte[] payload = in.readNBytes((int) length);
        if (payload.length != length) {
            throw new EOFException("frame truncated: " + payload.length + " of " + length + " payload bytes arrived");
        }
        return new Frame(type, payload);
    }

    /** Only the table grows with the job; every other frame is small. */
    static long maxPayload(short type) {
        return switch (type) {
            case CHALLENGE -> NONCE_BYTES;
            case TABLE -> MAX_PAYLOAD;
            default -> MAX_SMALL_PAYLOAD;
        };
    }

    static byte[] hmac(byte[] secret, String label, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(label.getBytes(StandardCharsets.US_ASCII));
            for (byte[] p : parts) mac.update(p);
            return mac.doFinal();
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new AssertionError("HmacSHA256 is required of every JDK", e);
        }
    }

    static boolean sameProof(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    static byte[] intBytes(int... values) {
        byte[] out = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            out[4 * i] = (byte) (values[i] >>> 24);
            out[4 * i + 1] = (byte) (values[i] >>> 16);
            out[4 * i + 2] = (byte) (values[i] >>> 8);
            out[4 * i + 3] = (byte) values[i];
        }
        return out;
    }

    /** A frame that breaks the protocol: the peer is refused, nothing else is affected. */
    static final class ProtocolException extends IOException {
        ProtocolException(String message) {
            super(message);
        }
    }
}
