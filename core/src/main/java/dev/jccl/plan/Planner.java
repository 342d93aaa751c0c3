package dev.jccl.plan;

/**
 * Turns one rank's view of an operation into its {@link Schedule}. Pure: no I/O, no state, safe from any thread. Every
 * rank of an operation plans with the same request except for {@code rank}, and the schedules it gets back fit
 * together: each Send in a rank's step k meets the peer's Receive from that rank in the peer's step k, with the same
 * element count, in list order per pair of ranks; no transfer carries more than {@code chunkCount} elements or none.
 *
 * <table>
 *   <caption>Algorithms</caption>
 *   <tr><th>collective</th><th>algorithm</th><th>steps (chunks m, slices s, size P ≥ 2)</th></tr>
 *   <tr><td>AllReduce</td><td>{@link RingAllReduce ring}</td><td>2(P-1)·s</td></tr>
 *   <tr><td>AllReduce</td><td>{@link OneShotAllReduce one-shot}</td><td>m + 1</td></tr>
 *   <tr><td>AllReduce</td><td>{@link HierarchicalAllReduce hierarchical} (L ranks on each of H hosts)</td>
 *       <td>(2(L-1) + 2(H-1))·s</td></tr>
 *   <tr><td>AllReduce</td><td>{@link TreeAllReduce tree} (two trees, half the data each: binomial for one piece;
 *       else binary, pipelined in k pieces, height D ≤ ⌈log2 P⌉)</td><td>2⌈log2 P⌉; k + 2D − 1</td></tr>
 *   <tr><td>AllReduce</td><td>{@link RecursiveDoublingAllReduce recursive doubling} (p2: largest power of two ≤ P;
 *       +2 when P is not one, +1 where a last copy or AVG's division is left)</td><td>log2 p2</td></tr>
 *   <tr><td>AllReduce</td><td>{@link RabenseifnerAllReduce Rabenseifner} (+2 when P is not a power of two)</td>
 *       <td>2·log2 p2</td></tr>
 *   <tr><td>ReduceScatter</td><td>{@link RingReduceScatter ring}</td><td>(P-1)·m, +1 for AVG</td></tr>
 *   <tr><td>AllGather</td><td>{@link RingAllGather ring}</td><td>(P-1)·m</td></tr>
 *   <tr><td>AllGather</td><td>{@link BruckAllGather Bruck} (recursive doubling for any P)</td>
 *       <td>⌈log2 P⌉</td></tr>
 *   <tr><td>Broadcast</td><td>{@link ChainBroadcast chain}</td><td>m + P - 2</td></tr>
 *   <tr><td>Broadcast</td><td>{@link TreeBroadcast tree} (binomial; pipelined over two {@link RootedTrees} for
 *       several pieces k)</td><td>⌈log2 P⌉; k + height − 1</td></tr>
 *   <tr><td>Broadcast</td><td>{@link HierarchicalBroadcast hierarchical} (leaders' tree, then hosts')</td>
 *       <td>⌈log2 H⌉ + ⌈log2 L⌉</td></tr>
 *   <tr><td>Reduce</td><td>{@link ChainReduce chain}</td><td>m + P - 2, +1 for AVG</td></tr>
 *   <tr><td>Reduce</td><td>{@link TreeReduce tree} (binomial; pipelined as the Broadcast)</td>
 *       <td>⌈log2 P⌉; k + height − 1; +1 for AVG</td></tr>
 *   <tr><td>Reduce</td><td>{@link HierarchicalReduce hierarchical} (hosts' trees, then leaders')</td>
 *       <td>⌈log2 L⌉ + ⌈log2 H⌉, +1 for AVG</td></tr>
 *   <tr><td>AllToAll</td><td>{@link PairwiseAllToAll pairwise}</td><td>(P-1)·m + 1, P·m + 1 for odd P</td></tr>
 *   <tr><td>AllToAll</td><td>{@link BruckAllToAll Bruck} (packed blocks, any P)</td><td>⌈log2 P⌉ + 1</td></tr>
 *   <tr><td>AllToAll</td><td>{@link HierarchicalAllToAll hierarchical} (gather to leaders, leaders exchange packed
 *       runs pairwise, leaders hand out results)</td><td>H + 1</td></tr>
 *   <tr><td>Send, Recv</td><td>{@link PointToPoint p2p}</td><td>m</td></tr>
 *   <tr><td>SendRecv</td><td>{@link PointToPoint p2p}, per direction</td>
 *       <td>m, m + 1 in place; to itself 1 (a copy), 0 in place</td></tr>
 *   <tr><td>any but Send/Recv/SendRecv, P = 1</td><td>{@link SingleRank local}</td><td>1</td></tr>
 * </table>
 *
 * The request's algorithm picks the schedule; a collective that has no schedule for it gets its ring (chain, pairwise)
 * schedule, and the {@link Tuner} never asks for one. A {@code count} of 0 gives a schedule without steps. Every
 * schedule is {@link Schedule.Pacing#LOCKSTEP} except SendRecv's, whose sends and receives advance apart.
 */
