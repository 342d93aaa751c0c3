package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A dotted version number ({@code 2.19.4}, kernel {@code 6.8.0}, driver {@code 560.35.03}), compared part by part;
 * missing parts count as 0.
 */
record Version(List<Integer> parts) implements Comparable<Version> {
    private static final Pattern LEADING = Pattern.compile("(\\d+(?:\\.\\d+)*)");

    /** The first dotted number in {@code text} ({@code "2.19.4-1"} → 2.19.4), or null if there is none. */
    static Version parse(String text) {
        if (text == null) return null;
        Matcher m = LEADING.matcher(text);
        if (!m.find()) return null;
        List<Integer> parts = new ArrayList<>();
        for (String p : m.group(1).split("\\.")) {
            try {
                parts.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return new Version(List.copyOf(parts));
    }

    static Version of(String text) {
        Version v = parse(text);
        if (v == null) throw new IllegalArgumentException("not a version: " + text);
        return v;
    }

    boolean atLeast(String other) {
        return compareTo(of(other)) >= 0;
    }

    boolean below(String other) {
        return compareTo(of(other)) < 0;
    }

    @Override
    public int compareTo(Version o) {
        for (int i = 0; i < Math.max(parts.size(), o.parts.size()); i++) {
            int a = i < parts.size() ? parts.get(i) : 0;
            int b = i < o.parts.size() ? o.parts.get(i) : 0;
            if (a != b) return Integer.compare(a, b);
        }
        return 0;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (int p : parts) s.append(s.isEmpty() ? "" : ".").append(p);
        return s.toString();
    }
}
