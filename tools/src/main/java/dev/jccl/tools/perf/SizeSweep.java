package dev.jccl.tools.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The message sizes of a run, as nccl-tests' {@code -b -e -f -i} give them: from {@code min} to {@code max} bytes,
 * multiplying by {@code factor} when it is above 1, else adding {@code increment}.
 */
public record SizeSweep(long min, long max, long factor, long increment) {
    /** More rows than anyone reads; also keeps {@code -i 1 -e 1G} from running for a week. */
    static final int MAX_ROWS = 10_000;

    public SizeSweep {
        if (min < 0) throw new IllegalArgumentException("-b (minbytes) must not be negative, got " + min);
        if (max < min) {
            throw new IllegalArgumentException(
                    "invalid sizes for 'minbytes' and 'maxbytes': " + min + " > " + max + "; -b must not exceed -e");
        }
        if (factor < 1) throw new IllegalArgumentException("-f (stepfactor) must be at least 1, got " + factor);
        if (factor == 1 && increment < 1) {
            throw new IllegalArgumentException("-i (stepbytes) must be at least 1 when -f is 1, got " + increment);
        }
        if (factor > 1 && min == 0) {
            throw new IllegalArgumentException(
                    "-b 0 with -f " + factor + " would never grow; start at 1 byte or more, or step with -i");
        }
    }

    /** Every size, ascending. */
    public List<Long> sizes() {
        List<Long> sizes = new ArrayList<>();
        long size = min;
        while (size <= max) {
            sizes.add(size);
            if (sizes.size() > MAX_ROWS) {
                throw new IllegalArgumentException(
                        "-b " + min + " -e " + max + (factor > 1 ? " -f " + factor : " -i " + increment)
                                + " gives more than " + MAX_ROWS + " sizes; use a larger step");
            }
            long next;
            try {
                next = factor > 1 ? Math.multiplyExact(size, factor) : Math.addExact(size, increment);
            } catch (ArithmeticException e) {
                break;
            }
            size = next;
        }
        return sizes;
    }

    /**
     * Parses a size the way nccl-tests does: a number, optionally followed by K, M or G (binary multiples, either
     * case): {@code 8}, {@code 64M}, {@code 1.5K}.
     *
     * @param option the flag it came from, for the error message
     */
    public static long parseSize(String option, String text) {
        String t = text.trim();
        long unit = 1;
        if (!t.isEmpty()) {
            switch (Character.toUpperCase(t.charAt(t.length() - 1))) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
            if (unit > 1) t = t.substring(0, t.length() - 1).trim();
        }
        double value;
        try {
            value = Double.parseDouble(t);
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        if (Double.isNaN(value) || value < 0 || Double.isInfinite(value) || t.contains("x") || t.contains("X")) {
            throw new IllegalArgumentException("invalid size '" + text + "' for " + option
                    + "; write bytes with an optional K, M or G suffix, e.g. 8, 256K, 64M, 1G");
        }
        double bytes = value * unit;
        if (bytes > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("size '" + text + "' for " + option + " is too large");
        }
        return (long) bytes;
    }

    /** {@code 64M}, {@code 8}, {@code 1G}, {@code 1536}: the shortest exact form, for messages and progress. */
    public static String format(long bytes) {
        String[] units = {"", "K", "M", "G", "T"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%d%s", v, units[u]);
    }

    /** {@code 192 MiB}, {@code 1.5 KiB}, {@code 8 B}: bytes for people. */
    public static String binary(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = 0;
        while (u < units.length - 1 && v >= 1024) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? String.format(Locale.ROOT, "%d", (long) v) : String.format(Locale.ROOT, "%.1f", v))
                + " " + units[u];
    }
}
