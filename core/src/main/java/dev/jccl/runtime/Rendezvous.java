package dev.jccl.runtime;

import dev.jccl.JcclException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * How ranks agree on who belongs to a new communicator (a {@code split}, a {@code shrink}): every member sends its
 * contribution (ports, color, key, what it believes failed) to one coordinating rank over the control channel, and the
 * coordinator hands every member the same table, so all of them build the same communicator, in the same order. It uses
 * the control channel, not the data path, because after a failure the data path is what is broken.
 *
 * <p>A round is settled once: when every expected rank has joined, or at its deadline. A strict round (split) then
 * fails if anyone is missing; a lenient one (shrink) goes on with those that came, and a rank that comes later is told
 * it was left out. Every wait is bounded, on both sides of the wire.
 */
final class Rendezvous {
    /** The members' contributions, by rank in the parent communicator, lowest first. */
    record Table(TreeMap<Integer, byte[]> contributions) {
        List<Integer> members() {
            return List.copyOf(contributions.keySet());
        }

        void write(DataOutputStream out) throws IOException {
            out.writeInt(contributions.size());
            for (Map.Entry<Integer, byte[]> e : contributions.entrySet()) {
                out.writeInt(e.getKey());
                out.writeInt(e.getValue().length);
                out.write(e.getValue());
            }
        }

        static Table read(DataInputStream in) throws IOException {
            int n = in.readInt();
            if (n < 0 || n > 1 << 20) throw new IOException("malformed membership table (" + n + " members)");
            TreeMap<Integer, byte[]> m = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                int rank = in.readInt();
                m.put(rank, readBytes(in));
            }
            return new Table(m);
        }
    }

    /** Checks the contributions once all are in; returns why they cannot form a communicator, or null. */
    interface Validator {
        String problem(Table table);
    }

    private static final class Round {
        final TreeMap<Integer, byte[]> joined = new TreeMap<>();
        Table result;
        String failure;
        /** The coordinator's deadline, once it has called; until then 0. */
        long settleBy;

        boolean settled() {
            return result != null || failure != null;
        }
    }

    /** Time the coordinator may take past its deadline to check and settle the round. */
    private static final long SETTLE_SLACK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<Long, Round> rounds = new HashMap<>();

    /**
     * On the coordinator: adds this rank's own contribution, waits until every rank in {@code expected} has joined or
     * the deadline passes, settles the round and returns the table every member gets.
     *
     * @param strict fail (on every member) if an expected rank has not joined by the deadline, instead of going on
     *     without it
     */
    synchronized Table coordinate(
            long id,
            int self,
            byte[] mine,
            Set<Integer> expected,
            long deadlineNanos,
            boolean strict,
            String what,
            Validator validator) {
        Round r = rounds.computeIfAbsent(id, k -> new Round());
        r.joined.put(self, mine);
        r.settleBy = deadlineNanos;
        notifyAll();
        while (!r.joined.keySet().containsAll(expected)) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) break;
            waitNanos(left, self);
        }
        List<Integer> missing = new ArrayList<>();
        for (int e : expected) {
            if (!r.joined.containsKey(e)) missing.add(e);
        }
        Table t = new Table(new TreeMap<>(r.joined));
        String problem = validator.problem(t);
        if (problem != null) {
            r.failure = problem;
        } else if (strict && !missing.isEmpty()) {
            r.failure = what + ": rank(s) " + missing + " did not take part within the deadline (JCCL_TIMEOUT); every"
                    + " rank of the communicator must call it";
        } else {
            r.result = t;
        }
        notifyAll();
        if (r.failure != null) throw new JcclException("rank " + self + ": " + r.failure);
        return r.result;
    }

    /**
     * On the coordinator, for a member that asked over the control channel: records its contribution and waits (at most
     * {@code maxWaitNanos}, for the coordinator's own call) until the round is settled.
     *
     * @return the table, or throws with the text the member will see
     */
    synchronized Table joined(long id, int member, byte[] contribution, long maxWaitNanos) {
        Round r = rounds.computeIfAbsent(id, k -> new Round());
        if (r.settled() && !r.joined.containsKey(member)) {
            throw new JcclException("rank " + member + " joined after the membership was settled without it (it came"
                    + " after the deadline); it is not a member of the new communicator");
        }
        r.joined.put(member, contribution);
        notifyAll();
        long coordinatorBy = System.nanoTime() + maxWaitNanos;
        while (!r.settled()) {
            long left = (r.settleBy == 0 ? coordinatorBy : r.settleBy + SETTLE_SLACK_NANOS) - System.nanoTime();
            if (left <= 0) {
                throw new JcclException("the coordinating rank did not take part within "
                        + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos) + " ms: it has not called the same operation");
            }
            waitNanos(left, member);
        }
        if (r.failure != null) throw new JcclException(r.failure);
        return r.result;
    }

    private void waitNanos(long nanos, int waiter) {
        try {
            TimeUnit.NANOSECONDS.timedWait(this, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("rank " + waiter + ": interrupted while the ranks agreed on membership", e);
        }
    }

    static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 24) throw new IOException("malformed contribution of " + n + " bytes");
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
