package dev.jccl.runtime;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * One rank's answer to "where are you?", as the control channel carries it.
 *
 * @param sequence the collective it is in ({@code -1} when idle or in a point-to-point operation)
 * @param descriptor that operation's signature ({@link OpContext#descriptor()}), compared across ranks
 * @param description that operation in words, or empty when idle
 * @param elapsedNanos how long it has been in it
 * @param collectivesCompleted how many collectives it has finished (the next it will start is this number)
 * @param failure why it failed, as its own error says, or empty
 */
record RankStatus(
        int rank,
        long sequence,
        long descriptor,
        long count,
        String description,
        long elapsedNanos,
        long collectivesCompleted,
        String failure) {

    static RankStatus idle(int rank, long collectivesCompleted, String failure) {
        return new RankStatus(rank, -1, 0, 0, "", 0, collectivesCompleted, failure);
    }

    boolean inOperation() {
        return !description.isEmpty();
    }

    boolean inCollective() {
        return sequence >= 0;
    }

    /** Where it stands in the collective order: the collective it is in, else the next it would start. */
    long position() {
        return inCollective() ? sequence : collectivesCompleted;
    }

    void write(DataOutputStream out) throws IOException {
        out.writeInt(rank);
        out.writeLong(sequence);
        out.writeLong(descriptor);
        out.writeLong(count);
        out.writeUTF(clip(description));
        out.writeLong(elapsedNanos);
        out.writeLong(collectivesCompleted);
        out.writeUTF(clip(failure));
    }

    static RankStatus read(DataInputStream in) throws IOException {
        return new RankStatus(
                in.readInt(),
                in.readLong(),
                in.readLong(),
                in.readLong(),
                in.readUTF(),
                in.readLong(),
                in.readLong(),
                in.readUTF());
    }

    /** writeUTF refuses more than 64 KiB; a failure message is never that useful. */
    private static String clip(String s) {
        return s.length() > 4000 ? s.substring(0, 4000) + "…" : s;
    }
}
