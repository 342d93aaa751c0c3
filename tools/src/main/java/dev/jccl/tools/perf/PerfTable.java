package dev.jccl.tools.perf;

import java.util.Locale;

/**
 * nccl-tests' table, character for character where scripts look: the column header, one line per size with an
 * out-of-place and an in-place half, and the footer that scripts grep for ({@code # Out of bounds values}, {@code # Avg
 * bus bandwidth}). Jccl's own facts go on further {@code #} comment lines, which nccl-tests parsers skip.
 */
final class PerfTable {
    private PerfTable() {}

    static String columnHeader() {
        return String.format(
                        Locale.ROOT,
                        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          %n",
                        "",
                        "",
                        "",
                        "",
                        "")
                + String.format(
                        Locale.ROOT,
                        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s%n",
                        "size",
                        "count",
                        "type",
                        "redop",
                        "root",
                        "time",
                        "algbw",
                        "busbw",
                        "#wrong",
                        "time",
                        "algbw",
                        "busbw",
                        "#wrong")
                + String.format(
                        Locale.ROOT,
                        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s%n",
                        "(B)",
                        "(elements)",
                        "",
                        "",
                        "",
                        "(us)",
                        "(GB/s)",
                        "(GB/s)",
                        "",
                        "(us)",
                        "(GB/s)",
                        "(GB/s)",
                        "");
    }

    /** The first columns of a row: size, count, type, redop, root. */
    static String rowStart(long sizeBytes, long count, String type, String redop, int root) {
        return String.format(
                Locale.ROOT,
                "%12d  %12d  %8s  %6s  %6s",
                sizeBytes,
                count,
                type,
                redop,
                String.format(Locale.ROOT, "%6d", root));
    }

    /** One half of a row: time, algbw, busbw, #wrong (null: not checked, shown as N/A). */
    static String measurement(double timeUs, double algbw, double busbw, Long wrong) {
        return String.format(
                Locale.ROOT, "  %7s  %6.2f  %6.2f  %5s", time(timeUs), algbw, busbw, wrong == null ? "N/A" : cG(wrong));
    }

    /** nccl-tests' time column: fewer decimals as the number grows, so it stays 7 wide. */
    static String time(double us) {
        if (us >= 10000.0) return String.format(Locale.ROOT, "%7.0f", us);
        if (us >= 100.0) return String.format(Locale.ROOT, "%7.1f", us);
        return String.format(Locale.ROOT, "%7.2f", us);
    }

    static String footer(long outOfBounds, double avgBusBandwidth) {
        // nccl-tests prints a space after the bandwidth (where its optional OK/FAILED threshold goes).
        return "# Out of bounds values : " + outOfBounds + (outOfBounds == 0 ? " OK" : " FAILED")
                + System.lineSeparator()
                + "# Avg bus bandwidth    : " + cG(avgBusBandwidth) + " " + System.lineSeparator()
                + "#" + System.lineSeparator();
    }

    /**
     * C's {@code %g}: six significant digits, trailing zeros dropped, scientific notation when the exponent is below -4
     * or at least 6 ({@code 0}, {@code 4.52531}, {@code 1e+06}).
     */
    static String cG(double v) {
        if (v == 0) return "0";
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        String sci = String.format(Locale.ROOT, "%.5e", v); // d.ddddde±x
        int exp = Integer.parseInt(sci.substring(sci.indexOf('e') + 1));
        if (exp < -4 || exp >= 6) {
            String mantissa = stripZeros(sci.substring(0, sci.indexOf('e')));
            return mantissa + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
        }
        return stripZeros(String.format(Locale.ROOT, "%." + Math.max(0, 5 - exp) + "f", v));
    }

    private static String stripZeros(String s) {
        if (!s.contains(".")) return s;
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
