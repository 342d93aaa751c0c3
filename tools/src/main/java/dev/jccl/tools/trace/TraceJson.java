package dev.jccl.tools.trace;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.jccl.tools.JsonStyle;

/**
 * {@code jccl trace --json}'s writer, apart from {@link TraceCommand}: picocli reads the command's declared members
 * when {@code jccl} starts, so a command class that names Jackson's types would make every subcommand need Jackson on
 * the class path (the launcher tests run {@code jccl} with only its own classes, core and picocli).
 */
final class TraceJson {
    private static final ObjectWriter JSON = JsonMapper.builder().build().writer(JsonStyle.prettyPrinter());

    private TraceJson() {}

    static String write(Object document) {
        try {
            return JSON.writeValueAsString(document) + "\n";
        } catch (JacksonException e) {
            throw new IllegalStateException("cannot turn the analysis into JSON: " + e.getOriginalMessage(), e);
        }
    }
}
