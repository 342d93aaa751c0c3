package dev.jccl.debug;

/**
 * JSON string literals, for the JSON that Jccl writes by hand: the flight recorder's dumps here, and the tools' output
 * (which must not need a JSON library in core).
 */
public final class JsonText {
    private JsonText() {}

    /**
     * {@code s} as a JSON string literal, quotes included. Control characters are escaped, as JSON requires, and so are
     * U+2028 and U+2029, so that the text is also valid JavaScript.
     */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
