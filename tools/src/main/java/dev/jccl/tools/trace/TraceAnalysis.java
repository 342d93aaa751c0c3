package dev.jccl.tools.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
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
                behind(byRank, missing),
                agreement(byRank),
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

    // ---- who is behind ----

    /**
     * How far a rank got in the communicator's collectives, from its newest one: inside #s (running, or failed there)
     * comes before having completed #s, which comes before being inside #s+1.
     */
    private record Position(TraceDump dump, TraceOperation newest) {
        long key() {
            return 2 * newest.seq() + (newest.completed() ? 1 : 0);
        }

        boolean done() {
            return newest.completed();
        }

        /**
         * {@code waiting in #151 AllReduce}, {@code failed in #151 AllReduce}, {@code last completed #152 Broadcast}.
         */
        String phrase() {
            if (newest.completed()) return "last completed " + newest.label();
            return (newest.failed() ? "failed in " : "waiting in ") + newest.label();
        }
    }

    private static Behind behind(List<TraceDump> dumps, List<Integer> missing) {
        TreeMap<Long, List<Position>> byKey = new TreeMap<>();
        List<Integer> unknown = new ArrayList<>();
        for (TraceDump d : dumps) {
            TraceOperation newest = d.collectives().stream()
                    .max(Comparator.comparingLong(TraceOperation::seq))
                    .orElse(null);
            if (newest == null) {
                unknown.add(d.rank());
                continue;
            }
            Position p = new Position(d, newest);
            byKey.computeIfAbsent(p.key(), k -> new ArrayList<>()).add(p);
        }
        String unknownNote = unknown.isEmpty()
                ? ""
                : "; " + Words.ranks(unknown) + "'s ring holds no collective operation, so where " + Words.it(unknown)
                        + " stood cannot be told";
        String missingNote =
                missing.isEmpty() ? "" : "; " + Words.ranks(missing) + " left no dump and may be behind too";
        if (byKey.isEmpty()) {
            return new Behind(
                    Behind.UNKNOWN,
                    List.of(),
                    null,
                    null,
                    null,
                    "no dump holds a collective operation, so no rank can be said to be behind" + missingNote);
        }
        List<Position> lowest = byKey.firstEntry().getValue();
        List<Integer> lowRanks = lowest.stream().map(p -> p.dump().rank()).toList();
        Position first = lowest.getFirst();
        if (byKey.size() == 1 && lowest.size() == 1) {
            return new Behind(
                    Behind.UNKNOWN,
                    List.of(),
                    lastCompletedSeq(first.dump()),
                    null,
                    null,
                    "only " + Words.ranks(lowRanks) + "'s dump shows a collective, so there is no rank to compare it"
                            + " with" + unknownNote + missingNote);
        }
        if (byKey.size() == 1) return level(lowest, missing, unknown, unknownNote);

        List<Position> ahead = byKey.tailMap(byKey.firstKey(), false).values().stream()
                .flatMap(List::stream)
                .sorted(Comparator.comparingInt(p -> p.dump().rank()))
                .toList();
        String subject = Words.ranks(lowRanks) + " " + Words.is(lowRanks) + " behind: " + Words.it(lowRanks);
        Long lastCompleted = lastCompletedSeq(first.dump());
        if (first.done()) {
            long next = first.newest().seq() + 1;
            String nextOp = ahead.stream()
                    .map(p -> p.dump().collective(next))
                    .filter(Objects::nonNull)
                    .map(o -> " " + o.op())
                    .findFirst()
                    .orElse("");
            String sentence = subject + " last completed " + first.newest().label() + " and never started #" + next
                    + nextOp + ", which " + whatOthersDidWith(ahead, next) + inPointToPoint(lowest);
            return new Behind(Behind.BEHIND, lowRanks, lastCompleted, next, null, sentence + unknownNote + missingNote);
        }
        long seq = first.newest().seq();
        String inIt = first.newest().failed()
                ? " failed in " + first.newest().label()
                : " " + (lowRanks.size() == 1 ? "is" : "are") + " still in "
                        + first.newest().label() + running(lowest);
        String sentence = subject + inIt + ", which " + whatOthersDidWith(ahead, seq) + "; " + whereEach(ahead);
        return new Behind(Behind.BEHIND, lowRanks, lastCompleted, null, seq, sentence + unknownNote + missingNote);
    }

    /** Every rank whose dump holds a collective stands at the same place. */
    private static Behind level(List<Position> all, List<Integer> missing, List<Integer> unknown, String unknownNote) {
        Position first = all.getFirst();
        List<Integer> ranks = all.stream().map(p -> p.dump().rank()).toList();
        boolean everyRank = missing.isEmpty() && unknown.isEmpty();
        String sentence = (everyRank ? "all ranks" : Words.ranks(ranks)) + " are level: ";
        if (first.done()) {
            sentence += "each last completed " + first.newest().label() + " and none is in a later collective";
        } else {
            Map<String, List<Integer>> byState = new LinkedHashMap<>();
            for (Position p : all) {
                String how = p.newest().failed() ? "failed in" : "waiting in";
                byState.computeIfAbsent(how, k -> new ArrayList<>())
                        .add(p.dump().rank());
            }
            if (byState.size() == 1) {
                String how = byState.keySet().iterator().next();
                sentence += "each " + (how.equals("failed in") ? how : "is " + how) + " "
                        + first.newest().label();
            } else {
                List<String> parts = new ArrayList<>();
                byState.forEach((how, rs) ->
                        parts.add(Words.ranks(rs) + " " + (how.equals("failed in") ? how : Words.is(rs) + " " + how)));
                sentence += Words.and(parts) + " " + first.newest().label();
            }
            if (everyRank) {
                sentence += "; no rank stayed out of it, so look at the verdict, the network or a rank's host";
            }
        }
        if (!missing.isEmpty()) {
            sentence += "; " + Words.ranks(missing) + " left no dump: "
                    + (first.done()
                            ? Words.it(missing) + " may be behind"
                            : (missing.size() == 1 ? "it" : "one of them") + " may be the rank the others wait for");
        }
        return new Behind(
                Behind.LEVEL,
                List.of(),
                lastCompletedSeq(first.dump()),
                null,
                first.done() ? null : first.newest().seq(),
                sentence + unknownNote);
    }

    /** {@code ranks 0, 2 are waiting in}, {@code rank 0 completed and rank 2 failed in}: what each did with #seq. */
    private static String whatOthersDidWith(List<Position> ranks, long seq) {
        Map<String, List<Integer>> byWhat = new LinkedHashMap<>();
        for (Position p : ranks) {
            TraceOperation o = p.dump().collective(seq);
            String what = o == null ? "went past" : o.running() ? "waiting in" : o.failed() ? "failed in" : "completed";
            byWhat.computeIfAbsent(what, k -> new ArrayList<>()).add(p.dump().rank());
        }
        List<String> parts = new ArrayList<>();
        byWhat.forEach((what, rs) ->
                parts.add(Words.ranks(rs) + " " + (what.equals("waiting in") ? Words.is(rs) + " " + what : what)));
        return Words.and(parts);
    }

    /** {@code rank 0 is waiting in #151 AllReduce, rank 2 last completed #151 AllReduce}. */
    private static String whereEach(List<Position> ranks) {
        Map<String, List<Integer>> byPhrase = new LinkedHashMap<>();
        for (Position p : ranks) {
            byPhrase.computeIfAbsent(p.phrase(), k -> new ArrayList<>())
                    .add(p.dump().rank());
        }
        List<String> parts = new ArrayList<>();
        byPhrase.forEach((phrase, rs) ->
                parts.add(Words.ranks(rs) + " " + (phrase.startsWith("waiting") ? Words.is(rs) + " " : "") + phrase));
        return String.join(", ", parts);
    }

    /** {@code (running 5.0s at dump time)}: how long the lowest ranks had been in their collective; the longest. */
    private static String running(List<Position> ranks) {
        long longest = ranks.stream()
                .mapToLong(p -> p.newest().micros(p.dump().dumpedAtMicros()))
                .max()
                .orElse(0);
        return " (running " + Words.duration(longest) + " at dump time)";
    }

    /** What a rank that stayed out of a collective was doing instead, if it was in a point-to-point operation. */
    private static String inPointToPoint(List<Position> ranks) {
        List<String> parts = new ArrayList<>();
        for (Position p : ranks) {
            for (TraceOperation o : p.dump().operations()) {
                if (!o.collective() && o.running()) {
                    parts.add("rank " + p.dump().rank() + " is in point-to-point #" + o.seq() + " " + o.describe()
                            + ", running " + Words.duration(o.micros(p.dump().dumpedAtMicros())) + " at dump time");
                }
            }
        }
        return parts.isEmpty() ? "" : "; " + String.join(", ", parts);
    }

    private static Long lastCompletedSeq(TraceDump d) {
        return d.collectives().stream()
                .filter(TraceOperation::completed)
                .map(TraceOperation::seq)
                .max(Long::compare)
                .orElse(null);
    }

    // ---- do the ranks agree ----

    private static Agreement agreement(List<TraceDump> dumps) {
        TreeMap<Long, Map<Integer, TraceOperation>> bySeq = new TreeMap<>();
        for (TraceDump d : dumps) {
            for (TraceOperation o : d.collectives()) {
                bySeq.computeIfAbsent(o.seq(), k -> new TreeMap<>()).put(d.rank(), o);
            }
        }
        List<TraceDump> holding =
                dumps.stream().filter(d -> !d.collectives().isEmpty()).toList();
        TreeSet<Long> everyDump = new TreeSet<>();
        int compared = 0;
        Disagreement first = null;
        for (Map.Entry<Long, Map<Integer, TraceOperation>> e : bySeq.entrySet()) {
            Map<Integer, TraceOperation> ops = e.getValue();
            if (ops.size() == holding.size()) everyDump.add(e.getKey());
            if (ops.size() < 2) continue;
            compared++;
            if (first == null) first = disagreement(e.getKey(), ops);
        }
        Long from = everyDump.isEmpty() ? null : everyDump.first();
        Long to = everyDump.isEmpty() ? null : everyDump.last();
        String summary;
        if (first != null) {
            summary = describe(first);
        } else if (dumps.size() < 2) {
            summary = "only one dump, so nothing to compare";
        } else if (compared == 0) {
            summary = "the dumps hold no collective operation in common (their rings do not overlap), so nothing to"
                    + " compare";
        } else {
            summary = "no disagreement in the "
                    + Words.count(everyDump.size(), "collective operation", "collective" + " operations")
                    + " every dump holds" + range(from, to);
            if (compared > everyDump.size()) {
                summary += ", nor in the " + (compared - everyDump.size()) + " more that some of them hold";
            }
        }
        return new Agreement(first, everyDump.size(), from, to, compared, summary);
    }

    private static String range(Long from, Long to) {
        if (from == null) return "";
        return from.equals(to) ? " (#" + from + ")" : " (#" + from + "–#" + to + ")";
    }

    /** The sides of collective {@code seq} if its ranks' calls differ, else null. */
    private static Disagreement disagreement(long seq, Map<Integer, TraceOperation> ops) {
        Map<TraceOperation.Signature, List<Integer>> sides = new LinkedHashMap<>();
        Map<TraceOperation.Signature, TraceOperation> example = new LinkedHashMap<>();
        ops.forEach((rank, o) -> {
            sides.computeIfAbsent(o.signature(), k -> new ArrayList<>()).add(rank);
            example.putIfAbsent(o.signature(), o);
        });
        if (sides.size() < 2) return null;
        List<Side> list = sides.entrySet().stream()
                .map(e -> new Side(
                        List.copyOf(e.getValue()),
                        e.getKey().op(),
                        example.get(e.getKey()).describe()))
                .sorted(Comparator.comparingInt((Side s) -> -s.ranks().size()))
                .toList();
        List<TraceOperation.Signature> signatures = List.copyOf(sides.keySet());
        List<String> differ = new ArrayList<>();
        if (differs(signatures, TraceOperation.Signature::op)) differ.add("op");
        if (differs(signatures, TraceOperation.Signature::count)) differ.add("count");
        if (differs(signatures, TraceOperation.Signature::type)) differ.add("type");
        if (differs(signatures, TraceOperation.Signature::reduceOp)) differ.add("reduceOp");
        if (differs(signatures, TraceOperation.Signature::root)) differ.add("root");
        return new Disagreement(seq, List.copyOf(differ), list);
    }

    private static boolean differs(
            List<TraceOperation.Signature> signatures, java.util.function.Function<TraceOperation.Signature, ?> field) {
        return signatures.stream().map(field).distinct().count() > 1;
    }

    /**
     * {@code at #150 rank 1 ran Broadcast (1024 × FLOAT32, root 0) where ranks 0, 2 ran AllReduce (1024 × FLOAT32,
     * SUM): they differ in op, reduceOp, root}. The smaller side first: it is the likelier culprit.
     */
    private static String describe(Disagreement d) {
        List<Side> sides = d.sides();
        List<String> others = new ArrayList<>();
        for (int i = 0; i < sides.size() - 1; i++) {
            others.add(
                    Words.ranks(sides.get(i).ranks()) + " ran " + sides.get(i).description());
        }
        Side fewest = sides.getLast();
        return "at #" + d.seq() + " " + Words.ranks(fewest.ranks()) + " ran " + fewest.description() + " where "
                + Words.and(others) + ": they differ in " + String.join(", ", d.differIn());
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
