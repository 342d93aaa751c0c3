package dev.jccl.plan;

import java.util.List;

/**
 * Everything one rank does for one operation, as data: no sockets, no memory, so schedules are
 * tested by simulation (see the plan tests) and printed for debugging.
 *
 * @param algorithm    name shown in debug output ({@code ring}, {@code chain}, {@code pairwise}, …)
 * @param scratchCount elements of SCRATCH the runtime must provide (0 if none)
 */
public record Schedule(OpRequest request, String algorithm, long scratchCount, List<Step> steps) {
    public Schedule {
        steps = List.copyOf(steps);
    }
}
