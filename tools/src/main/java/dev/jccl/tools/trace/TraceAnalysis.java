package dev.jccl.tools.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What one communicator's dumps say when laid side by side: which ranks left one, the verdict they carry, where each
 * rank was, which rank is behind, the first collective the ranks did not agree on, and a timeline of the last few
 * collectives. Pure logic over {@link TraceDump}s; the sentences are made here so that text and JSON say the same.
 *
 * @param commId the communicator's id
 * @param size how many ranks it has
 * @param ranks the ranks that left a dump
 * @param missingRanks the ranks that did not
 * @param newestDumpMicros when the newest of the dumps was written (wall clock, µs)
 * @param notes what else a reader should know (ranks that disagree on the size)
 */
record TraceAnalysis(
        String commId,
        int size,
        List<Integer> ranks,
        List<Integer> missingRanks,
        long newestDumpMicros,
        VerdictSummary verdict,
        List<RankSummary> rankStates,
        Behind behind,
        Agreement agreement,
        List<TimelineRow> timeline,
        List<String> notes) {

    /**
     * The verdict the dumps carry.
     *
     * @param agreed the one verdict when every dump that carries one carries the same; null otherwise
     * @param groups each different verdict and the ranks that carry it
     * @param ranksWithout ranks whose dump carries none
     */
    record VerdictSummary(String agreed, List<VerdictGroup> groups, List<Integer> ranksWithout) {}

    record VerdictGroup(String verdict, List<Integer> ranks) {}

    /**
     * One operation as the analysis names it.
     *
     * @param micros its duration, or for one still running how long it had run when the rank dumped
     */
    record Step(long seq, String op, boolean collective, String description, String state, long micros) {
        static Step of(TraceOperation o, long dumpedAtMicros) {
            return new Step(o.seq(), o.op(), o.collective(), o.describe(), o.state(), o.micros(dumpedAtMicros));
        }
    }

    /**
     * Where one rank was when it dumped.
     *
     * @param held how many operations its ring held (fewer than {@code recorded} once it wrapped)
     * @param firstSeq the lowest collective sequence number its ring held; null if it held none
     * @param lastSeq the highest
     * @param lastCompleted its newest completed collective; null if its ring holds none
     * @param inFlight the operation it was in (started, not ended); null if none
     * @param failed its failed operations, oldest first
     */
    record RankSummary(
            int rank,
            String where,
            String file,
            long dumpedAtMicros,
            long recorded,
            int held,
            Long firstSeq,
            Long lastSeq,
            Step lastCompleted,
            Step inFlight,
            List<Step> failed) {}

    /**
     * Which ranks are behind the others.
     *
     * @param status {@value #BEHIND}, {@value #LEVEL} or {@value #UNKNOWN} (no dump holds a collective)
     * @param ranks the ranks furthest behind; empty unless {@code status} is {@value #BEHIND}
     * @param lastCompletedSeq the last collective those ranks completed, where known
     * @param neverStartedSeq the collective they never started while others did; null if they are inside one
     * @param stuckInSeq the collective they are still in (or failed in) while others completed it; null otherwise
     * @param summary the finding in one sentence
     */
    record Behind(
            String status,
            List<Integer> ranks,
            Long lastCompletedSeq,
            Long neverStartedSeq,
            Long stuckInSeq,
            String summary) {
        static final String BEHIND = "behind";
        static final String LEVEL = "level";
        static final String UNKNOWN = "unknown";
    }

    /**
     * Whether the ranks called the same collectives.
     *
     * @param firstDisagreement the lowest sequence number held by two or more dumps whose calls differ; null if none
     * @param heldByAll how many collective sequence numbers every dump holds
     * @param compared how many are held by two or more dumps, which is what was compared
     * @param summary the finding in one sentence
     */
    record Agreement(
            Disagreement firstDisagreement,
            int heldByAll,
            Long heldByAllFrom,
            Long heldByAllTo,
            int compared,
            String summary) {}

    /**
     * @param differIn which of op, count, type, reduceOp, root differ
     * @param sides one per different call, the largest group first
     */
    record Disagreement(long seq, List<String> differIn, List<Side> sides) {}

    record Side(List<Integer> ranks, String op, String description) {}

    /** One collective of the timeline: its sequence number, its operation, and each rank's cell. */
    record TimelineRow(long seq, String op, List<Cell> cells) {}

    /**
     * @param state completed, started, failed, or {@value #ABSENT}: not started, or no longer in the ring
     * @param micros duration, or time running at the dump; null when absent
     * @param op the rank's operation where it is not the row's (a mismatch); else null
     */
    record Cell(int rank, String state, Long micros, String op) {
        static final String ABSENT = "absent";
    }

    /**
     * Lays the dumps of one communicator side by side.
     *
     * @param dumps one per rank, of one communicator, at least one
     * @param last how many of the newest collective sequence numbers the timeline shows
     */
    static TraceAnalysis of(List<TraceDump> dumps, int last) {
        if (dumps.isEmpty()) throw new IllegalArgumentException("no dumps to analyse");
        List<TraceDump> byRank =
                dumps.stream().sorted(Comparator.comparingInt(TraceDump::rank)).toList();
        String commId = byRank.getFirst().commId();
        int size = byRank.stream().mapToInt(TraceDump::size).max().orElseThrow();
        List<String> notes = new ArrayList<>();
        if (byRank.stream().anyMatch(d -> d.size() != size)) {
            notes.add("the dumps disagree on the communicator's size: "
                    + byRank.stream()
                            .map(d -> "rank " + d.rank() + " says " + d.size())
                            .toList());
        }
        List<Integer> ranks = byRank.stream().map(TraceDump::rank).toList();
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (!ranks.contains(r)) missing.add(r);
        }
        for (TraceDump d : byRank) {
            if (d.recorded() > d.operations().size()) {
                notes.add("rank " + d.rank() + "'s ring had wrapped: it holds the last "
                        + d.operations().size() + " of the " + d.recorded()
                        + " operations it recorded (JCCL_TRACE_BUFFER keeps more)");
            }
        }
        long newest = byRank.stream().mapToLong(TraceDump::dumpedAtMicros).max().orElseThrow();
        return new TraceAnalysis(
                commId,
                size,
                ranks,
                List.copyOf(missing),
                newest,
                verdict(byRank),
                byRank.stream().map(TraceAnalysis::rankSummary).toList(),
                WhoIsBehind.find(byRank, missing),
                CallAgreement.check(byRank),
                timeline(byRank, last),
                List.copyOf(notes));
    }

    // ---- verdict ----

    private static VerdictSummary verdict(List<TraceDump> dumps) {
        Map<String, List<Integer>> byText = new LinkedHashMap<>();
        List<Integer> without = new ArrayList<>();
        for (TraceDump d : dumps) {
            if (d.verdict() == null) without.add(d.rank());
            else byText.computeIfAbsent(d.verdict(), k -> new ArrayList<>()).add(d.rank());
        }
        List<VerdictGroup> groups = byText.entrySet().stream()
                .map(e -> new VerdictGroup(e.getKey(), List.copyOf(e.getValue())))
                .sorted(Comparator.comparingInt((VerdictGroup g) -> -g.ranks().size()))
                .toList();
        return new VerdictSummary(
                groups.size() == 1 ? groups.getFirst().verdict() : null, groups, List.copyOf(without));
    }

    // ---- per rank ----

    private static RankSummary rankSummary(TraceDump d) {
        List<TraceOperation> collectives = d.collectives();
        TraceOperation lastCompleted = null;
        for (TraceOperation o : collectives) {
            if (o.completed() && (lastCompleted == null || o.seq() > lastCompleted.seq())) lastCompleted = o;
        }
        TraceOperation inFlight = null;
        for (TraceOperation o : d.operations()) {
            if (o.running()) inFlight = o; // the newest: operations never overlap, so there is one at most
        }
        long at = d.dumpedAtMicros();
        return new RankSummary(
                d.rank(),
                d.where(),
                d.file().getFileName().toString(),
                at,
                d.recorded(),
                d.operations().size(),
                collectives.stream().map(TraceOperation::seq).min(Long::compare).orElse(null),
                collectives.stream().map(TraceOperation::seq).max(Long::compare).orElse(null),
                lastCompleted == null ? null : Step.of(lastCompleted, at),
                inFlight == null ? null : Step.of(inFlight, at),
                d.operations().stream()
                        .filter(TraceOperation::failed)
                        .map(o -> Step.of(o, at))
                        .toList());
    }

    // ---- timeline ----

    private static List<TimelineRow> timeline(List<TraceDump> dumps, int last) {
        TreeSet<Long> seqs = new TreeSet<>();
        for (TraceDump d : dumps) {
            for (TraceOperation o : d.collectives()) seqs.add(o.seq());
        }
        List<TimelineRow> rows = new ArrayList<>();
        for (long seq : seqs.descendingSet().stream().limit(last).sorted().toList()) {
            Map<String, Integer> opVotes = new LinkedHashMap<>();
            for (TraceDump d : dumps) {
                TraceOperation o = d.collective(seq);
                if (o != null) opVotes.merge(o.op(), 1, Integer::sum);
            }
            String rowOp = opVotes.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
            List<Cell> cells = new ArrayList<>();
            for (TraceDump d : dumps) {
                TraceOperation o = d.collective(seq);
                cells.add(
                        o == null
                                ? new Cell(d.rank(), Cell.ABSENT, null, null)
                                : new Cell(
                                        d.rank(),
                                        o.state(),
                                        o.micros(d.dumpedAtMicros()),
                                        o.op().equals(rowOp) ? null : o.op()));
            }
            rows.add(new TimelineRow(seq, rowOp, List.copyOf(cells)));
        }
        return List.copyOf(rows);
    }
}
