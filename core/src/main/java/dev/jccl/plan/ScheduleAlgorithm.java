package dev.jccl.plan;

/**
 * Every schedule the {@link Planner} can make: the label its schedules carry ({@link Schedule#algorithm()}, shown in
 * debug output, {@code jccl sim} and test failures) and the class that lays out one rank's steps. The planner picks one
 * for a request and runs it on a fresh {@link ScheduleBuilder}; the algorithm classes only add steps, so none of them
 * repeats the making of the builder, its label or the building of the schedule.
 *
 * <p>Labels are what users read, so they stay as they are; several schedules share one ("ring", "tree", "bruck",
 * "hierarchical"), the collective telling them apart.
 */
enum ScheduleAlgorithm {
    /** Any collective with a count of 0: nothing to move, whatever the algorithm. */
    EMPTY("empty", (b, r) -> {}),
    LOCAL("local", SingleRank::build),
    POINT_TO_POINT("p2p", PointToPoint::build),
    RING_ALL_REDUCE("ring", RingAllReduce::build),
    ONE_SHOT_ALL_REDUCE("oneshot", OneShotAllReduce::build),
    TREE_ALL_REDUCE("tree", TreeAllReduce::build),
    RECURSIVE_DOUBLING_ALL_REDUCE("recursive-doubling", RecursiveDoublingAllReduce::build),
    RABENSEIFNER_ALL_REDUCE("rabenseifner", RabenseifnerAllReduce::build),
    HIERARCHICAL_ALL_REDUCE("hierarchical", HierarchicalAllReduce::build),
    RING_REDUCE_SCATTER("ring", RingReduceScatter::build),
    HIERARCHICAL_REDUCE_SCATTER("hierarchical", HierarchicalReduceScatter::build),
    RING_ALL_GATHER("ring", RingAllGather::build),
    BRUCK_ALL_GATHER("bruck", BruckAllGather::build),
    HIERARCHICAL_ALL_GATHER("hierarchical", HierarchicalAllGather::build),
    CHAIN_BROADCAST("chain", ChainBroadcast::build),
    TREE_BROADCAST("tree", TreeBroadcast::build),
    HIERARCHICAL_BROADCAST("hierarchical", HierarchicalBroadcast::build),
    CHAIN_REDUCE("chain", ChainReduce::build),
    TREE_REDUCE("tree", TreeReduce::build),
    HIERARCHICAL_REDUCE("hierarchical", HierarchicalReduce::build),
    PAIRWISE_ALL_TO_ALL("pairwise", PairwiseAllToAll::build),
    BRUCK_ALL_TO_ALL("bruck", BruckAllToAll::build),
    HIERARCHICAL_ALL_TO_ALL("hierarchical", HierarchicalAllToAll::build);

    /** Adds one rank's steps for a request to a builder made for it. */
    @FunctionalInterface
    interface Steps {
        void build(ScheduleBuilder b, OpRequest r);
    }

    /** The same for a two-level schedule, which needs to know which ranks share a host. */
    @FunctionalInterface
    interface TwoLevelSteps {
        void build(ScheduleBuilder b, OpRequest r, HostGroups hosts);
    }

    private final String label;
    private final TwoLevelSteps steps;

    ScheduleAlgorithm(String label, Steps steps) {
        this(label, (b, r, hosts) -> steps.build(b, r));
    }

    ScheduleAlgorithm(String label, TwoLevelSteps steps) {
        this.label = label;
        this.steps = steps;
    }

    /** The name the schedules carry. */
    String label() {
        return label;
    }

    /** {@code r}'s schedule for its rank; {@code hosts} is read by the two-level schedules only, which need it. */
    Schedule plan(OpRequest r, HostGroups hosts) {
        ScheduleBuilder b = new ScheduleBuilder(r, label);
        steps.build(b, r, hosts);
        return b.build();
    }
}
