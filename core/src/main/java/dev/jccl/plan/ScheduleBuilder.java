package dev.jccl.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects one rank's actions by step index. Zero-count actions are dropped here, in one place, so every algorithm
 * omits empty transfers the same way on both sides of a link. Local actions are listed before transfers, the order in
 * which the runtime performs them.
 */
final class ScheduleBuilder {
    private final OpRequest request;
    private final String algorithm;
    private final List<List<Action>> locals = new ArrayList<>();
    private final List<List<Action>> transfers = new ArrayList<>();
    private long scratchCount;
    private Schedule.Pacing pacing = Schedule.Pacing.LOCKSTEP;

    ScheduleBuilder(OpRequest request, String algorithm) {
        this.request = request;
        this.algorithm = algorithm;
    }

    /** Makes the schedule at least {@code n} steps long, so ranks with nothing to do stay in step. */
    ScheduleBuilder steps(int n) {
        while (locals.size() < n) {
            locals.add(new ArrayList<>());
            transfers.add(new ArrayList<>());
        }
        return this;
    }

    ScheduleBuilder scratch(long count) {
        scratchCount = count;
        return this;
    }

    ScheduleBuilder pacing(Schedule.Pacing p) {
        pacing = p;
        return this;
    }

    void copy(int step, Region from, Region to) {
        if (from.count() > 0) {
            steps(step + 1).locals.get(step).add(new Action.LocalCopy(from, to));
        }
    }

    void reduce(int step, Region a, Region b, Region into) {
        if (into.count() > 0) {
            steps(step + 1).locals.get(step).add(new Action.LocalReduce(a, b, into));
        }
    }

    void divide(int step, Region region) {
        if (region.count() > 0) {
            steps(step + 1).locals.get(step).add(new Action.DivideBySize(region));
        }
    }

    void send(int step, int peer, Region from) {
        if (from.count() > 0) {
            checkChunk(from);
            steps(step + 1).transfers.get(step).add(new Action.Send(peer, from));
        }
    }

    /** A plain receive ({@code combineWith == null}) or a reducing one. */
    void receive(int step, int peer, Region into, Region combineWith) {
        if (into.count() > 0) {
            checkChunk(into);
            steps(step + 1).transfers.get(step).add(new Action.Receive(peer, into, combineWith));
        }
    }

    /**
     * One step of a ring of all ranks: sends {@code from} to the next rank and receives {@code into} from the previous
     * one, combined with {@code combineWith} unless it is null.
     */
    void ringStep(int step, Region from, Region into, Region combineWith) {
        send(step, request.ringRank(1), from);
        receive(step, request.ringRank(-1), into, combineWith);
    }

    /**
     * Sends all of {@code from} to {@code peer} in one step, cut into {@link Pieces} of at most {@code chunkCount}
     * elements; the peer's {@link #receiveAll} of the same count cuts alike, so the transfers pair up in order.
     */
    void sendAll(int step, int peer, Region from) {
        Pieces pieces = Pieces.of(from.count(), request.chunkCount());
        for (int i = 0; i < pieces.steps(); i++) {
            send(step, peer, from.slice(pieces.offset(i), pieces.length(i)));
        }
    }

    /** Receives all of {@code into} from {@code peer} in one step, piece by piece as {@link #sendAll} sends it. */
    void receiveAll(int step, int peer, Region into, Region combineWith) {
        Pieces pieces = Pieces.of(into.count(), request.chunkCount());
        for (int i = 0; i < pieces.steps(); i++) {
            long off = pieces.offset(i);
            long len = pieces.length(i);
            receive(step, peer, into.slice(off, len), combineWith == null ? null : combineWith.slice(off, len));
        }
    }

    Schedule build() {
        List<Step> steps = new ArrayList<>(locals.size());
        for (int i = 0; i < locals.size(); i++) {
            List<Action> actions = new ArrayList<>(locals.get(i));
            actions.addAll(transfers.get(i));
            steps.add(new Step(actions));
        }
        return new Schedule(request, algorithm, scratchCount, steps, pacing);
    }

    private void checkChunk(Region r) {
        if (r.count() > request.chunkCount()) {
            throw new IllegalStateException(
                    "planner bug: transfer of " + r.count() + " > chunkCount " + request.chunkCount());
        }
    }
}
