package dev.jccl.tools;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;

/**
 * The layout of every JSON document the tools write with Jackson ({@code perf --json}, {@code trace --json}), the same
 * as {@link JsonWriter}'s: {@code "name": value}, two spaces of indent per level, arrays one element a line, empty
 * objects and arrays as {@code {}} and {@code []}.
 */
public final class JsonStyle {
    private JsonStyle() {}

    public static DefaultPrettyPrinter prettyPrinter() {
        return new DefaultPrettyPrinter()
                .withSeparators(Separators.createDefaultInstance()
                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                        .withObjectEmptySeparator("")
                        .withArrayEmptySeparator(""))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
    }
}
