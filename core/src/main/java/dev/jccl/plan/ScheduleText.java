package dev.jccl.plan;

import java.util.List;

/**
 * Renders a schedule for people:
 *
 * <pre>
 * AllReduce rank 1 of 3, count 5, op AVG, chunk 2: ring, 4 steps, scratch 0
 *   step 0: send →2 SEND[2,4) | recv ←0 RECV[0,2) = SEND[0,2) avg in
 *   step 2: avg RECV[4,5) | send →2 RECV[4,5) | recv ←0 RECV[2,4)
 * </pre>
 */
final class ScheduleText {
    private ScheduleText() {}

    static String render(Schedule s) {
        OpRequest r = s.request();
        StringBuilder out = new StringBuilder();
        out.append(r.collective().displayName())
                .append(" rank ")
                .append(r.rank())
                .append(" of ")
                .append(r.size())
                .append(", count ")
                .append(r.count());
        if (r.op() != null) {
            out.append(", op ").append(r.op());
        }
        if (r.collective() == Collective.SEND_RECV) {
            out.append(", to ").append(r.root()).append(", from ").append(r.recvPeer());
            if (r.inPlace()) {
                out.append(", in place");
            }
        } else if (r.root() >= 0) {
            out.append(r.collective() == Collective.SEND || r.collective() == Collective.RECV ? ", peer " : ", root ")
                    .append(r.root());
        }
        out.append(", chunk ")
                .append(r.chunkCount())
                .append(": ")
                .append(s.algorithm())
                .append(s.pacing() == Schedule.Pacing.PER_DIRECTION ? " per direction" : "")
                .append(", ")
                .append(s.steps().size())
                .append(" steps, scratch ")
                .append(s.scratchCount())
                .append('\n');
        List<Step> steps = s.steps();
        for (int i = 0; i < steps.size(); i++) {
            out.append("  step ").append(i).append(": ");
            List<Action> actions = steps.get(i).actions();
            if (actions.isEmpty()) {
                out.append("idle");
            }
            for (int a = 0; a < actions.size(); a++) {
                out.append(a == 0 ? "" : " | ").append(action(actions.get(a), r));
            }
            out.append('\n');
        }
        return out.toString();
    }

    static String action(Action a, OpRequest r) {
        return switch (a) {
            case Action.Send s -> "send →" + s.peer() + " " + region(s.from());
            case Action.Receive v ->
                "recv ←" + v.peer() + " " + region(v.into())
                        + (v.combineWith() == null ? "" : " = " + region(v.combineWith()) + " " + opName(r) + " in");
            case Action.LocalCopy c -> "copy " + region(c.from()) + " → " + region(c.to());
            case Action.LocalReduce x ->
                region(x.into()) + " = " + region(x.a()) + " " + opName(r) + " " + region(x.b());
            case Action.DivideBySize d -> "avg " + region(d.region());
        };
    }

    static String region(Region g) {
        return g.buffer() + "[" + g.offset() + "," + (g.offset() + g.count()) + ")";
    }

    private static String opName(OpRequest r) {
        return r.op() == null ? "op" : r.op().ncclTestsName();
    }
}
