package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class JsonWriterTest {

    @Test
    void escapesWhatJsonRequires() {
        String s = new JsonWriter()
                .value("q\" b\\ n\n r\r t\t bs\b ff\f nul\u0000 us\u001f ls\u2028 é")
                .toString();
        assertEquals("\"q\\\" b\\\\ n\\n r\\r t\\t bs\\b ff\\f nul\\u0000 us\\u001f ls\\u2028 é\"", s);
    }

    @Test
    void nestedContainersAreValidAndIndented() throws Exception {
        String s = new JsonWriter()
                .beginObject()
                .field("a", "1")
                .name("empty")
                .beginArray()
                .endArray()
                .name("list")
                .beginArray()
                .value("x")
                .value((String) null)
                .beginObject()
                .field("t", true)
                .endObject()
                .endArray()
                .field("last", false)
                .endObject()
                .toString();
        JsonNode n = new ObjectMapper().readTree(s);
        assertEquals("1", n.get("a").asText());
        assertEquals(0, n.get("empty").size());
        assertEquals(3, n.get("list").size());
        assertTrue(n.get("list").get(1).isNull());
        assertTrue(n.get("list").get(2).get("t").asBoolean());
        assertEquals(false, n.get("last").asBoolean());
        assertTrue(s.startsWith("{\n  \"a\": \"1\",\n  \"empty\": [],\n  \"list\": [\n    \"x\",\n"), s);
    }
}
