package dev.jccl.transport;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Fuzz;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Frame headers against mutated and random bytes: both decoders (socket buffer and shared memory) agree on every input,
 * and what they accept re-encodes to the same bytes.
 */
@Timeout(60)
class FrameHeaderFuzzTest {
    @Test
    void bothDecodersAgreeAndRoundTrip() {
        List<byte[]> seeds = List.of(
                encode(new FrameHeader(1, 7, 0, 3, -1, 42, 65536, 1 << 20)),
                encode(FrameHeader.abandon(120)),
                encode(new FrameHeader(4, 2, FrameHeader.NO_OP, 0, 2, 9, 0, 0)));
        Fuzz.Report report = Fuzz.run("FrameHeader.decode", seeds, 16 << 10, input -> {
            if (input.length < FrameHeader.BYTES) return false; // transports decode only once 40 bytes are there
            FrameHeader fromBuffer = FrameHeader.decode(ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN));
            FrameHeader fromSegment = FrameHeader.decode(MemorySegment.ofArray(input), 0);
            assertEquals(fromBuffer, fromSegment, () -> "the two decoders disagree on " + Arrays.toString(input));
            if (fromBuffer == null) return false;
            byte[] again = encode(fromBuffer);
            byte[] head = Arrays.copyOf(input, FrameHeader.BYTES);
            head[7] = 0; // reserved
            assertArrayEquals(head, again, "decode then encode must give the same header");
            if (fromBuffer.isAbandon()) assertTrue(fromBuffer.length() <= FrameHeader.MAX_REASON_BYTES);
            return true;
        });
        assertTrue(report.decoded() > 0 && report.refused() > 0, report.toString());
    }

    private static byte[] encode(FrameHeader h) {
        ByteBuffer b = ByteBuffer.allocate(FrameHeader.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        h.encode(b);
        return b.array();
    }
}
