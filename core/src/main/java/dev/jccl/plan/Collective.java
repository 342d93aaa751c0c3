package dev.jccl.plan;

/** The operations a schedule can describe; names as NCCL prints them. */
public enum Collective {
    ALL_REDUCE("AllReduce"),
    BROADCAST("Broadcast"),
    REDUCE("Reduce"),
    ALL_GATHER("AllGather"),
    REDUCE_SCATTER("ReduceScatter"),
    ALL_TO_ALL("AllToAll"),
    SEND("Send"),
    RECV("Recv");

    private final String displayName;

    Collective(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }
}
