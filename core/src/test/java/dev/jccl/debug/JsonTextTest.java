package dev.jccl.debug;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class JsonTextTest {

    @Test
    void escapesWhatJsonRequires() {
        assertEquals("\"a \\\"quoted\\\"\\nline\"", JsonText.quote("a \"quoted\"\nline"));
        assertEquals(
                "\"q\\\" b\\\\ n\\n r\\r t\\t bs\\b ff\\f nul\\u0000 us\\u001f ls\\u2028 ps\\u2029 é\"",
                JsonText.quote("q\" b\\ n\n r\r t\t bs\b ff\f nul\u0000 us\u001f ls\u2028 ps\u2029 é"));
    }
}
