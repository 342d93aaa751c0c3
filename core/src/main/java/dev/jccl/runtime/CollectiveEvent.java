package dev.jccl.runtime;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One operation as a JDK Flight Recorder event, so that JDK Mission Control and {@code jfr print --events
 * dev.jccl.Collective} show a job's communication beside its GC pauses and allocation. Created only while a recording
 * enables it ({@link #enabled()}), so an operation costs nothing more without one.
 */
@Name("dev.jccl.Collective")
@Label("Jccl Operation")
@Category({"Jccl"})
@Description("A collective or point-to-point operation of a Jccl communicator, from start to result in place")
@StackTrace(false)
final class CollectiveEvent extends jdk.jfr.Event {
    private static final EventType TYPE = EventType.getEventType(CollectiveEvent.class);

    @Label("Operation")
    String operation;

    @Label("Sequence")
    @Description("The operation's number among the communicator's collectives, or among a pair's messages")
    long sequence;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Rank")
    int rank;

    @Label("Ranks")
    int size;

    @Label("Peer")
    @Description("Root of a Broadcast or Reduce, peer of a Send or Recv; -1 if none")
    int peer;

    @Label("Algorithm")
    String algorithm;

    @Label("Transport")
    String transport;

    @Label("Outcome")
    String outcome;

    static boolean enabled() {
        return TYPE.isEnabled();
    }
}
