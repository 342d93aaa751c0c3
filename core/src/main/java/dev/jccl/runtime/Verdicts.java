package dev.jccl.runtime;

import dev.jccl.FailureVerdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Decides a failed collective's root cause from every rank's {@link RankStatus}: a pure function, so that the one rank
 * that decides gives every rank the same answer, and so that it can be tested case by case. In order:
 *
 * <ol>
 *   <li>ranks that did not answer the control channel (killed, stopped, hung, cut off) are the cause;
 *   <li>else, at the earliest collective any rank is stuck in, ranks that called a different operation than the largest
 *       group of ranks there are the cause;
 *   <li>else ranks that never entered it (still computing, skipped it, or waiting elsewhere) are the cause;
 *   <li>else no rank stands out, and the verdict says what the ranks reported.
 * </ol>
 *
 * A rank that is merely slow is never named: it is only asked about once some rank has reached its deadline.
 */
final class Verdicts {
    private Verdicts() {}

    /**
     * @param status each rank's report, null where it could not be reached
     * @param unreachable for those ranks, why (refused, timed out...)
     * @param where each rank's host and pid, for the message
     */
    static FailureVerdict decide(int decidedBy, RankStatus[] status, String[] unreachable, List<String> where) {
        int size = status.length;
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (status[r] == null) missing.add(r);
        }
        long stuckAt = Long.MAX_VALUE;
        RankStatus first = null;
        for (RankStatus s : status) {
            if (s != null && s.inCollective() && s.sequence() < stuckAt) {
                stuckAt = s.sequence();
                first = s;
            }
        }
        String operation = first == null ? "the failed operation" : first.description();
        String evidence = " Evidence: " + evidence(status);
        if (!missing.isEmpty()) {
            String why = missing.stream()
                    .map(r -> "rank " + r + " (" + where.get(r) + ") " + unreachable[r])
                    .collect(Collectors.joining("; "));
            String stuck = first == null ? "" : operation + " cannot finish: ";
            return new FailureVerdict(missing, operation, stuck + why + "." + evidence, decidedBy);
        }
        if (first == null) return nothingStandsOut(decidedBy, status, operation, evidence);

        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        Map<String, String> describedAs = new LinkedHashMap<>();
        for (RankStatus s : status) {
            if (s.inCollective() && s.sequence() == stuckAt) {
                String key = s.descriptor() + "/" + s.count();
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(s.rank());
                describedAs.putIfAbsent(key, s.description());
            }
        }
        if (groups.size() > 1) {
            String reference = null;
            for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
                if (reference == null
                        || g.getValue().size() > groups.get(reference).size()) {
                    reference = g.getKey();
                }
            }
            List<Integer> culprits = new ArrayList<>();
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
                if (g.getKey().equals(reference)) continue;
                culprits.addAll(g.getValue());
                if (!sb.isEmpty()) sb.append("; ");
                sb.append(ranks(g.getValue())).append(" called ").append(describedAs.get(g.getKey()));
            }
            culprits.sort(null);
            String text = sb + " where " + ranks(groups.get(reference)) + " called "
                    + describedAs.get(reference) + ": every rank must call the same collectives in the same order."
                    + evidence;
            return new FailureVerdict(culprits, describedAs.get(reference), text, decidedBy);
        }

        List<Integer> behind = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (RankStatus s : status) {
            if (s.inCollective() || s.position() > stuckAt) continue;
            behind.add(s.rank());
            if (!sb.isEmpty()) sb.append("; ");
            sb.append("rank ")
                    .append(s.rank())
                    .append(" (")
                    .append(where.get(s.rank()))
                    .append(") never entered it: it has completed ")
                    .append(s.collectivesCompleted())
                    .append(" collective(s) and is ")
                    .append(s.inOperation() ? "in " + s.description() : "not in any operation")
                    .append(s.failure().isEmpty() ? "" : " (it failed: " + s.failure() + ")");
        }
        if (!behind.isEmpty()) {
            return new FailureVerdict(
                    behind,
                    operation,
                    operation + " cannot finish: " + sb + ". Is that rank still computing, or did it skip the call?"
                            + evidence,
                    decidedBy);
        }
        return nothingStandsOut(decidedBy, status, operation, evidence);
    }

    private static FailureVerdict nothingStandsOut(
            int decidedBy, RankStatus[] status, String operation, String evidence) {
        String firstFailure = "";
        for (RankStatus s : status) {
            if (!s.failure().isEmpty()) {
                firstFailure = " Rank " + s.rank() + " reported: " + s.failure();
                break;
            }
        }
        return new FailureVerdict(
                List.of(),
                operation,
                "every rank answered and entered " + operation + "; none is missing or in another operation."
                        + firstFailure + evidence,
                decidedBy);
    }

    /**
     * Each rank's last completed collective, ranks with the same one grouped: {@code ranks 0-2,4: #40; rank 3: #39}.
     */
    static String evidence(RankStatus[] status) {
        Map<Long, List<Integer>> byCompleted = new TreeMap<>();
        List<Integer> unknown = new ArrayList<>();
        for (int r = 0; r < status.length; r++) {
            if (status[r] == null) unknown.add(r);
            else {
                byCompleted
                        .computeIfAbsent(status[r].collectivesCompleted(), k -> new ArrayList<>())
                        .add(r);
            }
        }
        StringBuilder sb = new StringBuilder("last collective completed: ");
        boolean firstGroup = true;
        for (Map.Entry<Long, List<Integer>> e : byCompleted.entrySet()) {
            if (!firstGroup) sb.append("; ");
            firstGroup = false;
            sb.append(ranks(e.getValue())).append(": ").append(e.getKey() == 0 ? "none" : "#" + (e.getKey() - 1));
        }
        if (!unknown.isEmpty()) {
            sb.append(firstGroup ? "" : "; ").append(ranks(unknown)).append(": unknown");
        }
        return sb.append('.').toString();
    }

    /** {@code rank 3} or {@code ranks 0-2,5}. */
    static String ranks(List<Integer> sorted) {
        StringBuilder sb = new StringBuilder(sorted.size() == 1 ? "rank " : "ranks ");
        for (int i = 0; i < sorted.size(); ) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) j++;
            if (i > 0) sb.append(',');
            sb.append(sorted.get(i));
            if (j > i) sb.append('-').append(sorted.get(j));
            i = j + 1;
        }
        return sb.toString();
    }
}
