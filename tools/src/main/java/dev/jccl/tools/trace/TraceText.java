package dev.jccl.tools.trace;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The plain-words report of one communicator's {@link TraceAnalysis}, section by section. */
final class TraceText {
    /** Where prose is wrapped: a report pasted into an issue or read in a terminal stays within its width. */
    static final int WIDTH = 100;

    private TraceText() {}

    static String render(TraceAnalysis a) {
        StringBuilder s = new StringBuilder();
        header(s, a);
        s.append('\n');
        verdict(s, a.verdict());
        s.append('\n');
        ranks(s, a);
        s.append('\n');
        s.append("behind\n").append(Words.wrap(a.behind().summary(), "  ", WIDTH));
        s.append('\n');
        s.append("first disagreement\n").append(Words.wrap(a.agreement().summary(), "  ", WIDTH));
        s.append('\n');
        timeline(s, a);
        return s.toString();
    }

    private static void header(StringBuilder s, TraceAnalysis a) {
        long oldest = a.rankStates().stream()
                .mapToLong(TraceAnalysis.RankSummary::dumpedAtMicros)
                .min()
                .orElse(a.newestDumpMicros());
        s.append("communicator ")
                .append(a.commId())
                .append(": dumps from ")
                .append(a.ranks().size())
                .append(" of ")
                .append(a.size())
                .append(a.size() == 1 ? " rank" : " ranks")
                .append(", written ");
        if (a.newestDumpMicros() > oldest) {
            s.append("within ")
                    .append(Words.duration(a.newestDumpMicros() - oldest))
                    .append(", the newest ");
        }
        s.append("at ").append(time(a.newestDumpMicros())).append('\n');
        for (int r : a.missingRanks()) {
            s.append("  no dump from rank ").append(r).append(" — its process may have died before writing one\n");
        }
        for (String note : a.notes()) s.append(Words.wrap("note: " + note, "  ", WIDTH));
    }

    private static void verdict(StringBuilder s, TraceAnalysis.VerdictSummary v) {
        if (v.groups().isEmpty()) {
            s.append("verdict\n  none: no dump carries one (the communicator had not failed when they were written)\n");
            return;
        }
        if (v.agreed() != null) {
            s.append("verdict (");
            if (v.ranksWithout().isEmpty()) s.append("the same in every dump");
            else {
                s.append("carried by ")
                        .append(Words.ranks(v.groups().getFirst().ranks()))
                        .append("; ")
                        .append(Words.ranks(v.ranksWithout()))
                        .append(v.ranksWithout().size() == 1 ? "'s dump has none" : "' dumps have none");
            }
            s.append(")\n").append(Words.wrap(v.agreed(), "  ", WIDTH));
            return;
        }
        s.append("verdict: the dumps disagree\n");
        for (TraceAnalysis.VerdictGroup g : v.groups()) {
            s.append("  ")
                    .append(Words.ranks(g.ranks()))
                    .append(": ")
                    .append(g.verdict())
                    .append('\n');
        }
        if (!v.ranksWithout().isEmpty()) {
            s.append("  ").append(Words.ranks(v.ranksWithout())).append(": none\n");
        }
    }

    private static void ranks(StringBuilder s, TraceAnalysis a) {
        s.append("ranks\n");
        for (TraceAnalysis.RankSummary r : a.rankStates()) {
            s.append("  rank ")
                    .append(r.rank())
                    .append("  ")
                    .append(r.where())
                    .append("  ")
                    .append(r.file())
                    .append('\n');
            s.append("    ring            ").append(Words.count(r.held(), "operation", "operations"));
            if (r.recorded() > r.held()) {
                s.append(" (the last of ").append(r.recorded()).append(" recorded)");
            }
            if (r.firstSeq() != null) {
                s.append(", collectives #").append(r.firstSeq());
                if (!r.firstSeq().equals(r.lastSeq())) s.append("–#").append(r.lastSeq());
            }
            s.append('\n');
            s.append("    last completed  ")
                    .append(
                            r.lastCompleted() == null
                                    ? "no collective in its ring"
                                    : name(r.lastCompleted()) + " in "
                                            + Words.duration(r.lastCompleted().micros()))
                    .append('\n');
            s.append("    in flight       ")
                    .append(
                            r.inFlight() == null
                                    ? "nothing"
                                    : name(r.inFlight()) + ", running "
                                            + Words.duration(r.inFlight().micros()) + " at dump time")
                    .append('\n');
            if (r.failed().isEmpty()) {
                s.append("    failed          none\n");
            }
            for (TraceAnalysis.Step f : r.failed()) {
                s.append("    failed          ")
                        .append(name(f))
                        .append(" after ")
                        .append(Words.duration(f.micros()))
                        .append('\n');
            }
        }
    }

    /** {@code #150 AllReduce (1024 × FLOAT32, SUM)}, {@code point-to-point #3 Send (10 × INT32, peer 2)}. */
    private static String name(TraceAnalysis.Step step) {
        return (step.collective() ? "#" : "point-to-point #") + step.seq() + " " + step.description();
    }

    private static void timeline(StringBuilder s, TraceAnalysis a) {
        List<TraceAnalysis.TimelineRow> rows = a.timeline();
        if (rows.isEmpty()) {
            s.append("timeline\n  no collective operation in any dump\n");
            return;
        }
        s.append("timeline of the last ")
                .append(Words.count(rows.size(), "collective", "collectives"))
                .append(" (ok: completed, RUNNING: not ended when the rank dumped, FAILED,\n")
                .append("  -: not started or no longer in the ring,")
                .append(" (Op): this rank ran another operation than the row's)\n");
        List<String[]> table = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("seq", "op"));
        for (int r : a.ranks()) head.add("rank " + r);
        table.add(head.toArray(String[]::new));
        for (TraceAnalysis.TimelineRow row : rows) {
            List<String> line = new ArrayList<>(List.of("#" + row.seq(), row.op()));
            for (TraceAnalysis.Cell c : row.cells()) line.add(cell(c));
            table.add(line.toArray(String[]::new));
        }
        int[] width = new int[head.size()];
        for (String[] line : table) {
            for (int i = 0; i < line.length; i++) width[i] = Math.max(width[i], line[i].length());
        }
        for (String[] line : table) {
            StringBuilder l = new StringBuilder(" ");
            for (int i = 0; i < line.length; i++) {
                l.append(' ').append(line[i]).append(" ".repeat(width[i] - line[i].length() + 1));
            }
            s.append(l.toString().stripTrailing()).append('\n');
        }
    }

    /**
     * {@code ok 12µs}, {@code RUNNING 5.0s}, {@code FAILED 2.0s}, {@code -}; {@code (Broadcast)} where not the row's
     * op.
     */
    static String cell(TraceAnalysis.Cell c) {
        String text = switch (c.state()) {
            case TraceOperation.COMPLETED -> "ok " + Words.duration(c.micros());
            case TraceOperation.STARTED -> "RUNNING " + Words.duration(c.micros());
            case TraceOperation.FAILED -> "FAILED " + Words.duration(c.micros());
            default -> "-";
        };
        return c.op() == null ? text : text + " (" + c.op() + ")";
    }

    /** {@code 2025-06-01T10:00:05.123Z}: UTC, so that dumps of hosts in several zones read alike. */
    static String time(long micros) {
        return Instant.EPOCH
                .plus(micros, ChronoUnit.MICROS)
                .truncatedTo(ChronoUnit.MILLIS)
                .toString();
    }
}
