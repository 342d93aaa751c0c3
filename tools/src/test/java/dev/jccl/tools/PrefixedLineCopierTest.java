package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PrefixedLineCopierTest {

    private static String copy(byte[] input, int rank) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PrefixedLineCopier(new ByteArrayInputStream(input), rank, new LineSink(out)).run();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void everyLineIsPrefixedAndBytesPassThrough() {
        assertEquals("[7] a\n[7] \n[7] é\r\n[7] tail\n", copy("a\n\né\r\ntail".getBytes(StandardCharsets.UTF_8), 7));
        assertEquals("", copy(new byte[0], 0));
    }

    @Test
    void anEndlessLineIsCutIntoPrefixedPieces() {
        byte[] input = "x".repeat(PrefixedLineCopier.MAX_LINE * 2 + 10).getBytes(StandardCharsets.US_ASCII);
        String[] pieces = copy(input, 1).split("\n");
        assertEquals(3, pieces.length);
        int total = 0;
        for (String p : pieces) {
            assertTrue(p.startsWith("[1] x"), p.substring(0, 10));
            total += p.length() - 4;
        }
        assertEquals(input.length, total);
    }
}
