package dev.jccl.plan;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * One collective, planned for every rank with one algorithm and simulated over fresh memories, then checked against
 * {@link Reference}: RECV holds the result, SEND is untouched out of place, and a Reduce leaves non-root ranks' buffers
 * alone.
 */
record OperationRun(
        Collective collective,
        int size,
        int count,
        long chunk,
        ReduceOp op,
        int root,
        boolean inPlace,
        Tuner.Algorithm algorithm) {

    /** The default algorithm: the ring (chain, pairwise) schedule. */
    OperationRun(Collective collective, int size, int count, long chunk, ReduceOp op, int root, boolean inPlace) {
        this(collective, size, count, chunk, op, root, inPlace, Tuner.Algorithm.RING);
    }

    /**
     * What the runtime tells the planner: SEND and RECV are the same memory. In place, an AllGather's SEND is only a
     * block of RECV and a ReduceScatter's RECV a block of SEND, which the runtime does not call the same memory.
     */
    boolean sameMemory() {
        return inPlace && collective != Collective.ALL_GATHER && collective != Collective.REDUCE_SCATTER;
    }

    /** Length of SEND and of RECV, in elements, per the API's buffer rules. */
    int sendLength() {
        return collective == Collective.REDUCE_SCATTER || collective == Collective.ALL_TO_ALL ? size * count : count;
    }

    int recvLength() {
        return collective == Collective.ALL_GATHER || collective == Collective.ALL_TO_ALL ? size * count : count;
    }

    List<Schedule> plan() {
        return plan(null);
    }

    /** Every rank's schedule, planned as the runtime would for ranks on {@code hosts} (null: not known). */
    List<Schedule> plan(HostGroups hosts) {
        List<Schedule> schedules = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            schedules.add(Planner.plan(
                    new OpRequest(collective, rank, size, count, op, root, -1, sameMemory(), chunk, algorithm), hosts));
        }
        return schedules;
    }

    void check() {
        check(plan());
    }

    /** Checks the given schedules (index = rank) as if the planner had made them for this operation. */
    void check(List<Schedule> schedules) {
        Random random = new Random(toString().hashCode());
        long[][] inputs = new long[size][sendLength()];
        List<RankMemory> memories = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            long scratch = schedules.get(rank).scratchCount();
            // In place per the API: AllGather's SEND is RECV's block r, ReduceScatter's RECV is SEND's block r.
            long inner = collective == Collective.ALL_GATHER || collective == Collective.REDUCE_SCATTER
                    ? (long) rank * count
                    : 0;
            RankMemory m = inPlace
                    ? RankMemory.overlapping(sendLength(), recvLength(), inner, scratch, random)
                    : RankMemory.separate(sendLength(), recvLength(), scratch, random);
            for (int i = 0; i < inputs[rank].length; i++) {
                inputs[rank][i] = random.nextLong();
            }
            m.write(BufferRole.SEND, inputs[rank]);
            memories.add(m);
        }
        List<long[]> recvBefore =
                memories.stream().map(m -> m.read(BufferRole.RECV)).toList();

        boolean[] wroteRecv;
        try {
            wroteRecv = Simulator.run(schedules, memories, op);
        } catch (AssertionError e) {
            throw new AssertionError(this + ": " + e.getMessage() + "\n" + describe(schedules), e);
        }

        for (int rank = 0; rank < size; rank++) {
            RankMemory m = memories.get(rank);
            long[] expected = Reference.recv(collective, op, root, inputs, count, rank);
            if (expected == null) {
                if (wroteRecv[rank]) {
                    throw new AssertionError(this + ": rank " + rank + " is not the root but its schedule writes RECV\n"
                            + describe(schedules));
                }
                expected = recvBefore.get(rank);
            }
            assertSame("RECV", expected, m.read(BufferRole.RECV), rank, schedules);
            if (!inPlace) {
                assertSame("SEND", inputs[rank], m.read(BufferRole.SEND), rank, schedules);
            }
        }
    }

    private void assertSame(String what, long[] expected, long[] actual, int rank, List<Schedule> schedules) {
        int i = Arrays.mismatch(expected, actual);
        if (i >= 0) {
            throw new AssertionError(this + ": rank " + rank + " " + what + "[" + i + "] is " + actual[i]
                    + ", expected " + expected[i] + "\n" + describe(schedules));
        }
    }

    /** All ranks' schedules, cut short: enough to see the shape of a failure. */
    static String describe(List<Schedule> schedules) {
        StringBuilder b = new StringBuilder();
        for (Schedule s : schedules) {
            String text = Planner.describe(s);
            b.append(text.length() > 3000 ? text.substring(0, 3000) + "  …\n" : text);
        }
        return b.toString();
    }
}
