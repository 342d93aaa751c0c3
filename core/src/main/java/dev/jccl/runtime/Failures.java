package dev.jccl.runtime;

import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.PeerFailedException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.transport.FrameMismatchException;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.PeerLostException;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/** Turns what transports report into the errors users see: naming the rank, the peer, the operation and what to do. */
final class Failures {
    private final int rank;
    private final List<PeerInfo> peers;

    Failures(int rank, List<PeerInfo> peers) {
        this.rank = rank;
        this.peers = peers;
    }

    JcclTimeoutException timeout(
            OpContext op, String where, Set<Integer> waitingFor, String doing, IntFunction<String> pendingWith) {
        String who = waitingFor.stream()
                .map(p -> "rank " + p + " (" + peers.get(p).where() + "): " + pendingWith.apply(p))
                .collect(Collectors.joining("; "));
        return new JcclTimeoutException(String.format(
                "rank %d: %s timed out after %.1f s %s, %s %s. "
                        + "Are those ranks alive and calling the same collectives in the same order? "
                        + "(bound set by JCCL_TIMEOUT)",
                rank, op.describe(), op.elapsedSeconds(), where, doing, who));
    }

    JcclException translate(OpContext op, IOException e, String where) {
        if (e instanceof PeerLostException lost) {
            PeerInfo p = peers.get(lost.peer());
            return new PeerFailedException(
                    lost.peer(),
                    String.format(
                            "rank %d lost peer %d (%s) during %s after %.1f s: %s",
                            rank, lost.peer(), p.where(), op.describe(), op.elapsedSeconds(), lost.getMessage()),
                    e);
        }
        if (e instanceof FrameMismatchException m) {
            return new JcclException(
                    String.format(
                            "rank %d and rank %d called different operations: rank %d is in %s and expected "
                                    + "%s from rank %d, but rank %d sent %s. " + SAME_CALLS,
                            rank,
                            m.peer(),
                            rank,
                            op.describe(),
                            OpContext.describe(m.expected()),
                            m.peer(),
                            m.peer(),
                            OpContext.describe(m.actual())),
                    e);
        }
        if (e instanceof OperationMismatchException m) {
            return mismatch(op, m.peer(), OpContext.describe(m.sequence(), m.descriptor(), m.count()), e);
        }
        return new JcclException("rank " + rank + ": " + op.describe() + " failed " + where + ": " + e.getMessage(), e);
    }

    /** Rank {@code peer} is in {@code theirs} where this rank is in {@code op}. */
    JcclException mismatch(OpContext op, int peer, String theirs, Throwable cause) {
        return new JcclException(
                String.format(
                        "rank %d and rank %d called different operations: rank %d is in %s, rank %d is in %s. "
                                + SAME_CALLS,
                        rank,
                        peer,
                        rank,
                        op.describe(),
                        peer,
                        theirs),
                cause);
    }

    private static final String SAME_CALLS =
            "Every rank must call the same collectives with the same count, type, op and root, in the same order.";
}