public final class Planner {
    private Planner() {}

    /**
     * Plans {@code r} for its rank.
     *
     * @throws IllegalArgumentException if the request lacks a reduce op where one is needed, names a root or peer
     *     outside {@code [0, size)}, is a SendRecv with this rank as one peer but not the other, or its buffers would
     *     exceed {@code Long.MAX_VALUE} elements
     */
    public static Schedule plan(OpRequest r) {
        return plan(r, null);
    }

    /**
     * Plans {@code r} for its rank, knowing which ranks share a host ({@code hosts}, or null), which
     * {@link Tuner.Algorithm#HIERARCHICAL} needs; where the hosts do not fit it (one host; for AllReduce also unequal
     * numbers of ranks, or one rank per host) the ring (chain, pairwise) schedule is used instead.
     */
    public static Schedule plan(OpRequest r, HostGroups hosts) {
        validate(r);
        if (hosts != null && hosts.ranks() != r.size()) {
            throw new IllegalArgumentException("host groups for " + hosts.ranks() + " ranks, operation on " + r.size());
        }
        return choose(r, hosts).plan(r, hosts);
    }

    /** A schedule as text, one line per step, for debug output and test failures. */
    public static String describe(Schedule schedule) {
        return ScheduleText.render(schedule);
    }

    /** The schedule that runs {@code r}: see the table above for which request gets which. */
    static ScheduleAlgorithm choose(OpRequest r, HostGroups hosts) {
        if (r.collective().isPointToPoint()) return ScheduleAlgorithm.POINT_TO_POINT;
        if (r.count() == 0) return ScheduleAlgorithm.EMPTY; // nothing to move, whatever the algorithm
        if (r.size() == 1) return ScheduleAlgorithm.LOCAL;
        Tuner.Algorithm a = r.algorithm();
        return switch (r.collective()) {
            case ALL_REDUCE ->
                switch (a) {
                    case ONE_SHOT -> ScheduleAlgorithm.ONE_SHOT_ALL_REDUCE;
                    case HIERARCHICAL ->
                        Tuner.hierarchical(hosts)
                                ? ScheduleAlgorithm.HIERARCHICAL_ALL_REDUCE
                                : ScheduleAlgorithm.RING_ALL_REDUCE;
                    case TREE -> ScheduleAlgorithm.TREE_ALL_REDUCE;
                    case RECURSIVE_DOUBLING -> ScheduleAlgorithm.RECURSIVE_DOUBLING_ALL_REDUCE;
                    case RABENSEIFNER -> ScheduleAlgorithm.RABENSEIFNER_ALL_REDUCE;
                    case RING, BRUCK -> ScheduleAlgorithm.RING_ALL_REDUCE;
                };
            case REDUCE_SCATTER ->
                a == Tuner.Algorithm.HIERARCHICAL && spansHosts(hosts)
                        ? ScheduleAlgorithm.HIERARCHICAL_REDUCE_SCATTER
                        : ScheduleAlgorithm.RING_REDUCE_SCATTER;
            case ALL_GATHER ->
                switch (a) {
                    case BRUCK -> ScheduleAlgorithm.BRUCK_ALL_GATHER;
                    case HIERARCHICAL ->
                        spansHosts(hosts)
                                ? ScheduleAlgorithm.HIERARCHICAL_ALL_GATHER
                                : ScheduleAlgorithm.RING_ALL_GATHER;
                    default -> ScheduleAlgorithm.RING_ALL_GATHER;
                };
            case BROADCAST ->
                switch (a) {
                    case TREE -> ScheduleAlgorithm.TREE_BROADCAST;
                    case HIERARCHICAL ->
                        spansHosts(hosts)
                                ? ScheduleAlgorithm.HIERARCHICAL_BROADCAST
                                : ScheduleAlgorithm.CHAIN_BROADCAST;
                    default -> ScheduleAlgorithm.CHAIN_BROADCAST;
                };
            case REDUCE ->
                switch (a) {
                    case TREE -> ScheduleAlgorithm.TREE_REDUCE;
                    case HIERARCHICAL ->
                        spansHosts(hosts) ? ScheduleAlgorithm.HIERARCHICAL_REDUCE : ScheduleAlgorithm.CHAIN_REDUCE;
                    default -> ScheduleAlgorithm.CHAIN_REDUCE;
                };
            case ALL_TO_ALL ->
                switch (a) {
                    case BRUCK -> ScheduleAlgorithm.BRUCK_ALL_TO_ALL;
                    case HIERARCHICAL ->
                        spansHosts(hosts)
                                ? ScheduleAlgorithm.HIERARCHICAL_ALL_TO_ALL
                                : ScheduleAlgorithm.PAIRWISE_ALL_TO_ALL;
                    default -> ScheduleAlgorithm.PAIRWISE_ALL_TO_ALL;
                };
            case SEND, RECV, SEND_RECV -> throw new AssertionError(r.collective());
        };
    }

