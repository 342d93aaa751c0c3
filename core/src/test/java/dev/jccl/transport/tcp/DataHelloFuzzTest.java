package dev.jccl.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Fuzz;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The data-port hello against mutated and random bytes: parsed or refused with a reason, and no forged token passes.
 */
@Timeout(60)
class DataHelloFuzzTest {
    private static final byte[] SECRET = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    @Test
    void hellosParseOrAreRefusedAndOnlyTheRealOneIsValid() {
        ByteBuffer real = DataHello.encode(0x1234_5678_9abcL, 3, 1, SECRET);
        byte[] seed = new byte[real.remaining()];
        real.get(seed);
        Fuzz.Report report = Fuzz.run("DataHello.decode", List.of(seed), 16 << 10, input -> {
            ByteBuffer b = ByteBuffer.wrap(input);
            DataHello.Parsed h = DataHello.decode(b);
            if (h == null) {
                assertNotNull(DataHello.whyNot(ByteBuffer.wrap(input)), "a refusal must say why");
                return false;
            }
            // A mutated hello may still parse, but only the unmutated one proves the secret
            // (a token that happens to survive a mutation elsewhere is checked against its fields).
            boolean valid = DataHello.valid(h, SECRET);
            boolean sameFields = Arrays.equals(Arrays.copyOfRange(input, 8, 40), Arrays.copyOfRange(seed, 8, 40));
            assertEquals(sameFields, valid, "a token is valid exactly when the fields it signs are unchanged");
            return true;
        });
        assertTrue(report.decoded() > 0 && report.refused() > 0, report.toString());
    }
}
