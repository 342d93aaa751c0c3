package dev.jccl.tools.trace;

import dev.jccl.tools.trace.TraceAnalysis.Agreement;
import dev.jccl.tools.trace.TraceAnalysis.Disagreement;
import dev.jccl.tools.trace.TraceAnalysis.Side;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Whether the ranks called the same collectives: for each sequence number held by two dumps or more, the op, count,
 * type, reduction and root must match ({@link TraceOperation.Signature}); the lowest where they do not is the first
 * disagreement. Each rank numbers its own calls, so a skipped call shows here too, from that number on.
 */
final class CallAgreement {
    private CallAgreement() {}

    /** Compares every collective sequence number that two dumps or more hold. */
    static Agreement check(List<TraceDump> dumps) {
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
            List<TraceOperation.Signature> signatures, Function<TraceOperation.Signature, ?> field) {
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
}
