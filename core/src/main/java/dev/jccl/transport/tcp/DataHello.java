package dev.jccl.transport.tcp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * First bytes on every data connection: who is calling, for which communicator, and a token that proves the caller
 * knows the job's secret.
 *
 * <pre>
 *   0       4     6     8                16       20       24                        40
 *   +-------+-----+-----+----------------+--------+--------+-------------------------+
 *   | magic | ver | pad |  comm id (u64) |  from  |   to   | token = HMAC-SHA256(secret,
 *   | JCDH  | u16 |     |                |  i32   |  i32   |  "data"|comm|from|to)[0..16)
 *   +-------+-----+-----+----------------+--------+--------+-------------------------+
 * </pre>
 */
final class DataHello {
    static final int BYTES = 40;
    static final int MAGIC = 0x4844434A; // "JCDH" little-endian
    static final short VERSION = 2;

    record Parsed(long commId, int from, int to, byte[] token) {}

    private DataHello() {}

    static ByteBuffer encode(long commId, int from, int to, byte[] secret) {
        ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC)
                .putShort(VERSION)
                .putShort((short) 0)
                .putLong(commId)
                .putInt(from)
                .putInt(to);
        b.put(token(secret, commId, from, to));
        return b.flip();
    }

    /** Null if the bytes are not a hello of this version; {@link #whyNot} then says why. */
    static Parsed decode(ByteBuffer b) {
        if (whyNot(b) != null) return null;
        b.order(ByteOrder.LITTLE_ENDIAN);
        b.getInt();
        b.getShort();
        b.getShort();
        long comm = b.getLong();
        int from = b.getInt();
        int to = b.getInt();
        byte[] token = new byte[16];
        b.get(token);
        return new Parsed(comm, from, to, token);
    }

    /** Why {@code b} (not consumed) is not a hello of this version, or null when it is one. */
    static String whyNot(ByteBuffer b) {
        ByteBuffer view = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (view.remaining() < BYTES) return "a hello is " + BYTES + " bytes, got " + view.remaining();
        int magic = view.getInt();
        if (magic != MAGIC) return String.format("not a Jccl data hello (magic 0x%08x)", magic);
        int version = Short.toUnsignedInt(view.getShort());
        if (version != VERSION) {
            return "data hello version " + version + ", this Jccl speaks " + VERSION
                    + " (mixed Jccl versions in one job?)";
        }
        return null;
    }

    static boolean valid(Parsed p, byte[] secret) {
        return MessageDigest.isEqual(p.token(), token(secret, p.commId(), p.from(), p.to()));
    }

    static byte[] token(byte[] secret, long commId, int from, int to) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update("data".getBytes(StandardCharsets.US_ASCII));
            ByteBuffer ids =
                    ByteBuffer.allocate(16).putLong(commId).putInt(from).putInt(to);
            mac.update(ids.array());
            return Arrays.copyOf(mac.doFinal(), 16);
        } catch (GeneralSecurityException e) {
            throw new AssertionError("HmacSHA256 is required of every JDK", e);
        }
    }
}
