package dev.jccl.plan;

/**
 * The operations a schedule can describe; names as NCCL prints them. Ordinals go on the wire (frame headers), so new
 * operations are appended, never inserted.
 */
public enum Collective {
    ALL_REDUCE("AllReduce"),
    BROADCAST("Broadcast"),
    REDUCE("Reduce"),
    ALL_GATHER("AllGather"),
    REDUCE_SCATTER("ReduceScatter"),
    ALL_TO_ALL("AllToAll"),
    SEND("Send"),
    RECV("Recv"),
    /** A Send and a Recv that progress together; on the wire each half is a plain SEND frame. */
    SEND_RECV("SendRecv");

    private final String displayName;

    Collective(String displayName) {
        this.displayName = displayName;
    }

    public String displayName() {
        return displayName;
    }

    /** Send, Recv and SendRecv: between two ranks, numbered per pair, not among the collectives. */
    public boolean isPointToPoint() {
        return this == SEND || this == RECV || this == SEND_RECV;
    }
}
