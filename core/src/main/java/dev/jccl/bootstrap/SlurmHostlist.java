package dev.jccl.bootstrap;

import java.util.ArrayList;
import java.util.List;

/**
 * Expands Slurm hostlist expressions, the compressed node lists Slurm puts in {@code SLURM_JOB_NODELIST} and
 * {@code SLURM_STEP_NODELIST} (what {@code scontrol show hostnames} prints one per line).
 *
 * <pre>
 *   list  = name { sep name }          sep: ',' or white space, outside brackets
 *   name  = part { part }              e.g. gpu-a[1-2], rack[1-2]-node[01-02], login1
 *   part  = literal | '[' range { ',' range } ']'
 *   range = digits [ '-' digits ]      low &lt;= high
 * </pre>
 *
 * <p>A range keeps the width of its low bound, so {@code node[08-10]} is {@code node08 node09 node10}. Several bracket
 * groups in one name multiply out with the leftmost varying slowest: {@code rack[1-2]-n[1-2]} is {@code rack1-n1
 * rack1-n2 rack2-n1 rack2-n2}. Malformed input is an {@link IllegalArgumentException} that quotes the expression and
 * the position of the fault.
 */
public final class SlurmHostlist {
    /** Most names {@link #expand} produces; beyond that the list is almost surely a typo ({@code n[0-999999999]}). */
    public static final int MAX_HOSTS = 1 << 20;

    private SlurmHostlist() {}

    /** Every host name {@code expr} denotes, in Slurm's order. */
    public static List<String> expand(String expr) {
        List<List<Part>> names = parse(expr);
        long total = 0;
        for (List<Part> name : names) {
            long n = 1;
            for (Part p : name) n = Math.multiplyExact(n, p.count());
            total += n;
            if (total > MAX_HOSTS) {
                throw new IllegalArgumentException(
                        "Slurm hostlist '" + expr + "' denotes more than " + MAX_HOSTS + " hosts");
            }
        }
        List<String> out = new ArrayList<>((int) total);
        for (List<Part> name : names) expandName(name, 0, new StringBuilder(), out);
        return out;
    }

    /** The first host of {@code expr} (where Slurm puts task 0), after checking the whole expression. */
    public static String first(String expr) {
        List<List<Part>> names = parse(expr);
        StringBuilder sb = new StringBuilder();
        for (Part p : names.getFirst()) p.appendFirst(sb);
        return sb.toString();
    }

    private static void expandName(List<Part> parts, int index, StringBuilder prefix, List<String> out) {
        if (index == parts.size()) {
            out.add(prefix.toString());
            return;
        }
        int mark = prefix.length();
        Part p = parts.get(index);
        if (p instanceof Literal l) {
            prefix.append(l.text);
            expandName(parts, index + 1, prefix, out);
        } else if (p instanceof Group g) {
            for (Range r : g.ranges) {
                for (long v = r.low; v <= r.high; v++) {
                    r.append(prefix, v);
                    expandName(parts, index + 1, prefix, out);
                    prefix.setLength(mark);
                }
            }
        }
        prefix.setLength(mark);
    }

    private sealed interface Part permits Literal, Group {
        long count();

        void appendFirst(StringBuilder sb);
    }

    private record Literal(String text) implements Part {
        public long count() {
            return 1;
        }

        public void appendFirst(StringBuilder sb) {
            sb.append(text);
        }
    }

    private record Group(List<Range> ranges) implements Part {
        public long count() {
            long n = 0;
            for (Range r : ranges) n += r.high - r.low + 1;
            return n;
        }

        public void appendFirst(StringBuilder sb) {
            Range r = ranges.getFirst();
            r.append(sb, r.low);
        }
    }

    /** {@code low..high} inclusive, each written with at least {@code width} digits. */
    private record Range(long low, long high, int width) {
        void append(StringBuilder sb, long value) {
            String digits = Long.toString(value);
            for (int i = digits.length(); i < width; i++) sb.append('0');
            sb.append(digits);
        }
    }

    private static List<List<Part>> parse(String expr) {
        if (expr == null || expr.isBlank()) throw new IllegalArgumentException("Slurm hostlist is empty");
        List<List<Part>> names = new ArrayList<>();
        List<Part> name = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int commaAt = -1; // a ',' still waiting for the name after it
        boolean ended = false; // a name has ended and no ',' has followed it yet
        int i = 0;
        while (i < expr.length()) {
            char c = expr.charAt(i);
            if (c == '[') {
                int close = expr.indexOf(']', i + 1);
                int nested = expr.indexOf('[', i + 1);
                if (close < 0) throw bad(expr, i, "'[' is never closed");
                if (nested >= 0 && nested < close) throw bad(expr, nested, "'[' inside brackets");
                if (literal.length() > 0) name.add(new Literal(literal.toString()));
                literal.setLength(0);
                name.add(new Group(ranges(expr, i + 1, close)));
                commaAt = -1;
                i = close + 1;
            } else if (c == ']') {
                throw bad(expr, i, "']' without a '[' before it");
            } else if (c == ',' || Character.isWhitespace(c)) {
                boolean inName = literal.length() > 0 || !name.isEmpty();
                if (inName) {
                    if (literal.length() > 0) name.add(new Literal(literal.toString()));
                    literal.setLength(0);
                    names.add(name);
                    name = new ArrayList<>();
                    ended = true;
                }
                if (c == ',') {
                    if (!ended) throw bad(expr, i, "empty host name before ','");
                    ended = false;
                    commaAt = i;
                }
                i++;
            } else {
                literal.append(c);
                commaAt = -1;
                i++;
            }
        }
        if (literal.length() > 0) name.add(new Literal(literal.toString()));
        if (!name.isEmpty()) names.add(name);
        if (commaAt >= 0) throw bad(expr, commaAt, "no host name after ','");
        return names;
    }

    private static List<Range> ranges(String expr, int from, int to) {
        if (from == to) throw bad(expr, from - 1, "empty brackets");
        List<Range> out = new ArrayList<>();
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i < to && expr.charAt(i) != ',') continue;
            out.add(range(expr, start, i));
            start = i + 1;
        }
        return out;
    }

    private static Range range(String expr, int from, int to) {
        String text = expr.substring(from, to);
        if (text.isEmpty()) throw bad(expr, from, "empty range inside brackets");
        int dash = text.indexOf('-');
        String lowText = dash < 0 ? text : text.substring(0, dash);
        String highText = dash < 0 ? text : text.substring(dash + 1);
        if (!isDigits(lowText) || !isDigits(highText)) {
            throw bad(expr, from, "'" + text + "' is not a number or a range of numbers like 01-08");
        }
        if (lowText.length() > 18 || highText.length() > 18) {
            throw bad(expr, from, "'" + text + "' has too many digits");
        }
        long low = Long.parseLong(lowText);
        long high = Long.parseLong(highText);
        if (high < low) throw bad(expr, from, "range '" + text + "' runs backwards");
        return new Range(low, high, lowText.length());
    }

    private static boolean isDigits(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    private static IllegalArgumentException bad(String expr, int at, String what) {
        return new IllegalArgumentException("malformed Slurm hostlist '" + expr + "' at position " + at + ": " + what);
    }
}
