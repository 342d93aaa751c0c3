package dev.jccl.tools.trace;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The small pieces of English the analysis writes its sentences with. */
final class Words {
    private Words() {}

    /** {@code rank 1}, {@code ranks 0, 2}. */
    static String ranks(List<Integer> ranks) {
        String list = ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return (ranks.size() == 1 ? "rank " : "ranks ") + list;
    }

    /** {@code is} for one rank, {@code are} for several. */
    static String is(List<?> subjects) {
        return subjects.size() == 1 ? "is" : "are";
    }

    /** {@code it} for one rank, {@code they} for several. */
    static String it(List<?> subjects) {
        return subjects.size() == 1 ? "it" : "they";
    }

    /** {@code a}, {@code a and b}, {@code a, b and c}. */
    static String and(List<String> parts) {
        if (parts.size() <= 1) return String.join("", parts);
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.getLast();
    }

    /** {@code 1 collective operation}, {@code 3 collective operations}. */
    static String count(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    /**
     * A duration the way a person reads it: {@code 12µs}, {@code 3.4ms}, {@code 250ms}, {@code 5.0s}, {@code 120s}. One
     * decimal where the number is small enough for it to matter.
     */
    static String duration(long micros) {
        if (micros < 1_000) return micros + "µs";
        if (micros < 100_000) return String.format(Locale.ROOT, "%.1fms", micros / 1e3);
        if (micros < 1_000_000) return String.format(Locale.ROOT, "%.0fms", micros / 1e3);
        if (micros < 100_000_000) return String.format(Locale.ROOT, "%.1fs", micros / 1e6);
        return String.format(Locale.ROOT, "%.0fs", micros / 1e6);
    }

    /**
     * {@code text} broken at spaces into lines of at most {@code width} columns, each starting with {@code indent} (a
     * word longer than that keeps its own line), every line ending in a newline: prose stays readable in an 80- to
     * 120-column terminal. A list of ranks ({@code ranks 0, 2}) and a count with its type ({@code 1024 × FLOAT32}) are
     * never split.
     */
    static String wrap(String text, String indent, int width) {
        List<String> words = new java.util.ArrayList<>();
        for (String word : text.split(" ")) {
            String previous = words.isEmpty() ? null : words.getLast();
            if (previous != null && staysWith(previous, word)) words.set(words.size() - 1, previous + " " + word);
            else words.add(word);
        }
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder(indent);
        for (String word : words) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                out.append(line).append('\n');
                line.setLength(0);
                line.append(indent);
            }
            if (line.length() > indent.length()) line.append(' ');
            line.append(word);
        }
        return out.append(line).append('\n').toString();
    }

    private static boolean staysWith(String previous, String word) {
        if (word.equals("×") || previous.endsWith("×")) return true;
        if (word.isEmpty() || !Character.isDigit(word.charAt(0))) return false;
        return previous.endsWith("rank") || previous.endsWith("ranks") || previous.matches(".*\\d,");
    }
}
