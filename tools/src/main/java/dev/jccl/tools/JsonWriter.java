package dev.jccl.tools;

import dev.jccl.debug.JsonText;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes JSON text, two spaces of indent per level, for {@code info --json}, which builds its output field by field. It
 * predates Jackson in the tools jar (perf's reports, which are read back as records, use Jackson: see PerfReports).
 * Misuse (a value where a name is due) is the caller's bug and is not detected.
 */
final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** Per open container: whether it has an element yet (for commas). */
    private final Deque<boolean[]> open = new ArrayDeque<>();

    private boolean afterName;

    JsonWriter beginObject() {
        return begin('{');
    }

    JsonWriter endObject() {
        return end('}');
    }

    JsonWriter beginArray() {
        return begin('[');
    }

    JsonWriter endArray() {
        return end(']');
    }

    JsonWriter name(String name) {
        separate();
        out.append(JsonText.quote(name));
        out.append(": ");
        afterName = true;
        return this;
    }

    JsonWriter value(String value) {
        separate();
        if (value == null) out.append("null");
        else out.append(JsonText.quote(value));
        return this;
    }

    JsonWriter value(boolean value) {
        separate();
        out.append(value);
        return this;
    }

    /** Shorthand for {@code name(name).value(value)}. */
    JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, long value) {
        name(name);
        separate();
        out.append(value);
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private JsonWriter begin(char bracket) {
        separate();
        out.append(bracket);
        open.push(new boolean[1]);
        return this;
    }

    private JsonWriter end(char bracket) {
        boolean any = open.pop()[0];
        if (any) newline();
        out.append(bracket);
        return this;
    }

    /** Before a name or a value: the comma and line break it needs, unless it follows its own name. */
    private void separate() {
        if (afterName) {
            afterName = false;
            return;
        }
        boolean[] any = open.peek();
        if (any == null) return;
        if (any[0]) out.append(',');
        any[0] = true;
        newline();
    }

    private void newline() {
        out.append('\n');
        out.append("  ".repeat(open.size()));
    }
}
