package dev.jccl.tools.trace;

import dev.jccl.tools.trace.TraceAnalysis.Behind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Which ranks are furthest behind in a communicator's collectives, and what the others did meanwhile, said in one
 * sentence. A rank's position is its newest collective: inside #s (running, or failed there) comes before having
 * completed #s, which comes before being inside #s+1; the lowest position is behind, unless every rank shares it.
 */
final class WhoIsBehind {
    private WhoIsBehind() {}

    /** How far a rank got, from its newest collective; {@link #key} orders positions as the class comment says. */
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

    /**
     * @param dumps one per rank, of one communicator
     * @param missing the ranks without a dump, which may be behind too
     */
    static Behind find(List<TraceDump> dumps, List<Integer> missing) {
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
}