    /** Hosts for a two-level rooted schedule: two or more, of any sizes. */
    static boolean spansHosts(HostGroups hosts) {
        return hosts != null && hosts.hosts() >= 2;
    }

    private static void checkPeer(OpRequest r, String what, int peer) {
        if (peer < 0 || peer >= r.size()) {
            throw new IllegalArgumentException(
                    r.collective().displayName() + " " + what + " " + peer + " not in [0, " + r.size() + ")");
        }
    }

    private static void validate(OpRequest r) {
        Collective c = r.collective();
        if (c == null) {
            throw new IllegalArgumentException("no collective in " + r);
        }
        switch (c) {
            case ALL_REDUCE, REDUCE, REDUCE_SCATTER -> {
                if (r.op() == null) {
                    throw new IllegalArgumentException(c.displayName() + " needs a reduce op");
                }
            }
            default -> {}
        }
        switch (c) {
            case BROADCAST, REDUCE, SEND, RECV -> {
                if (r.root() < 0 || r.root() >= r.size()) {
                    String what = c == Collective.SEND || c == Collective.RECV ? "peer" : "root";
                    throw new IllegalArgumentException(
                            c.displayName() + " " + what + " " + r.root() + " not in [0, " + r.size() + ")");
                }
            }
            default -> {}
        }
        if (c == Collective.SEND_RECV) {
            checkPeer(r, "sendPeer", r.root());
            checkPeer(r, "recvPeer", r.recvPeer());
            if ((r.root() == r.rank()) != (r.recvPeer() == r.rank())) {
                throw new IllegalArgumentException("SendRecv on rank " + r.rank() + " to " + r.root() + ", from "
                        + r.recvPeer() + ": this rank may be both peers (a local copy) or neither, not one");
            }
        }
        switch (c) {
            case ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL -> {
                try {
                    Math.multiplyExact(r.count(), r.size());
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException(
                            c.displayName() + " of " + r.size() + " × " + r.count() + " elements overflows a long");
                }
            }
            default -> {}
        }
    }
}
