package dev.jccl.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FrameHeaderTest {
    @Test
    void anAbandonReasonIsItsUtf8BytesCutToTheLimit() {
        assertArrayEquals(
                "rank 3: timed out".getBytes(StandardCharsets.UTF_8), FrameHeader.abandonReason("rank 3: timed out"));
        assertArrayEquals(new byte[0], FrameHeader.abandonReason(""));
        String exact = "x".repeat(FrameHeader.MAX_REASON_BYTES);
        assertArrayEquals(exact.getBytes(StandardCharsets.UTF_8), FrameHeader.abandonReason(exact));
        byte[] full = "é".repeat(FrameHeader.MAX_REASON_BYTES).getBytes(StandardCharsets.UTF_8); // 2 bytes each
        assertArrayEquals(
                Arrays.copyOf(full, FrameHeader.MAX_REASON_BYTES),
                FrameHeader.abandonReason("é".repeat(FrameHeader.MAX_REASON_BYTES)));
    }
}
