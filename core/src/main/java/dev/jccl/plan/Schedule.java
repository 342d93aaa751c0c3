package dev.jccl.plan;

import java.util.List;

/**
 * Everything one rank does for one operation, as data: no sockets, no memory, so schedules are tested by simulation
 * (see the plan tests) and printed for debugging.
 *
 * @param algorithm name shown in debug output ({@code ring}, {@code chain}, {@code pairwise}, …)
 * @param scratchCount elements of SCRATCH the runtime must provide (0 if none)
 * @param pacing how the runtime may move from one step to the next
 */
public record Schedule(OpRequest request, String algorithm, long scratchCount, List<Step> steps, Pacing pacing) {
    public Schedule {
        steps = List.copyOf(steps);
        if (pacing == null) throw new IllegalArgumentException("no pacing");
    }

    /** A {@link Pacing#LOCKSTEP} schedule, what every collective is. */
    public Schedule(OpRequest request, String algorithm, long scratchCount, List<Step> steps) {
        this(request, algorithm, scratchCount, steps, Pacing.LOCKSTEP);
    }

    /** How the runtime may move from one step to the next. */
    public enum Pacing {
        /**
         * A step starts once every transfer of the step before is done: what a collective needs, since a step sends
         * what the step before received.
         */
        LOCKSTEP,
        /**
         * Sends and receives advance apart, each direction one step at a time: the sends of step k are posted once the
         * sends of step k-1 are done, whatever the receives are doing; the local actions of step k, if it has any, run
         * once both directions have finished step k-1; the receives of step k are posted after those local actions and
         * once the receives of step k-1 are done. So a peer may take all the sends before it sends anything back (a
         * Send then a Recv, or the other way round), as with MPI_Sendrecv. Valid only where no Send reads memory that a
         * Receive of the schedule writes, and a local action that writes memory a Send reads comes in a later step than
         * that Send (what SendRecv's plans promise and the plan tests check).
         */
        PER_DIRECTION
    }
}
