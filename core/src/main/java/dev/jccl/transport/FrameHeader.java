package dev.jccl.transport;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The header in front of every chunk a transport carries. It lets the receiver check that the chunk is the one it
 * expects, so ranks that call different collectives (or counts, types, ops, roots) get an error that describes both
 * sides instead of corrupt data or a hang.
 *
 * <pre>
 *   0       4    5    6    7    8        12       16                24                32                40
 *   +-------+----+----+----+----+--------+--------+-----------------+-----------------+-----------------+
 *   | magic |coll|type| op |rsvd|  step  |  root  |    sequence     |  length (bytes) | count (elements)|
 *   | JCDF  | u8 | u8 | u8 |    |  i32   |  i32   |       i64       |       i64       |       i64       |
 *   +-------+----+----+----+----+--------+--------+-----------------+-----------------+-----------------+
 * </pre>
 *
 * Little-endian. {@code op} is 0xFF where nothing is reduced; {@code sequence} counts collectives on the communicator,
 * or point-to-point messages per peer pair; {@code length} is this chunk's, {@code count} the whole operation's (as the
 * API takes it), so that a receiver that finds a mismatch can describe the sender's call in full.
 */
public record FrameHeader(
        int collective, int dataType, int op, int step, int root, long sequence, long length, long count) {
    public static final int BYTES = 40;
    public static final int MAGIC = 0x4644434A; // "JCDF" read little-endian
    public static final int NO_OP = 0xFF;
    /**
     * Collective code of the frame a failing rank sends each peer before it closes the connection: its payload is the
     * reason, UTF-8, at most {@link #MAX_REASON_BYTES}.
     */
    public static final int ABANDON = 0xFE;

    public static final int MAX_REASON_BYTES = 2048;

    /** The header of an abandon frame carrying {@code reasonBytes} bytes. */
    public static FrameHeader abandon(int reasonBytes) {
        return new FrameHeader(ABANDON, 0, NO_OP, -1, -1, -1, reasonBytes, 0);
    }

    /** An abandon frame's payload: {@code reason} in UTF-8, cut to {@link #MAX_REASON_BYTES}. */
    public static byte[] abandonReason(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return text.length <= MAX_REASON_BYTES ? text : Arrays.copyOf(text, MAX_REASON_BYTES);
    }

    /** True for the header of an abandon frame whose length is sane. */
    public boolean isAbandon() {
        return collective == ABANDON && length >= 0 && length <= MAX_REASON_BYTES;
    }

    public void encode(ByteBuffer out) {
        out.putInt(MAGIC);
        out.put((byte) collective);
        out.put((byte) dataType);
        out.put((byte) op);
        out.put((byte) 0);
        out.putInt(step);
        out.putInt(root);
        out.putLong(sequence);
        out.putLong(length);
        out.putLong(count);
    }

    private static final ValueLayout.OfInt INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    /** Writes the same 32 bytes as {@link #encode(ByteBuffer)} at {@code offset} of {@code out}. */
    public void encode(MemorySegment out, long offset) {
        out.set(INT, offset, MAGIC);
        out.set(ValueLayout.JAVA_BYTE, offset + 4, (byte) collective);
        out.set(ValueLayout.JAVA_BYTE, offset + 5, (byte) dataType);
        out.set(ValueLayout.JAVA_BYTE, offset + 6, (byte) op);
        out.set(ValueLayout.JAVA_BYTE, offset + 7, (byte) 0);
        out.set(INT, offset + 8, step);
        out.set(INT, offset + 12, root);
        out.set(LONG, offset + 16, sequence);
        out.set(LONG, offset + 24, length);
        out.set(LONG, offset + 32, count);
    }

    /** Decodes 32 bytes at {@code offset} of {@code in}; null for a wrong magic. */
    public static FrameHeader decode(MemorySegment in, long offset) {
        if (in.get(INT, offset) != MAGIC) return null;
        return new FrameHeader(
                Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, offset + 4)),
                Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, offset + 5)),
                Byte.toUnsignedInt(in.get(ValueLayout.JAVA_BYTE, offset + 6)),
                in.get(INT, offset + 8),
                in.get(INT, offset + 12),
                in.get(LONG, offset + 16),
                in.get(LONG, offset + 24),
                in.get(LONG, offset + 32));
    }

    /** Decodes 32 bytes; a wrong magic is reported as null (the stream is not ours or is out of sync). */
    public static FrameHeader decode(ByteBuffer in) {
        if (in.getInt() != MAGIC) return null;
        int coll = Byte.toUnsignedInt(in.get());
        int type = Byte.toUnsignedInt(in.get());
        int op = Byte.toUnsignedInt(in.get());
        in.get();
        return new FrameHeader(coll, type, op, in.getInt(), in.getInt(), in.getLong(), in.getLong(), in.getLong());
    }
}
