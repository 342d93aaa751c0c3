package dev.jccl.plan;

import dev.jccl.ReduceOp;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the schedules of all ranks of one operation together, in memory, step by step, and fails with an
 * {@link AssertionError} that shows the offending steps as soon as the planner's contract is broken:
 *
 * <ul>
 *   <li>every Send of rank s in step k meets a Receive from s in the peer's step k, in list order per (sender,
 *       receiver) pair, with the same count; nothing is left unmatched;
 *   <li>no transfer is empty or longer than chunkCount; every region fits its buffer (SCRATCH is {@code scratchCount}
 *       long); nothing writes SEND;
 *   <li>a LocalReduce's output is one of its inputs exactly or disjoint from both;
 *   <li>within a step, since the runtime runs transfers concurrently, no memory written by a receive is touched by
 *       another transfer of the rank — except a combine reading exactly the memory it writes (what the reduce kernels
 *       allow); a LocalCopy's ends are the same memory or disjoint;
 *   <li>in a {@link Schedule.Pacing#PER_DIRECTION} schedule, whose sends may run ahead of its receives and local
 *       actions, no Send reads memory that any Receive writes, and a local action that writes memory a Send reads comes
 *       in a later step than that Send.
 * </ul>
 *
 * Elements are longs; combining uses the op with Java's wrapping arithmetic, AVG adds and {@link Action.DivideBySize}
 * truncates, as {@link ReduceOp} defines for integers.
 */
final class Simulator {
    private final List<Schedule> schedules;
    private final List<RankMemory> memories;
    private final ReduceOp op;
    private final int size;
    private final boolean[] wroteRecv;

    private Simulator(List<Schedule> schedules, List<RankMemory> memories, ReduceOp op) {
        this.schedules = schedules;
        this.memories = memories;
        this.op = op;
        this.size = schedules.size();
        this.wroteRecv = new boolean[size];
    }

    /** Runs the schedules (index = rank) over the memories; returns which ranks' actions wrote RECV. */
    static boolean[] run(List<Schedule> schedules, List<RankMemory> memories, ReduceOp op) {
        if (schedules.size() != memories.size()) {
            throw new IllegalArgumentException("one memory per schedule");
        }
        Simulator s = new Simulator(schedules, memories, op);
        s.run();
        return s.wroteRecv;
    }

    private void run() {
        for (int rank = 0; rank < size; rank++) {
            RankMemory m = memories.get(rank);
            if (m.length(BufferRole.SCRATCH) < schedules.get(rank).scratchCount()) {
                throw new IllegalArgumentException("rank " + rank + " memory lacks the schedule's scratch");
            }
        }
        for (int rank = 0; rank < size; rank++) {
            if (schedules.get(rank).pacing() == Schedule.Pacing.PER_DIRECTION) {
                checkDirectionsApart(rank);
            }
        }
        int steps = schedules.stream().mapToInt(s -> s.steps().size()).max().orElse(0);
        for (int k = 0; k < steps; k++) {
            for (int rank = 0; rank < size; rank++) {
                for (Action a : actions(rank, k)) {
                    switch (a) {
                        case Action.LocalCopy c -> copy(rank, k, c);
                        case Action.LocalReduce x -> localReduce(rank, k, x);
                        case Action.DivideBySize d -> divide(rank, k, d);
                        default -> {}
                    }
                }
            }
            for (int rank = 0; rank < size; rank++) {
                checkTransfers(rank, k);
            }
            deliver(k);
        }
    }

    /** The hazards that per-direction pacing adds to lockstep's; see the class comment. */
    private void checkDirectionsApart(int rank) {
        RankMemory m = memories.get(rank);
        List<Step> steps = schedules.get(rank).steps();
        for (int j = 0; j < steps.size(); j++) {
            for (Action a : steps.get(j).actions()) {
                if (!(a instanceof Action.Send send)) {
                    continue;
                }
                int at = m.address(send.from());
                long n = send.from().count();
                for (int i = 0; i < steps.size(); i++) {
                    for (Action b : steps.get(i).actions()) {
                        Region written = switch (b) {
                            case Action.Receive v -> v.into();
                            case Action.LocalCopy c -> i <= j ? c.to() : null;
                            case Action.LocalReduce x -> i <= j ? x.into() : null;
                            case Action.DivideBySize d -> i <= j ? d.region() : null;
                            case Action.Send x -> null;
                        };
                        if (written != null && overlaps(at, n, m.address(written), written.count())) {
                            fail(
                                    rank,
                                    i,
                                    "per-direction pacing lets the send of step " + j + " ["
                                            + ScheduleText.action(send, request(rank))
                                            + "] run ahead of, or alongside, [" + ScheduleText.action(b, request(rank))
                                            + "] in step " + i
                                            + ", which writes the memory it reads");
                        }
                    }
                }
            }
        }
    }

    private List<Action> actions(int rank, int step) {
        List<Step> steps = schedules.get(rank).steps();
        return step < steps.size() ? steps.get(step).actions() : List.of();
    }

    private void copy(int rank, int step, Action.LocalCopy c) {
        RankMemory m = memories.get(rank);
        checkWritable(rank, step, c.to());
        int from = m.address(c.from());
        int to = m.address(c.to());
        int n = Math.toIntExact(c.from().count());
        if (from != to && overlaps(from, n, to, n)) {
            fail(rank, step, "copy between partly overlapping memory: " + ScheduleText.action(c, request(rank)));
        }
        System.arraycopy(m.cells, from, m.cells, to, n);
    }

    /**
     * {@code into = a op b}; {@code into} may be {@code a} or {@code b} exactly, as the kernels allow, but not partly
     * overlap them.
     */
    private void localReduce(int rank, int step, Action.LocalReduce x) {
        RankMemory m = memories.get(rank);
        checkWritable(rank, step, x.into());
        int n = Math.toIntExact(x.into().count());
        int to = m.address(x.into());
        for (Region in : new Region[] {x.a(), x.b()}) {
            int from = m.address(in);
            if (from != to && overlaps(from, n, to, n)) {
                fail(rank, step, "reduce between partly overlapping memory: " + ScheduleText.action(x, request(rank)));
            }
        }
        long[] a = read(rank, x.a());
        long[] b = read(rank, x.b());
        for (int i = 0; i < n; i++) m.cells[to + i] = combine(a[i], b[i]);
    }

    private void divide(int rank, int step, Action.DivideBySize d) {
        RankMemory m = memories.get(rank);
        checkWritable(rank, step, d.region());
        if (op != ReduceOp.AVG) {
            fail(rank, step, "DivideBySize in a " + op + " operation");
        }
        int at = m.address(d.region());
        for (int i = 0; i < d.region().count(); i++) {
            m.cells[at + i] /= size;
        }
    }

    private void checkTransfers(int rank, int step) {
        RankMemory m = memories.get(rank);
        long chunk = request(rank).chunkCount();
        List<int[]> writes = new ArrayList<>(); // {address, count}
        List<int[]> reads = new ArrayList<>(); // {address, count, index of the write it may equal or -1}
        for (Action a : actions(rank, step)) {
            Region moved = switch (a) {
                case Action.Send s -> s.from();
                case Action.Receive v -> v.into();
                default -> null;
            };
            if (moved == null) {
                continue;
            }
            int peer = a instanceof Action.Send s ? s.peer() : ((Action.Receive) a).peer();
            if (peer < 0 || peer >= size || peer == rank) {
                fail(rank, step, "transfer with peer " + peer + ": " + ScheduleText.action(a, request(rank)));
            }
            if (moved.count() == 0 || moved.count() > chunk) {
                fail(
                        rank,
                        step,
                        "transfer of " + moved.count() + " elements (chunkCount " + chunk + "): "
                                + ScheduleText.action(a, request(rank)));
            }
            int n = Math.toIntExact(moved.count());
            if (a instanceof Action.Receive v) {
                checkWritable(rank, step, v.into());
                writes.add(new int[] {m.address(v.into()), n});
                if (v.combineWith() != null) {
                    reads.add(new int[] {m.address(v.combineWith()), n, writes.size() - 1});
                }
            } else {
                reads.add(new int[] {m.address(moved), n, -1});
            }
        }
        for (int i = 0; i < writes.size(); i++) {
            for (int j = i + 1; j < writes.size(); j++) {
                if (overlaps(writes.get(i)[0], writes.get(i)[1], writes.get(j)[0], writes.get(j)[1])) {
                    fail(rank, step, "two receives write the same memory");
                }
            }
            for (int[] read : reads) {
                int[] w = writes.get(i);
                boolean sameElements = read[2] == i && read[0] == w[0];
                if (!sameElements && overlaps(read[0], read[1], w[0], w[1])) {
                    fail(rank, step, "a receive writes memory that another transfer of the step reads");
                }
            }
        }
    }

    /** Matches every pair's sends and receives of step k, then applies all receives at once. */
    private void deliver(int step) {
        List<Runnable> writes = new ArrayList<>();
        for (int to = 0; to < size; to++) {
            for (int from = 0; from < size; from++) {
                if (from == to) {
                    continue;
                }
                List<Action.Send> sends = new ArrayList<>();
                for (Action a : actions(from, step)) {
                    if (a instanceof Action.Send s && s.peer() == to) sends.add(s);
                }
                List<Action.Receive> receives = new ArrayList<>();
                for (Action a : actions(to, step)) {
                    if (a instanceof Action.Receive v && v.peer() == from) receives.add(v);
                }
                if (sends.size() != receives.size()) {
                    fail(
                            to,
                            step,
                            "rank " + from + " sends " + sends.size() + " transfers to rank " + to
                                    + " in this step, which receives " + receives.size() + " from it\n"
                                    + stepText(from, step));
                }
                for (int i = 0; i < sends.size(); i++) {
                    Action.Send s = sends.get(i);
                    Action.Receive v = receives.get(i);
                    if (s.from().count() != v.into().count()) {
                        fail(
                                to,
                                step,
                                "transfer " + i + " from rank " + from + ": sent "
                                        + s.from().count() + " elements, received "
                                        + v.into().count() + "\n" + stepText(from, step));
                    }
                    writes.add(receive(to, v, read(from, s.from())));
                }
            }
        }
        writes.forEach(Runnable::run);
    }

    /** Reads a receive's inputs now, returns the write to do once every rank's reads are done. */
    private Runnable receive(int rank, Action.Receive v, long[] incoming) {
        long[] result = incoming;
        if (v.combineWith() != null) {
            long[] mine = read(rank, v.combineWith());
            result = new long[incoming.length];
            for (int i = 0; i < result.length; i++) {
                result[i] = combine(mine[i], incoming[i]);
            }
        }
        long[] values = result;
        int at = memories.get(rank).address(v.into());
        return () -> System.arraycopy(values, 0, memories.get(rank).cells, at, values.length);
    }

    private long[] read(int rank, Region r) {
        RankMemory m = memories.get(rank);
        int at = m.address(r);
        long[] out = new long[Math.toIntExact(r.count())];
        System.arraycopy(m.cells, at, out, 0, out.length);
        return out;
    }

    private long combine(long a, long b) {
        if (op == null) {
            throw new AssertionError("a combining receive in an operation without a reduce op");
        }
        return switch (op) {
            case SUM, AVG -> a + b;
            case PROD -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
    }

    private void checkWritable(int rank, int step, Region r) {
        if (r.buffer() == BufferRole.SEND) {
            fail(rank, step, "writes SEND, which is read only: " + ScheduleText.region(r));
        }
        if (r.buffer() == BufferRole.RECV) {
            wroteRecv[rank] = true;
        }
    }

    private static boolean overlaps(long a, long aCount, long b, long bCount) {
        return aCount > 0 && bCount > 0 && a < b + bCount && b < a + aCount;
    }

    private OpRequest request(int rank) {
        return schedules.get(rank).request();
    }

    private String stepText(int rank, int step) {
        List<Action> actions = actions(rank, step);
        StringBuilder b = new StringBuilder("  rank " + rank + " step " + step + ":");
        for (Action a : actions) {
            b.append(" [").append(ScheduleText.action(a, request(rank))).append(']');
        }
        return b.toString();
    }

    private void fail(int rank, int step, String what) {
        throw new AssertionError("rank " + rank + ", step " + step + ": " + what + "\n" + stepText(rank, step)
                + "\n  request: " + request(rank));
    }
}
