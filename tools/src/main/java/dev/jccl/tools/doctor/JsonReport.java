package dev.jccl.tools.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --json}: {@code {"checks":[{"id","area","verdict","summary","evidence":[{"source","value"}],"fix":[…]}]}},
 * checks in report order, verdicts as the words ok, warn, fail, skip.
 */
final class JsonReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    static String render(List<CheckResult> results) {
        List<Map<String, Object>> checks = new ArrayList<>();
        for (CheckResult r : results) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("id", r.id());
            c.put("area", r.check().area.title);
            c.put("verdict", r.verdict().word());
            c.put("summary", r.summary());
            List<Map<String, String>> evidence = new ArrayList<>();
            for (Evidence e : r.evidence()) {
                Map<String, String> m = new LinkedHashMap<>();
                m.put("source", e.source());
                m.put("value", e.value());
                evidence.add(m);
            }
            c.put("evidence", evidence);
            c.put("fix", r.fix());
            checks.add(c);
        }
        try {
            return MAPPER.writeValueAsString(Map.of("checks", checks)) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
        }
    }
}
