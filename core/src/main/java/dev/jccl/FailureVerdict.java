package dev.jccl;

import java.util.List;

/**
 * The root cause of a failed collective, decided by one rank from what every rank it could reach reported, and given to
 * every rank that asks: the same text and culprits on every rank, whichever neighbour each was waiting for.
 *
 * @param culprits the ranks that caused the failure (did not answer, never entered the operation, or called a different
 *     one); empty if no rank stands out (then {@code explanation} says what the ranks reported)
 * @param operation the operation that failed, as {@code AllReduce #41}
 * @param explanation the cause in plain words, with the evidence: each rank's last completed collective and where it is
 *     now
 * @param decidedBy the rank that gathered the reports and decided
 */
public record FailureVerdict(List<Integer> culprits, String operation, String explanation, int decidedBy) {
    /** A verdict; {@code culprits} is copied, so later changes to the caller's list do not show. */
    public FailureVerdict {
        culprits = List.copyOf(culprits);
    }

    /** The line appended to every rank's error message. */
    public String describe() {
        return "Root cause (decided by rank " + decidedBy + ", the same for every rank that reaches it): "
                + explanation;
    }
}
