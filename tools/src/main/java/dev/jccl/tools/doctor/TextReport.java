package dev.jccl.tools.doctor;

import java.util.List;

/**
 * The human report: checks grouped by area, one line each (verdict, id, summary); under each warning and failure its
 * evidence and what to do. With {@code verbose}, evidence for every check. ANSI colours only when asked (the command
 * decides: a terminal, and no NO_COLOR).
 */
final class TextReport {
    private static final String RESET = "\u001b[0m";
    private static final String BOLD = "\u001b[1m";
    private static final String DIM = "\u001b[2m";
    private static final int ID_WIDTH = 26;

    private TextReport() {}

    /** @param where what was examined, e.g. {@code this host} or {@code capture /tmp/x} */
    static String render(List<CheckResult> results, String where, boolean colour, boolean verbose) {
        StringBuilder s = new StringBuilder();
        s.append(paint("jccl doctor", BOLD, colour)).append(": ").append(where).append('\n');
        Area area = null;
        for (CheckResult r : results) {
            if (r.check().area != area) {
                area = r.check().area;
                s.append('\n').append(paint(area.title, BOLD, colour)).append('\n');
            }
            String word = String.format("%-4s", r.verdict().word());
            s.append("  ")
                    .append(paint(word, colourOf(r.verdict()), colour))
                    .append("  ")
                    .append(String.format("%-" + ID_WIDTH + "s", r.id()))
                    .append(' ')
                    .append(r.verdict() == Verdict.SKIP ? paint(r.summary(), DIM, colour) : r.summary())
                    .append('\n');
            boolean problem = r.verdict() == Verdict.WARN || r.verdict() == Verdict.FAIL;
            if (problem || verbose) {
                for (Evidence e : r.evidence()) {
                    s.append(indent())
                            .append(paint("evidence", DIM, colour))
                            .append("  ")
                            .append(e.source())
                            .append(": ")
                            .append(e.value())
                            .append('\n');
                }
            }
            if (problem) {
                for (String fix : r.fix()) {
                    s.append(indent())
                            .append(paint("fix", BOLD, colour))
                            .append("       ")
                            .append(fix)
                            .append('\n');
                }
            }
        }
        s.append('\n').append(totals(results, colour)).append('\n');
        return s.toString();
    }

    /** E.g. {@code 32 checks: 5 ok, 1 warn, 0 fail, 26 skip}. */
    static String totals(List<CheckResult> results, boolean colour) {
        int[] n = new int[Verdict.values().length];
        for (CheckResult r : results) n[r.verdict().ordinal()]++;
        return results.size() + " checks: " + paint(n[Verdict.OK.ordinal()] + " ok", colourOf(Verdict.OK), colour)
                + ", "
                + paint(n[Verdict.WARN.ordinal()] + " warn", colourOf(Verdict.WARN), colour) + ", "
                + paint(n[Verdict.FAIL.ordinal()] + " fail", colourOf(Verdict.FAIL), colour) + ", "
                + n[Verdict.SKIP.ordinal()] + " skip (not applicable here)";
    }

    private static String indent() {
        return " ".repeat(8);
    }

    private static String colourOf(Verdict v) {
        return switch (v) {
            case OK -> "\u001b[32m";
            case WARN -> "\u001b[33m";
            case FAIL -> "\u001b[1;31m";
            case SKIP -> DIM;
        };
    }

    private static String paint(String text, String code, boolean colour) {
        return colour ? code + text + RESET : text;
    }
}
