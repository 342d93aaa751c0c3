package dev.jccl.plan;

import java.util.List;

/**
 * A unit of a schedule. The runtime first performs the step's local actions ({@link Action.LocalCopy},
 * {@link Action.DivideBySize}) in order, then progresses all its {@link Action.Send}s and {@link Action.Receive}s
 * concurrently, and finishes the step when every one of them is done (in a {@link Schedule.Pacing#PER_DIRECTION}
 * schedule, each direction finishes on its own).
 *
 * <p>Why steps and not a free-form graph: if every send of step {@code k} is matched by a receive in the peer's step
 * {@code k}, a rank at the lowest step always makes progress, so no schedule written this way can deadlock however
 * small the transport's buffers are. Each transfer moves at most one chunk, which bounds the staging memory a step
 * needs.
 */
public record Step(List<Action> actions) {
    public Step {
        actions = List.copyOf(actions);
    }

    public static Step of(Action... actions) {
        return new Step(List.of(actions));
    }
}
