package dev.jccl.conformance;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import dev.jccl.conformance.GuardedBuffers.Mem;
import dev.jccl.conformance.TestData.Dist;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * The collective conformance battery, run by every rank of one communicator through the public API only. Every rank
 * makes the same calls in the same order (the case list depends on the communicator's size alone), checks its own
 * results against {@link Reference}, and returns what went wrong; an empty list is a pass.
 *
 * <h2>What each case checks</h2>
 *
 * <ul>
 *   <li>the counted region of every written buffer, element by element, bit-exact (tolerance only for the gaussian SUM
 *       cases);
 *   <li>that buffers a rank must not write (a non-root's Reduce recv) still hold the sentinel, and that send buffers
 *       still hold their input;
 *   <li>that the {@link GuardedBuffers#GUARD} bytes after every buffer are untouched.
 * </ul>
 *
 * A call that throws ends the battery: this rank records it and aborts the communicator, so that peers fail at once
 * instead of waiting on it; later cases could not stay in step anyway.
 *
 * <h2>Matrix ({@link Plan#FULL}): about 3,500 calls per rank</h2>
 *
 * <pre>
 * collective     types × ops                           counts                        place    memory       roots
 * allReduce      10 × 5                                0 1 2 7 13 97 1021            oop+in   heap+native
 *                10 × SUM; FLOAT32, INT8 × the other 4 65537 and 3 MiB + 3 (odd)     both     alternating
 *                FLOAT16 BFLOAT16 FLOAT32 FLOAT64 SUM  gaussian, 1021 and 65537      both     both
 * reduce         as allReduce                          as allReduce                  both     alternating  every root
 *                                                                                                    per type × op
 * reduceScatter  as allReduce                          per-rank block; big ≈ 3 MiB / size
 * broadcast      10 types (random bit patterns)        small counts                  both     alternating  every root
 *                                                                                                           × type
 *                10                                    65537, 3 MiB + 3              both     alternating  rotating
 * allGather      10                                    small, 65537, ≈ 3 MiB / size  both     alternating
 * allToAll       10                                    small, 65537, ≈ 3 MiB / size  oop only (in place is refused)
 * send/recv      10, ring r→r+1, 2 messages per pair   small, 65537; 3 MiB + 3 for   oop      alternating  (size ≥ 2)
 *                                                      one type of each width
 * sendRecv       10; ring, reversed ring, pairs (r↔r^1), small × 2 (ring + the next    both     alternating
 *                shift by 2, self (every rank is one   pattern); 65537 × 2; 3 MiB + 3
 *                of these patterns' permutations)      for one type of each width
 * sendRecv mixed 4; even ranks sendRecv, odd ranks     0 97 65537, 3 MiB + 3         both     alternating  (size ≥ 2)
 *                recv+send or send+recv (ring, pairs)
 * arrays         every overload × every type it carries, int[]/long[] as FLOAT32/FLOAT64 too; 0 13 97 1021;
 *                sendRecv(array, next, array, prev) in a ring
 * async          every async collective + barrierAsync + p2p + sendRecv issued back to back, then joined and checked,
 *                including completion order; a blocking call between async ones; 32 queued allReduces;
 *                confined segments refused (segments every rank uses)
 * split          (rank % 2, size - rank): size, rank order, allReduce, allGather; SPLIT_NOCOLOR; parent after
 * barrier        3 rounds: every rank's exit is after every rank's entry
 * </pre>
 *
 * {@link Plan#PROCESS} (ranks in separate JVMs) keeps every dimension with fewer small counts and the several-MiB count
 * for SUM only: about 2,350 calls per rank.
 */
public final class ConformanceBody {

    /** How much of the matrix to run; every dimension is in each plan, only case counts differ. */
    public record Plan(long[] smallCounts, long mediumCount, long bigBytes, boolean bigForEveryOp, int queuedAsync) {
        /** The conformance suite proper. */
        public static final Plan FULL = new Plan(new long[] {0, 1, 2, 7, 13, 97, 1021}, 65537, 3L << 20, true, 32);
        /**
         * For ranks in separate JVMs, where every rank warms up its own JIT and regenerates every other rank's input on
         * its own core: the same dimensions, four of the seven small counts (0, 1, 13, 1021), and the several-MiB count
         * with SUM only (the other ops at 65537). Threads-as-ranks run {@link #FULL}; the transport between ranks is
         * the same.
         */
        public static final Plan PROCESS = new Plan(new long[] {0, 1, 13, 1021}, 65537, 3L << 20, false, 32);
        /** The same dimensions with fewer and smaller cases: for the suite's own self-test. */
        public static final Plan QUICK = new Plan(new long[] {0, 1, 7, 97}, 1021, 64L << 10, true, 8);
    }

    private static final int MAX_RECORDED = 60;
    private static final DataType[] TYPES = DataType.values();
    private static final ReduceOp[] OPS = ReduceOp.values();

    private final Communicator comm;
    private final Plan plan;
    private final int rank;
    private final int size;
    private final Duration waitLimit;
    private final List<String> failures = new ArrayList<>();
    /** A result's elements, read a chunk at a time for the checks. */
    private final long[] actualChunk = new long[4096];

    private int unrecorded;
    private long caseNo;

    /** Thrown to end the battery after a call failed and the communicator was aborted. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super(null, null, false, false);
        }
    }

    private ConformanceBody(Communicator comm, Plan plan) {
        this.comm = comm;
        this.plan = plan;
        this.rank = comm.rank();
        this.size = comm.size();
        this.waitLimit = comm.config().timeout().plusSeconds(30);
    }

    /** Runs {@link Plan#FULL} on this rank; returns failure descriptions, empty when all passed. */
    public static List<String> run(Communicator comm) {
        return run(comm, Plan.FULL);
    }

    public static List<String> run(Communicator comm, Plan plan) {
        return run(comm, plan, line -> {});
    }

    /** As {@link #run(Communicator, Plan)}, telling {@code progress} how long each section took. */
    public static List<String> run(Communicator comm, Plan plan, Consumer<String> progress) {
        ConformanceBody body = new ConformanceBody(comm, plan);
        try {
            body.all(progress);
        } catch (Stop stopped) {
            // recorded already
        }
        List<String> out = new ArrayList<>(body.failures);
        if (body.unrecorded > 0) out.add("rank " + body.rank + ": … and " + body.unrecorded + " more failures");
        return out;
    }

    private void all(Consumer<String> progress) {
        section(progress, "allReduce", this::allReduceCases);
        section(progress, "reduce", this::reduceCases);
        section(progress, "reduceScatter", this::reduceScatterCases);
        section(progress, "broadcast", this::broadcastCases);
        section(progress, "allGather", this::allGatherCases);
        section(progress, "allToAll", this::allToAllCases);
        section(progress, "send/recv", this::sendRecvCases);
        sendRecvSections(progress);
        section(progress, "arrays", this::arrayCases);
        section(progress, "async", this::asyncCases);
        section(progress, "async refusals", this::asyncRefusesConfinedSegments);
        section(progress, "split", this::splitCases);
        section(progress, "barrier", this::barrierCases);
    }

    private void sendRecvSections(Consumer<String> progress) {
        section(progress, "sendRecv", this::exchangeCases);
        section(progress, "sendRecv mixed", this::mixedExchangeCases);
    }

    /**
     * Only the sendRecv sections of the battery (the call patterns, and sendRecv against plain send/recv), for running
     * them under other settings, such as small chunks.
     */
    public static List<String> runSendRecv(Communicator comm, Plan plan, Consumer<String> progress) {
        ConformanceBody body = new ConformanceBody(comm, plan);
        try {
            body.sendRecvSections(progress);
        } catch (Stop stopped) {
            // recorded already
        }
        List<String> out = new ArrayList<>(body.failures);
        if (body.unrecorded > 0) out.add("rank " + body.rank + ": … and " + body.unrecorded + " more failures");
        return out;
    }

    private void section(Consumer<String> progress, String name, Runnable cases) {
        long start = System.nanoTime();
        long firstCase = caseNo;
        int failedBefore = failures.size() + unrecorded;
        cases.run();
        progress.accept(String.format(
                "rank %d/%d: %-14s %5d cases %6.1f s%s",
                rank,
                size,
                name,
                caseNo - firstCase,
                (System.nanoTime() - start) / 1e9,
                failures.size() + unrecorded > failedBefore ? "  FAILURES" : ""));
    }

    // ------------------------------------------------------------------ cases and failures

    /** One call's parameters; its text is the failure's prefix. */
    record Case(
            String collective,
            DataType type,
            ReduceOp op,
            long count,
            int root,
            boolean inPlace,
            String mem,
            long seed) {
        @Override
        public String toString() {
            return collective + " " + type + (op == null ? "" : " " + op) + " count=" + count
                    + (root >= 0 ? " root=" + root : "") + (inPlace ? " in-place" : " out-of-place")
                    + " " + mem + " seed=0x" + Long.toHexString(seed);
        }
    }

    private long nextSeed() {
        return TestData.mix(0x5EEDL + caseNo++);
    }

    private void fail(Object where, String what) {
        if (failures.size() < MAX_RECORDED) {
            failures.add("rank " + rank + "/" + size + ": " + where + ": " + what);
        } else {
            unrecorded++;
        }
    }

    /** Runs a communicator call; if it throws, records it, aborts and ends the battery. */
    private void call(Object where, Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            failAndStop(where, "threw " + describe(t));
        }
    }

    private <T> T callGet(Object where, Supplier<T> r) {
        try {
            return r.get();
        } catch (Throwable t) {
            failAndStop(where, "threw " + describe(t));
            throw new AssertionError("unreachable");
        }
    }

    private void failAndStop(Object where, String what) {
        fail(where, what + " — aborting the communicator and ending the battery on this rank");
        try {
            comm.abort();
        } catch (Throwable ignored) {
            // abort is best effort here; the failure is recorded
        }
        throw new Stop();
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(t.toString());
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(6, st.length); i++) {
            sb.append("\n        at ").append(st[i]);
        }
        Throwable cause = t.getCause();
        if (cause != null && cause != t) sb.append("\n    caused by ").append(describe(cause));
        return sb.toString();
    }

    private interface ArenaBody {
        void run(Arena arena);
    }

    /** HEAP needs no arena; NATIVE runs in a confined arena of the calling thread; SHARED in a shared one. */
    private static void withArena(Mem mem, ArenaBody body) {
        switch (mem) {
            case HEAP -> body.run(null);
            case NATIVE -> {
                try (Arena a = Arena.ofConfined()) {
                    body.run(a);
                }
            }
            case SHARED -> {
                try (Arena a = Arena.ofShared()) {
                    body.run(a);
                }
            }
        }
    }

    private static Mem alternate(long i) {
        return (i & 1) == 0 ? Mem.HEAP : Mem.NATIVE;
    }

    private long bigCount(DataType t) {
        return plan.bigBytes() / t.byteSize() + 3; // odd for every element size
    }

    private long bigBlockCount(DataType t) {
        return (plan.bigBytes() / t.byteSize() / size) | 1;
    }

    // ------------------------------------------------------------------ checks

    private void expectBits(
            Case c, String what, MemorySegment seg, DataType t, long count, LongUnaryOperator expected) {
        long wrong = 0;
        long first = -1;
        long firstExpected = 0;
        long firstActual = 0;
        long[] actual = actualChunk;
        for (long from = 0; from < count; from += actual.length) {
            int n = (int) Math.min(actual.length, count - from);
            Elements.getAll(seg, t, from, actual, n);
            for (int j = 0; j < n; j++) {
                long e = expected.applyAsLong(from + j);
                long a = actual[j];
                if (a != e) {
                    if (first < 0) {
                        first = from + j;
                        firstExpected = e;
                        firstActual = a;
                    }
                    wrong++;
                }
            }
        }
        if (wrong > 0) {
            fail(
                    c,
                    what + ": " + wrong + " of " + count + " elements wrong, first at index " + first
                            + ": expected " + Elements.describe(t, firstExpected) + ", actual "
                            + Elements.describe(t, firstActual)
                            + (firstActual == sentinelBits(t) ? " (the sentinel: never written)" : ""));
        }
    }

    private static long sentinelBits(DataType t) {
        return 0xA5A5_A5A5_A5A5_A5A5L & Elements.mask(t);
    }

    /** Rank {@code src}'s input elements {@code first..first+count-1} are in {@code seg} at 0... */
    private void expectInput(
            Case c, String what, MemorySegment seg, DataType t, long count, long seed, int src, long first, Dist d) {
        TestData.Source source = new TestData.Source(seed, src, t, d);
        expectBits(c, what, seg, t, count, i -> source.bits(first + i));
    }

    /**
     * Every rank's {@link Dist#BITS} input of case {@code seed}, by rank: for checks that read blocks of all of them.
     */
    private TestData.Source[] everyRanksInput(long seed, DataType t) {
        TestData.Source[] sources = new TestData.Source[size];
        for (int r = 0; r < size; r++) sources[r] = new TestData.Source(seed, r, t, Dist.BITS);
        return sources;
    }

    /** Bytes {@code [from, seg.byteSize())} still hold the sentinel. */
    /**
     * A send the call must only read: it still holds this rank's {@code count} elements of input, and nothing was
     * written past its {@code bytes}.
     */
    private void expectSendUnchanged(
            Case c, MemorySegment send, DataType t, long count, long seed, Dist d, long bytes) {
        expectInput(c, "send (must not change)", send, t, count, seed, rank, 0, d);
        expectGuard(c, "send", send, bytes);
    }

    private void expectGuard(Case c, String what, MemorySegment seg, long from) {
        expectSentinel(c, what + " guard", seg, from, seg.byteSize());
    }

    private void expectSentinel(Case c, String what, MemorySegment seg, long from, long to) {
        long bad = GuardedBuffers.firstNonSentinel(seg, from, to);
        if (bad >= 0) {
            fail(
                    c,
                    what + ": byte " + bad + " was written (0x"
                            + Integer.toHexString(
                                    Byte.toUnsignedInt(seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, bad)))
                            + ", sentinel 0xa5); the region " + from + ".." + to + " must stay untouched");
        }
    }

    /** Exact or gaussian reduction result of element {@code offset + i} in {@code seg} at {@code i}. */
    private void expectReduced(
            Case c, String what, MemorySegment seg, long count, Reference.Reduction red, long offset, Dist d) {
        DataType t = c.type();
        if (d != Dist.GAUSSIAN) {
            expectBits(c, what, seg, t, count, i -> red.expected(offset + i));
            return;
        }
        long wrong = 0;
        String firstBad = null;
        for (long i = 0; i < count; i++) {
            double exact = red.approximateSum(offset + i);
            double tol = red.tolerance(offset + i);
            long bits = Elements.get(seg, t, i);
            double a = Elements.floatValue(t, bits);
            if (!(Math.abs(a - exact) <= tol)) {
                if (firstBad == null) {
                    firstBad = "first at index " + i + ": expected " + exact + " ± " + tol + ", actual "
                            + Elements.describe(t, bits);
                }
                wrong++;
            }
        }
        if (wrong > 0) {
            fail(c, what + ": " + wrong + " of " + count + " elements outside the rounding tolerance, " + firstBad);
        }
    }

    // ------------------------------------------------------------------ AllReduce

    private void allReduceCases() {
        for (DataType t : TYPES) {
            for (ReduceOp op : OPS) {
                int ci = 0;
                for (long count : plan.smallCounts()) {
                    // heap and native alternate along the counts, and swap between the two places
                    allReduce(t, op, count, false, alternate(ci), TestData.exactFor(t, op));
                    allReduce(t, op, count, true, alternate(ci + 1), TestData.exactFor(t, op));
                    ci++;
                }
            }
        }
        for (DataType t : TYPES) {
            allReduce(t, ReduceOp.SUM, plan.mediumCount(), false, Mem.HEAP, TestData.exactFor(t, ReduceOp.SUM));
            allReduce(t, ReduceOp.SUM, plan.mediumCount(), true, Mem.NATIVE, TestData.exactFor(t, ReduceOp.SUM));
            allReduce(t, ReduceOp.SUM, bigCount(t), false, alternate(t.ordinal()), TestData.exactFor(t, ReduceOp.SUM));
        }
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.INT8}) {
            for (ReduceOp op : OPS) {
                if (op == ReduceOp.SUM) continue;
                allReduce(t, op, plan.mediumCount(), false, Mem.NATIVE, TestData.exactFor(t, op));
                allReduce(t, op, plan.mediumCount(), true, Mem.HEAP, TestData.exactFor(t, op));
                if (plan.bigForEveryOp()) {
                    allReduce(
                            t,
                            op,
                            bigCount(t),
                            op.ordinal() % 2 == 0,
                            alternate(op.ordinal()),
                            TestData.exactFor(t, op));
                }
            }
        }
        for (DataType t : floatTypes()) {
            allReduce(t, ReduceOp.SUM, 1021, false, Mem.NATIVE, Dist.GAUSSIAN);
            allReduce(t, ReduceOp.SUM, plan.mediumCount(), true, Mem.HEAP, Dist.GAUSSIAN);
        }
    }

    private static DataType[] floatTypes() {
        return new DataType[] {DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64};
    }

    private void allReduce(DataType t, ReduceOp op, long count, boolean inPlace, Mem mem, Dist d) {
        long seed = nextSeed();
        Case c = new Case(
                "allReduce", t, op, count, -1, inPlace, mem.label + (d == Dist.GAUSSIAN ? " gaussian" : ""), seed);
        long bytes = count * t.byteSize();
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        withArena(mem, arena -> {
            if (inPlace) {
                MemorySegment buf = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(buf, seed, rank, count, t, d);
                call(c, () -> comm.allReduce(buf, buf, count, t, op));
                expectReduced(c, "buffer", buf, count, red, 0, d);
                expectGuard(c, "buffer", buf, bytes);
            } else {
                MemorySegment send = GuardedBuffers.allocate(mem, arena, bytes);
                MemorySegment recv = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(send, seed, rank, count, t, d);
                call(c, () -> comm.allReduce(send, recv, count, t, op));
                expectReduced(c, "recv", recv, count, red, 0, d);
                expectGuard(c, "recv", recv, bytes);
                expectSendUnchanged(c, send, t, count, seed, d, bytes);
            }
        });
    }

    // ------------------------------------------------------------------ Reduce

    private void reduceCases() {
        for (DataType t : TYPES) {
            for (ReduceOp op : OPS) {
                int k = 0;
                for (long count : plan.smallCounts()) {
                    // k walks every root for every type × op (there are more counts × places than ranks)
                    reduce(
                            t,
                            op,
                            count,
                            (k + t.ordinal() + op.ordinal()) % size,
                            false,
                            alternate(k / 2),
                            TestData.exactFor(t, op));
                    k++;
                    reduce(
                            t,
                            op,
                            count,
                            (k + t.ordinal() + op.ordinal()) % size,
                            true,
                            alternate(k / 2 + 1),
                            TestData.exactFor(t, op));
                    k++;
                }
            }
        }
        int r = 0;
        for (DataType t : TYPES) {
            reduce(
                    t,
                    ReduceOp.SUM,
                    plan.mediumCount(),
                    r++ % size,
                    t.ordinal() % 2 == 0,
                    alternate(t.ordinal()),
                    TestData.exactFor(t, ReduceOp.SUM));
            reduce(
                    t,
                    ReduceOp.SUM,
                    bigCount(t),
                    r++ % size,
                    false,
                    alternate(t.ordinal() + 1),
                    TestData.exactFor(t, ReduceOp.SUM));
        }
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.INT8}) {
            for (ReduceOp op : OPS) {
                if (op == ReduceOp.SUM) continue;
                reduce(
                        t,
                        op,
                        plan.mediumCount(),
                        r++ % size,
                        op.ordinal() % 2 == 1,
                        alternate(op.ordinal()),
                        TestData.exactFor(t, op));
                if (plan.bigForEveryOp()) {
                    reduce(
                            t,
                            op,
                            bigCount(t),
                            r++ % size,
                            op.ordinal() % 2 == 0,
                            alternate(op.ordinal() + 1),
                            TestData.exactFor(t, op));
                }
            }
        }
        for (DataType t : floatTypes()) {
            reduce(t, ReduceOp.SUM, 1021, r++ % size, true, Mem.HEAP, Dist.GAUSSIAN);
            reduce(t, ReduceOp.SUM, plan.mediumCount(), r++ % size, false, Mem.NATIVE, Dist.GAUSSIAN);
        }
    }

    private void reduce(DataType t, ReduceOp op, long count, int root, boolean inPlace, Mem mem, Dist d) {
        long seed = nextSeed();
        Case c = new Case(
                "reduce", t, op, count, root, inPlace, mem.label + (d == Dist.GAUSSIAN ? " gaussian" : ""), seed);
        long bytes = count * t.byteSize();
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        withArena(mem, arena -> {
            if (inPlace) {
                MemorySegment buf = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(buf, seed, rank, count, t, d);
                call(c, () -> comm.reduce(buf, buf, count, t, op, root));
                if (rank == root) {
                    expectReduced(c, "buffer at the root", buf, count, red, 0, d);
                } else {
                    expectInput(c, "buffer at a non-root (must not change)", buf, t, count, seed, rank, 0, d);
                }
                expectGuard(c, "buffer", buf, bytes);
            } else {
                MemorySegment send = GuardedBuffers.allocate(mem, arena, bytes);
                MemorySegment recv = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(send, seed, rank, count, t, d);
                call(c, () -> comm.reduce(send, recv, count, t, op, root));
                if (rank == root) {
                    expectReduced(c, "recv at the root", recv, count, red, 0, d);
                    expectGuard(c, "recv", recv, bytes);
                } else {
                    expectSentinel(c, "recv at a non-root (must not be touched)", recv, 0, recv.byteSize());
                }
                expectSendUnchanged(c, send, t, count, seed, d, bytes);
            }
        });
    }

    // ------------------------------------------------------------------ ReduceScatter

    private void reduceScatterCases() {
        for (DataType t : TYPES) {
            for (ReduceOp op : OPS) {
                int ci = 0;
                for (long count : plan.smallCounts()) {
                    reduceScatter(t, op, count, false, alternate(ci + 1), TestData.exactFor(t, op));
                    reduceScatter(t, op, count, true, alternate(ci), TestData.exactFor(t, op));
                    ci++;
                }
            }
        }
        for (DataType t : TYPES) {
            reduceScatter(
                    t,
                    ReduceOp.SUM,
                    plan.mediumCount(),
                    t.ordinal() % 2 == 1,
                    alternate(t.ordinal()),
                    TestData.exactFor(t, ReduceOp.SUM));
            reduceScatter(
                    t,
                    ReduceOp.SUM,
                    bigBlockCount(t),
                    t.ordinal() % 2 == 0,
                    alternate(t.ordinal() + 1),
                    TestData.exactFor(t, ReduceOp.SUM));
        }
        for (DataType t : new DataType[] {DataType.FLOAT32, DataType.INT8}) {
            for (ReduceOp op : OPS) {
                if (op == ReduceOp.SUM) continue;
                reduceScatter(
                        t,
                        op,
                        plan.mediumCount(),
                        op.ordinal() % 2 == 0,
                        alternate(op.ordinal()),
                        TestData.exactFor(t, op));
                if (plan.bigForEveryOp()) {
                    reduceScatter(
                            t,
                            op,
                            bigBlockCount(t),
                            op.ordinal() % 2 == 1,
                            alternate(op.ordinal() + 1),
                            TestData.exactFor(t, op));
                }
            }
        }
        for (DataType t : floatTypes()) {
            reduceScatter(t, ReduceOp.SUM, 1021, false, Mem.HEAP, Dist.GAUSSIAN);
            reduceScatter(t, ReduceOp.SUM, plan.mediumCount(), true, Mem.NATIVE, Dist.GAUSSIAN);
        }
    }

    private void reduceScatter(DataType t, ReduceOp op, long recvCount, boolean inPlace, Mem mem, Dist d) {
        long seed = nextSeed();
        Case c = new Case(
                "reduceScatter",
                t,
                op,
                recvCount,
                -1,
                inPlace,
                mem.label + (d == Dist.GAUSSIAN ? " gaussian" : ""),
                seed);
        long blockBytes = recvCount * t.byteSize();
        long sendCount = size * recvCount;
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        long myOffset = rank * recvCount;
        withArena(mem, arena -> {
            MemorySegment send = GuardedBuffers.allocate(mem, arena, size * blockBytes);
            TestData.fill(send, seed, rank, sendCount, t, d);
            if (inPlace) {
                MemorySegment recv = send.asSlice(rank * blockBytes, blockBytes);
                call(c, () -> comm.reduceScatter(send, recv, recvCount, t, op));
                expectReduced(c, "block " + rank + " of send (in-place recv)", recv, recvCount, red, myOffset, d);
                expectGuard(c, "send", send, size * blockBytes);
            } else {
                MemorySegment recv = GuardedBuffers.allocate(mem, arena, blockBytes);
                call(c, () -> comm.reduceScatter(send, recv, recvCount, t, op));
                expectReduced(c, "recv", recv, recvCount, red, myOffset, d);
                expectGuard(c, "recv", recv, blockBytes);
                expectSendUnchanged(c, send, t, sendCount, seed, d, size * blockBytes);
            }
        });
    }

    // ------------------------------------------------------------------ Broadcast

    private void broadcastCases() {
        for (int root = 0; root < size; root++) {
            for (DataType t : TYPES) {
                long k = root + t.ordinal();
                for (long count : plan.smallCounts()) {
                    broadcast(t, count, root, (k & 1) == 0, alternate(k / 2));
                    k++;
                }
            }
        }
        for (DataType t : TYPES) {
            broadcast(t, plan.mediumCount(), t.ordinal() % size, t.ordinal() % 2 == 0, alternate(t.ordinal() / 2));
            broadcast(t, bigCount(t), (t.ordinal() + 1) % size, t.ordinal() % 2 == 1, alternate(t.ordinal() / 2 + 1));
        }
    }

    private void broadcast(DataType t, long count, int root, boolean inPlace, Mem mem) {
        long seed = nextSeed();
        Case c = new Case("broadcast", t, null, count, root, inPlace, mem.label, seed);
        long bytes = count * t.byteSize();
        withArena(mem, arena -> {
            if (inPlace) {
                MemorySegment buf = GuardedBuffers.allocate(mem, arena, bytes);
                if (rank == root) TestData.fill(buf, seed, rank, count, t, Dist.BITS);
                call(c, () -> comm.broadcast(buf, buf, count, t, root));
                expectInput(c, "buffer (root's data)", buf, t, count, seed, root, 0, Dist.BITS);
                expectGuard(c, "buffer", buf, bytes);
            } else {
                MemorySegment send = GuardedBuffers.allocate(mem, arena, bytes);
                MemorySegment recv = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(
                        send, seed, rank, count, t,
                        Dist.BITS); // non-roots' send is ignored, and must not change either
                call(c, () -> comm.broadcast(send, recv, count, t, root));
                expectInput(c, "recv (root's data)", recv, t, count, seed, root, 0, Dist.BITS);
                expectGuard(c, "recv", recv, bytes);
                expectSendUnchanged(c, send, t, count, seed, Dist.BITS, bytes);
            }
        });
    }

    // ------------------------------------------------------------------ AllGather

    private void allGatherCases() {
        for (DataType t : TYPES) {
            int ci = t.ordinal();
            for (long count : plan.smallCounts()) {
                allGather(t, count, false, alternate(ci));
                allGather(t, count, true, alternate(ci + 1));
                ci++;
            }
        }
        for (DataType t : TYPES) {
            allGather(t, plan.mediumCount(), t.ordinal() % 2 == 0, alternate(t.ordinal() / 2));
            allGather(t, bigBlockCount(t), t.ordinal() % 2 == 1, alternate(t.ordinal() / 2 + 1));
        }
    }

    private void allGather(DataType t, long count, boolean inPlace, Mem mem) {
        long seed = nextSeed();
        Case c = new Case("allGather", t, null, count, -1, inPlace, mem.label, seed);
        long blockBytes = count * t.byteSize();
        TestData.Source[] inputs = everyRanksInput(seed, t);
        LongUnaryOperator expected = i -> inputs[(int) (i / count)].bits(i % count);
        withArena(mem, arena -> {
            MemorySegment recv = GuardedBuffers.allocate(mem, arena, size * blockBytes);
            if (inPlace) {
                MemorySegment send = recv.asSlice(rank * blockBytes, blockBytes);
                TestData.fill(send, seed, rank, count, t, Dist.BITS);
                call(c, () -> comm.allGather(send, recv, count, t));
            } else {
                MemorySegment send = GuardedBuffers.allocate(mem, arena, blockBytes);
                TestData.fill(send, seed, rank, count, t, Dist.BITS);
                call(c, () -> comm.allGather(send, recv, count, t));
                expectSendUnchanged(c, send, t, count, seed, Dist.BITS, blockBytes);
            }
            expectBits(c, "recv (block i = rank i's send)", recv, t, size * count, expected);
            expectGuard(c, "recv", recv, size * blockBytes);
        });
    }

    // ------------------------------------------------------------------ AllToAll

    private void allToAllCases() {
        for (DataType t : TYPES) {
            long k = t.ordinal();
            for (long count : plan.smallCounts()) allToAll(t, count, alternate(k++));
        }
        for (DataType t : TYPES) {
            allToAll(t, plan.mediumCount(), alternate(t.ordinal()));
            allToAll(t, bigBlockCount(t), alternate(t.ordinal() + 1));
        }
    }

    private void allToAll(DataType t, long countPerPeer, Mem mem) {
        long seed = nextSeed();
        Case c = new Case("allToAll", t, null, countPerPeer, -1, false, mem.label, seed);
        long blockBytes = countPerPeer * t.byteSize();
        long total = size * countPerPeer;
        TestData.Source[] inputs = everyRanksInput(seed, t);
        // block b of recv is block rank() of rank b's send
        LongUnaryOperator expected = i -> inputs[(int) (i / countPerPeer)].bits(rank * countPerPeer + i % countPerPeer);
        withArena(mem, arena -> {
            MemorySegment send = GuardedBuffers.allocate(mem, arena, size * blockBytes);
            MemorySegment recv = GuardedBuffers.allocate(mem, arena, size * blockBytes);
            TestData.fill(send, seed, rank, total, t, Dist.BITS);
            call(c, () -> comm.allToAll(send, recv, countPerPeer, t));
            expectBits(c, "recv (block b = block rank() of rank b's send)", recv, t, total, expected);
            expectGuard(c, "recv", recv, size * blockBytes);
            expectSendUnchanged(c, send, t, total, seed, Dist.BITS, size * blockBytes);
        });
    }

    // ------------------------------------------------------------------ Send / Recv

    private int next() {
        return (rank + 1) % size;
    }

    private int prev() {
        return (rank + size - 1) % size;
    }

    /**
     * Ring: r sends to r+1 and receives from r-1. Even ranks send first, odd ranks receive first, so no cycle of
     * blocked senders forms even if sends wait for their receiver (with an odd size, the last even rank sends to rank
     * 0, which has finished sending by then). Two messages of different lengths per pair check that they match in call
     * order.
     */
    private void sendRecvCases() {
        if (size < 2) return; // a rank sending to itself with blocking calls is not a defined pattern
        for (DataType t : TYPES) {
            long k = t.ordinal();
            for (long count : plan.smallCounts()) sendRecv(t, count, alternate(k++));
        }
        for (DataType t : TYPES) {
            sendRecv(t, plan.mediumCount(), alternate(t.ordinal()));
            if (t.ordinal() % 3 == 0) sendRecv(t, bigCount(t), alternate(t.ordinal() + 1));
        }
    }

    private void sendRecv(DataType t, long count, Mem mem) {
        long seedA = nextSeed();
        long seedB = nextSeed();
        long countB = count / 2 + 1;
        Case c = new Case(
                "send/recv ring (" + rank + "→" + next() + ", " + prev() + "→" + rank + "), messages of " + count
                        + " then " + countB,
                t,
                null,
                count,
                -1,
                false,
                mem.label,
                seedA);
        long es = t.byteSize();
        withArena(mem, arena -> {
            MemorySegment sendA = GuardedBuffers.allocate(mem, arena, count * es);
            MemorySegment sendB = GuardedBuffers.allocate(mem, arena, countB * es);
            MemorySegment recvA = GuardedBuffers.allocate(mem, arena, count * es);
            MemorySegment recvB = GuardedBuffers.allocate(mem, arena, countB * es);
            TestData.fill(sendA, seedA, rank, count, t, Dist.BITS);
            TestData.fill(sendB, seedB, rank, countB, t, Dist.BITS);
            call(c, () -> {
                if (rank % 2 == 0) {
                    comm.send(sendA, count, t, next());
                    comm.send(sendB, countB, t, next());
                    comm.recv(recvA, count, t, prev());
                    comm.recv(recvB, countB, t, prev());
                } else {
                    comm.recv(recvA, count, t, prev());
                    comm.recv(recvB, countB, t, prev());
                    comm.send(sendA, count, t, next());
                    comm.send(sendB, countB, t, next());
                }
            });
            expectInput(
                    c, "first recv (first message from " + prev() + ")", recvA, t, count, seedA, prev(), 0, Dist.BITS);
            expectGuard(c, "first recv", recvA, count * es);
            expectInput(
                    c,
                    "second recv (second message from " + prev() + ")",
                    recvB,
                    t,
                    countB,
                    seedB,
                    prev(),
                    0,
                    Dist.BITS);
            expectGuard(c, "second recv", recvB, countB * es);
            expectInput(c, "first send (must not change)", sendA, t, count, seedA, rank, 0, Dist.BITS);
            expectInput(c, "second send (must not change)", sendB, t, countB, seedB, rank, 0, Dist.BITS);
            expectGuard(c, "first send", sendA, count * es);
            expectGuard(c, "second send", sendB, countB * es);
        });
    }

    // ------------------------------------------------------------------ SendRecv

    /** Who sends to whom in a sendRecv case: a permutation of the ranks, so every rank receives from exactly one. */
    private enum Exchange {
        /** r → r+1, so r receives from r-1 (what nccl-tests' sendrecv does). */
        RING("ring"),
        /** r → r-1. */
        REVERSED_RING("reversed ring"),
        /** r ↔ r^1, both ways with one peer; with an odd size the last rank exchanges with itself. */
        PAIRS("pairs"),
        /** r → r+2. */
        SHIFT_BY_TWO("shift by 2"),
        /** r → r: a local copy. */
        SELF("self");

        final String label;

        Exchange(String label) {
            this.label = label;
        }

        int to(int rank, int size) {
            return switch (this) {
                case RING -> (rank + 1) % size;
                case REVERSED_RING -> (rank + size - 1) % size;
                case PAIRS -> partner(rank, size);
                case SHIFT_BY_TWO -> (rank + 2) % size;
                case SELF -> rank;
            };
        }

        int from(int rank, int size) {
            return switch (this) {
                case RING -> (rank + size - 1) % size;
                case REVERSED_RING -> (rank + 1) % size;
                case PAIRS -> partner(rank, size);
                case SHIFT_BY_TWO -> (rank + 2 * size - 2) % size;
                case SELF -> rank;
            };
        }

        static int partner(int rank, int size) {
            return (rank ^ 1) < size ? rank ^ 1 : rank;
        }
    }

    private static final Exchange[] EXCHANGES = Exchange.values();

    /**
     * Every type × small count as a ring, and again in the next pattern of the list, in place and out of place in turn;
     * the medium count both ways for every type; the several-MiB count (more than one chunk, and not a multiple of one)
     * for one type of each width, ring and pairs.
     */
    private void exchangeCases() {
        for (DataType t : TYPES) {
            long k = t.ordinal();
            for (long count : plan.smallCounts()) {
                exchange(t, count, Exchange.RING, (k & 1) == 1, alternate(k));
                exchange(t, count, EXCHANGES[(int) (k % EXCHANGES.length)], (k & 1) == 0, alternate(k + 1));
                k++;
            }
        }
        for (DataType t : TYPES) {
            exchange(
                    t,
                    plan.mediumCount(),
                    EXCHANGES[t.ordinal() % EXCHANGES.length],
                    t.ordinal() % 2 == 0,
                    alternate(t.ordinal()));
            exchange(t, plan.mediumCount(), Exchange.RING, t.ordinal() % 2 == 1, alternate(t.ordinal() + 1));
            if (t.ordinal() % 3 == 0) {
                exchange(t, bigCount(t), Exchange.RING, t.ordinal() % 2 == 0, alternate(t.ordinal()));
                exchange(t, bigCount(t), Exchange.PAIRS, t.ordinal() % 2 == 1, alternate(t.ordinal() + 1));
            }
        }
    }

    private void exchange(DataType t, long count, Exchange pattern, boolean inPlace, Mem mem) {
        long seed = nextSeed();
        int to = pattern.to(rank, size);
        int from = pattern.from(rank, size);
        Case c = new Case(
                "sendRecv " + pattern.label + " (to " + to + ", from " + from + ")",
                t,
                null,
                count,
                -1,
                inPlace,
                mem.label,
                seed);
        long bytes = count * t.byteSize();
        withArena(mem, arena -> {
            if (inPlace) {
                MemorySegment buf = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(buf, seed, rank, count, t, Dist.BITS);
                call(c, () -> comm.sendRecv(buf, to, buf, from, count, t));
                expectInput(c, "buffer (rank " + from + "'s data)", buf, t, count, seed, from, 0, Dist.BITS);
                expectGuard(c, "buffer", buf, bytes);
            } else {
                MemorySegment send = GuardedBuffers.allocate(mem, arena, bytes);
                MemorySegment recv = GuardedBuffers.allocate(mem, arena, bytes);
                TestData.fill(send, seed, rank, count, t, Dist.BITS);
                call(c, () -> comm.sendRecv(send, to, recv, from, count, t));
                expectInput(c, "recv (rank " + from + "'s data)", recv, t, count, seed, from, 0, Dist.BITS);
                expectGuard(c, "recv", recv, bytes);
                expectSendUnchanged(c, send, t, count, seed, Dist.BITS, bytes);
            }
        });
    }

    /** How the ranks that do not call sendRecv in a mixed case answer: recv then send, or send then recv. */
    private enum PlainOrder {
        RECV_FIRST("recv then send"),
        SEND_FIRST("send then recv");

        final String label;

        PlainOrder(String label) {
            this.label = label;
        }
    }

    /**
     * Each half of a sendRecv meets a plain recv or send: in a ring (even ranks call sendRecv, odd ranks send and
     * receive with blocking calls, so no two plain ranks are neighbours) and in pairs (the even rank of each pair calls
     * sendRecv, the odd one answers with two blocking calls, in either order). A pair whose partner receives everything
     * before it sends anything back only completes if the two halves of sendRecv do not wait for each other; with the
     * several-MiB count (more than one chunk) that is checked here. In place, what arrives must wait for the same chunk
     * to have left, so in place is paired with a partner that receives first (except for small counts, which the
     * sockets buffer whatever the order).
     */
    private void mixedExchangeCases() {
        if (size < 2) return; // with one rank the plain calls would be a send to itself
        DataType[] types = {DataType.INT32, DataType.FLOAT64, DataType.UINT8, DataType.BFLOAT16};
        int k = 0;
        for (Exchange pattern : new Exchange[] {Exchange.RING, Exchange.PAIRS}) {
            for (PlainOrder order : PlainOrder.values()) {
                for (long count : new long[] {0, 97, plan.mediumCount()}) {
                    DataType t = types[k % types.length];
                    mixedExchange(t, count, pattern, order, k % 2 == 1, alternate(k));
                    k++;
                }
                DataType t = types[k++ % types.length];
                mixedExchange(t, bigCount(t), pattern, order, order == PlainOrder.RECV_FIRST, alternate(k));
            }
        }
        // The numbering of messages per pair stays shared: a plain ring right after a mixed case lines up.
        sendRecv(DataType.INT64, 13, Mem.HEAP);
    }

    private void mixedExchange(DataType t, long count, Exchange pattern, PlainOrder order, boolean inPlace, Mem mem) {
        long seed = nextSeed();
        int to = pattern.to(rank, size);
        int from = pattern.from(rank, size);
        // In pairs with an odd size the last rank has no partner and exchanges with itself.
        boolean callsSendRecv = rank % 2 == 0 || to == rank;
        boolean mine = callsSendRecv && inPlace;
        Case c = new Case(
                (callsSendRecv ? "sendRecv" : order.label) + " in a " + pattern.label
                        + " of sendRecv and plain send/recv (to " + to + ", from " + from + ")",
                t,
                null,
                count,
                -1,
                mine,
                mem.label,
                seed);
        long bytes = count * t.byteSize();
        withArena(mem, arena -> {
            MemorySegment send = GuardedBuffers.allocate(mem, arena, bytes);
            MemorySegment recv = mine ? send : GuardedBuffers.allocate(mem, arena, bytes);
            TestData.fill(send, seed, rank, count, t, Dist.BITS);
            call(c, () -> {
                if (callsSendRecv) {
                    comm.sendRecv(send, to, recv, from, count, t);
                } else if (order == PlainOrder.RECV_FIRST) {
                    comm.recv(recv, count, t, from);
                    comm.send(send, count, t, to);
                } else {
                    comm.send(send, count, t, to);
                    comm.recv(recv, count, t, from);
                }
            });
            expectInput(c, "recv (rank " + from + "'s data)", recv, t, count, seed, from, 0, Dist.BITS);
            expectGuard(c, "recv", recv, bytes);
            if (!mine) {
                expectSendUnchanged(c, send, t, count, seed, Dist.BITS, bytes);
            }
        });
    }

    // ------------------------------------------------------------------ array overloads

    /** The Java array whose element width matches {@code t}; FLOAT32/FLOAT64 get float[]/double[]. */
    private static Object newArray(DataType t, int n, boolean intsForFloats) {
        return switch (t) {
            case INT8, UINT8 -> new byte[n];
            case FLOAT16, BFLOAT16 -> new short[n];
            case INT32, UINT32 -> new int[n];
            case FLOAT32 -> intsForFloats ? new int[n] : new float[n];
            case INT64, UINT64 -> new long[n];
            case FLOAT64 -> intsForFloats ? new long[n] : new double[n];
        };
    }

    private static MemorySegment view(Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException(array.getClass().toString());
        };
    }

    private static String kind(Object array) {
        return array.getClass().getSimpleName();
    }

    /** True when the single-argument overload ({@code allReduce(int[], op)} etc.) implies {@code t}. */
    private static boolean implied(Object array, DataType t) {
        return switch (array) {
            case byte[] a -> t == DataType.INT8;
            case int[] a -> t == DataType.INT32;
            case long[] a -> t == DataType.INT64;
            case float[] a -> t == DataType.FLOAT32;
            case double[] a -> t == DataType.FLOAT64;
            default -> false;
        };
    }

    /** The array forms take any primitive array; {@code useImplied} picks the overload whose type the array implies. */
    private void arrayAllReduce(Object a, DataType t, ReduceOp op, boolean useImplied) {
        if (useImplied) comm.allReduce(a, op);
        else comm.allReduce(a, t, op);
    }

    private CompletableFuture<Void> arrayAllReduceAsync(Object a, DataType t, ReduceOp op, boolean useImplied) {
        return useImplied ? comm.allReduceAsync(a, op) : comm.allReduceAsync(a, t, op);
    }

    /**
     * Every array overload with every type it can carry. Arrays are exactly {@code count} long (no guard), so these
     * also prove that exact-size buffers are accepted.
     */
    private void arrayCases() {
        long[] counts = {0, 13, 97, 1021};
        int k = 0;
        for (DataType t : TYPES) {
            for (boolean ints : t == DataType.FLOAT32 || t == DataType.FLOAT64
                    ? new boolean[] {false, true}
                    : new boolean[] {false}) {
                for (ReduceOp op : OPS) {
                    int count = (int) counts[k % counts.length];
                    Object probe = newArray(t, 0, ints);
                    boolean useImplied = implied(probe, t) && k % 2 == 0;
                    arrayAllReduce(t, op, count, ints, useImplied);
                    arrayReduce(t, op, (int) counts[(k + 1) % counts.length], (k + t.ordinal()) % size, ints);
                    k++;
                }
                arrayBroadcast(t, 97, t.ordinal() % size, ints);
                arrayAllGather(t, 13, ints);
                arrayReduceScatter(t, ReduceOp.values()[t.ordinal() % OPS.length], 13, ints);
                arrayAllToAll(t, 7, ints);
                if (size > 1) arraySendRecv(t, 97, ints);
                arrayExchange(t, 97, ints, t.ordinal() % 2 == 1);
            }
        }
    }

    private void arrayAllReduce(DataType t, ReduceOp op, int count, boolean ints, boolean useImplied) {
        long seed = nextSeed();
        Object a = newArray(t, count, ints);
        Case c = new Case(
                "allReduce(" + kind(a) + (useImplied ? ", op)" : ", type, op)"), t, op, count, -1, true, "array", seed);
        Dist d = TestData.exactFor(t, op);
        TestData.fill(view(a), seed, rank, count, t, d);
        call(c, () -> arrayAllReduce(a, t, op, useImplied));
        expectReduced(c, "array", view(a), count, new Reference.Reduction(seed, size, t, op, d), 0, d);
    }

    private void arrayReduce(DataType t, ReduceOp op, int count, int root, boolean ints) {
        long seed = nextSeed();
        Object a = newArray(t, count, ints);
        Case c = new Case("reduce(" + kind(a) + ", type, op, root)", t, op, count, root, true, "array", seed);
        Dist d = TestData.exactFor(t, op);
        TestData.fill(view(a), seed, rank, count, t, d);
        call(c, () -> comm.reduce(a, t, op, root));
        if (rank == root) {
            expectReduced(c, "array at the root", view(a), count, new Reference.Reduction(seed, size, t, op, d), 0, d);
        } else {
            expectInput(c, "array at a non-root (must not change)", view(a), t, count, seed, rank, 0, d);
        }
    }

    private void arrayBroadcast(DataType t, int count, int root, boolean ints) {
        long seed = nextSeed();
        Object a = newArray(t, count, ints);
        Case c = new Case("broadcast(" + kind(a) + ", root)", t, null, count, root, true, "array", seed);
        if (rank == root) TestData.fill(view(a), seed, rank, count, t, Dist.BITS);
        else view(a).fill(GuardedBuffers.SENTINEL);
        call(c, () -> comm.broadcast(a, root));
        expectInput(c, "array (root's data)", view(a), t, count, seed, root, 0, Dist.BITS);
    }

    private void arrayAllGather(DataType t, int count, boolean ints) {
        long seed = nextSeed();
        Object s = newArray(t, count, ints);
        Object r = newArray(t, size * count, ints);
        Case c = new Case("allGather(" + kind(s) + ", " + kind(r) + ")", t, null, count, -1, false, "array", seed);
        TestData.fill(view(s), seed, rank, count, t, Dist.BITS);
        view(r).fill(GuardedBuffers.SENTINEL);
        call(c, () -> comm.allGather(s, r));
        TestData.Source[] inputs = everyRanksInput(seed, t);
        expectBits(c, "recv", view(r), t, (long) size * count, i -> inputs[(int) (i / count)].bits(i % count));
        expectInput(c, "send (must not change)", view(s), t, count, seed, rank, 0, Dist.BITS);
    }

    private void arrayReduceScatter(DataType t, ReduceOp op, int recvCount, boolean ints) {
        long seed = nextSeed();
        Object s = newArray(t, size * recvCount, ints);
        Object r = newArray(t, recvCount, ints);
        Case c = new Case(
                "reduceScatter(" + kind(s) + ", " + kind(r) + ", type, op)",
                t,
                op,
                recvCount,
                -1,
                false,
                "array",
                seed);
        Dist d = TestData.exactFor(t, op);
        TestData.fill(view(s), seed, rank, (long) size * recvCount, t, d);
        view(r).fill(GuardedBuffers.SENTINEL);
        call(c, () -> comm.reduceScatter(s, r, t, op));
        expectReduced(
                c,
                "recv",
                view(r),
                recvCount,
                new Reference.Reduction(seed, size, t, op, d),
                (long) rank * recvCount,
                d);
        expectInput(c, "send (must not change)", view(s), t, (long) size * recvCount, seed, rank, 0, d);
    }

    private void arrayAllToAll(DataType t, int countPerPeer, boolean ints) {
        long seed = nextSeed();
        Object s = newArray(t, size * countPerPeer, ints);
        Object r = newArray(t, size * countPerPeer, ints);
        Case c =
                new Case("allToAll(" + kind(s) + ", " + kind(r) + ")", t, null, countPerPeer, -1, false, "array", seed);
        TestData.fill(view(s), seed, rank, (long) size * countPerPeer, t, Dist.BITS);
        view(r).fill(GuardedBuffers.SENTINEL);
        call(c, () -> comm.allToAll(s, r));
        TestData.Source[] inputs = everyRanksInput(seed, t);
        expectBits(
                c,
                "recv",
                view(r),
                t,
                (long) size * countPerPeer,
                i -> inputs[(int) (i / countPerPeer)].bits((long) rank * countPerPeer + i % countPerPeer));
    }

    private void arraySendRecv(DataType t, int count, boolean ints) {
        long seed = nextSeed();
        Object s = newArray(t, count, ints);
        Object r = newArray(t, count, ints);
        Case c = new Case("send/recv(" + kind(s) + ", peer) ring", t, null, count, -1, false, "array", seed);
        TestData.fill(view(s), seed, rank, count, t, Dist.BITS);
        view(r).fill(GuardedBuffers.SENTINEL);
        call(c, () -> {
            if (rank % 2 == 0) {
                comm.send(s, next());
                comm.recv(r, prev());
            } else {
                comm.recv(r, prev());
                comm.send(s, next());
            }
        });
        expectInput(c, "recv (message from " + prev() + ")", view(r), t, count, seed, prev(), 0, Dist.BITS);
    }

    /** sendRecv(array, next, array, prev), or with one array in place. */
    private void arrayExchange(DataType t, int count, boolean ints, boolean inPlace) {
        long seed = nextSeed();
        Object s = newArray(t, count, ints);
        Object r = inPlace ? s : newArray(t, count, ints);
        Case c = new Case(
                "sendRecv(" + kind(s) + ", next, " + kind(r) + ", prev) ring",
                t,
                null,
                count,
                -1,
                inPlace,
                "array",
                seed);
        TestData.fill(view(s), seed, rank, count, t, Dist.BITS);
        if (!inPlace) view(r).fill(GuardedBuffers.SENTINEL);
        call(c, () -> comm.sendRecv(s, next(), r, prev()));
        expectInput(c, "recv (rank " + prev() + "'s data)", view(r), t, count, seed, prev(), 0, Dist.BITS);
        if (!inPlace) expectInput(c, "send (must not change)", view(s), t, count, seed, rank, 0, Dist.BITS);
    }

    // ------------------------------------------------------------------ async

    /** An issued async call and how to check it once joined. */
    private record Pending(Object c, CompletableFuture<Void> future, Runnable check) {}

    /**
     * Issues every async form back to back (plus a blocking call in between, which must run after the async calls
     * issued before it), then joins them and checks results and that each future completed only after every future
     * issued before it.
     */
    private void asyncCases() {
        try (Arena shared = Arena.ofShared()) {
            List<Pending> pending = new ArrayList<>();
            List<String> orderViolations = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicReferenceArray<CompletableFuture<Void>> issued = new AtomicReferenceArray<>(64 + plan.queuedAsync());
            int[] n = {0};
            Consumer<Pending> track = p -> {
                int index = n[0]++;
                issued.set(index, p.future());
                p.future().whenComplete((v, e) -> {
                    for (int j = 0; j < index; j++) {
                        CompletableFuture<Void> earlier = issued.get(j);
                        if (earlier != null && !earlier.isDone()) {
                            orderViolations.add("async call #" + index + " (" + p.c() + ") completed before call #" + j
                                    + " issued earlier");
                        }
                    }
                });
                pending.add(p);
            };

            track.accept(asyncAllReduce(shared, DataType.FLOAT32, ReduceOp.SUM, 1021, false, Mem.SHARED));
            track.accept(asyncAllReduce(shared, DataType.FLOAT16, ReduceOp.AVG, plan.mediumCount(), true, Mem.SHARED));
            track.accept(asyncAllReduce(shared, DataType.INT64, ReduceOp.PROD, 13, false, Mem.HEAP));
            track.accept(asyncBroadcast(shared, DataType.INT32, 97, size - 1, false));
            track.accept(asyncBroadcast(shared, DataType.UINT8, 1021, 0, true));
            track.accept(asyncReduce(shared, DataType.FLOAT64, ReduceOp.MAX, 1021, 0, false));
            track.accept(asyncReduce(shared, DataType.UINT32, ReduceOp.MIN, 97, size - 1, true));
            track.accept(asyncAllGather(shared, DataType.UINT8, 13, true));
            track.accept(asyncAllGather(shared, DataType.BFLOAT16, 1021, false));
            track.accept(asyncReduceScatter(shared, DataType.BFLOAT16, ReduceOp.SUM, 97, false));
            track.accept(asyncReduceScatter(shared, DataType.INT8, ReduceOp.MAX, 13, true));
            track.accept(asyncAllToAll(shared, DataType.INT64, 7));
            track.accept(asyncArrayAllReduce(DataType.FLOAT32, ReduceOp.SUM, 1021, true));
            track.accept(asyncArrayAllReduce(DataType.BFLOAT16, ReduceOp.MAX, 97, false));
            String bc = "barrierAsync";
            track.accept(new Pending(bc, callGet(bc, comm::barrierAsync), () -> {}));

            // A blocking call between async ones runs in call order: after those issued before it.
            allReduce(DataType.INT32, ReduceOp.SUM, 1021, false, Mem.NATIVE, Dist.BITS);

            if (size > 1) {
                for (Pending p : asyncSendRecv(shared, DataType.FLOAT64, 1021)) track.accept(p);
            }
            track.accept(asyncExchange(shared, DataType.FLOAT32, 1021, Exchange.RING, false));
            track.accept(asyncExchange(shared, DataType.INT8, plan.mediumCount(), Exchange.PAIRS, true));
            track.accept(
                    asyncExchange(shared, DataType.UINT64, bigCount(DataType.UINT64), Exchange.REVERSED_RING, false));
            for (int i = 0; i < plan.queuedAsync(); i++) {
                track.accept(asyncAllReduce(shared, DataType.INT32, ReduceOp.SUM, 7 + i, i % 2 == 0, Mem.SHARED));
            }
            for (Pending p : pending) {
                try {
                    p.future().get(waitLimit.toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    failAndStop(p.c(), "future failed: " + describe(e.getCause()));
                } catch (TimeoutException e) {
                    failAndStop(p.c(), "future not complete after " + waitLimit.toSeconds() + " s");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failAndStop(p.c(), "interrupted while joining");
                }
            }
            for (Pending p : pending) p.check().run();
            for (String v : orderViolations) fail("async completion order", v);
        }
    }

    private Pending asyncAllReduce(Arena shared, DataType t, ReduceOp op, long count, boolean inPlace, Mem mem) {
        long seed = nextSeed();
        Case c = new Case("allReduceAsync", t, op, count, -1, inPlace, mem.label, seed);
        Dist d = TestData.exactFor(t, op);
        long bytes = count * t.byteSize();
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        MemorySegment send = GuardedBuffers.allocate(mem, shared, bytes);
        MemorySegment recv = inPlace ? send : GuardedBuffers.allocate(mem, shared, bytes);
        TestData.fill(send, seed, rank, count, t, d);
        CompletableFuture<Void> f = callGet(c, () -> comm.allReduceAsync(send, recv, count, t, op));
        return new Pending(c, f, () -> {
            expectReduced(c, "recv", recv, count, red, 0, d);
            expectGuard(c, "recv", recv, bytes);
            if (!inPlace) expectInput(c, "send (must not change)", send, t, count, seed, rank, 0, d);
        });
    }

    private Pending asyncBroadcast(Arena shared, DataType t, long count, int root, boolean inPlace) {
        long seed = nextSeed();
        Case c = new Case("broadcastAsync", t, null, count, root, inPlace, Mem.SHARED.label, seed);
        long bytes = count * t.byteSize();
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        MemorySegment recv = inPlace ? send : GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        if (!inPlace || rank == root) TestData.fill(send, seed, rank, count, t, Dist.BITS);
        CompletableFuture<Void> f = callGet(c, () -> comm.broadcastAsync(send, recv, count, t, root));
        return new Pending(c, f, () -> {
            expectInput(c, "recv (root's data)", recv, t, count, seed, root, 0, Dist.BITS);
            expectGuard(c, "recv", recv, bytes);
        });
    }

    private Pending asyncReduce(Arena shared, DataType t, ReduceOp op, long count, int root, boolean inPlace) {
        long seed = nextSeed();
        Case c = new Case("reduceAsync", t, op, count, root, inPlace, Mem.SHARED.label, seed);
        Dist d = TestData.exactFor(t, op);
        long bytes = count * t.byteSize();
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        MemorySegment recv = inPlace ? send : GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        TestData.fill(send, seed, rank, count, t, d);
        CompletableFuture<Void> f = callGet(c, () -> comm.reduceAsync(send, recv, count, t, op, root));
        return new Pending(c, f, () -> {
            if (rank == root) {
                expectReduced(c, "recv at the root", recv, count, red, 0, d);
            } else if (inPlace) {
                expectInput(c, "buffer at a non-root (must not change)", recv, t, count, seed, rank, 0, d);
            } else {
                expectSentinel(c, "recv at a non-root (must not be touched)", recv, 0, bytes);
            }
            expectGuard(c, "recv", recv, bytes);
        });
    }

    private Pending asyncAllGather(Arena shared, DataType t, long count, boolean inPlace) {
        long seed = nextSeed();
        Case c = new Case("allGatherAsync", t, null, count, -1, inPlace, Mem.SHARED.label, seed);
        long blockBytes = count * t.byteSize();
        MemorySegment recv = GuardedBuffers.allocate(Mem.SHARED, shared, size * blockBytes);
        MemorySegment send = inPlace
                ? recv.asSlice(rank * blockBytes, blockBytes)
                : GuardedBuffers.allocate(Mem.SHARED, shared, blockBytes);
        TestData.fill(send, seed, rank, count, t, Dist.BITS);
        CompletableFuture<Void> f = callGet(c, () -> comm.allGatherAsync(send, recv, count, t));
        return new Pending(c, f, () -> {
            TestData.Source[] inputs = everyRanksInput(seed, t);
            expectBits(c, "recv", recv, t, size * count, i -> inputs[(int) (i / count)].bits(i % count));
            expectGuard(c, "recv", recv, size * blockBytes);
        });
    }

    private Pending asyncReduceScatter(Arena shared, DataType t, ReduceOp op, long recvCount, boolean inPlace) {
        long seed = nextSeed();
        Case c = new Case("reduceScatterAsync", t, op, recvCount, -1, inPlace, Mem.SHARED.label, seed);
        Dist d = TestData.exactFor(t, op);
        long blockBytes = recvCount * t.byteSize();
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, size * blockBytes);
        TestData.fill(send, seed, rank, size * recvCount, t, d);
        MemorySegment recv = inPlace
                ? send.asSlice(rank * blockBytes, blockBytes)
                : GuardedBuffers.allocate(Mem.SHARED, shared, blockBytes);
        CompletableFuture<Void> f = callGet(c, () -> comm.reduceScatterAsync(send, recv, recvCount, t, op));
        return new Pending(c, f, () -> {
            expectReduced(c, "recv", recv, recvCount, red, rank * recvCount, d);
            if (!inPlace) expectGuard(c, "recv", recv, blockBytes);
            expectGuard(c, "send", send, size * blockBytes);
        });
    }

    private Pending asyncAllToAll(Arena shared, DataType t, long countPerPeer) {
        long seed = nextSeed();
        Case c = new Case("allToAllAsync", t, null, countPerPeer, -1, false, Mem.SHARED.label, seed);
        long bytes = size * countPerPeer * t.byteSize();
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        MemorySegment recv = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        TestData.fill(send, seed, rank, size * countPerPeer, t, Dist.BITS);
        CompletableFuture<Void> f = callGet(c, () -> comm.allToAllAsync(send, recv, countPerPeer, t));
        return new Pending(c, f, () -> {
            TestData.Source[] inputs = everyRanksInput(seed, t);
            expectBits(
                    c,
                    "recv",
                    recv,
                    t,
                    size * countPerPeer,
                    i -> inputs[(int) (i / countPerPeer)].bits(rank * countPerPeer + i % countPerPeer));
            expectGuard(c, "recv", recv, bytes);
        });
    }

    private Pending asyncArrayAllReduce(DataType t, ReduceOp op, int count, boolean useImplied) {
        long seed = nextSeed();
        Object a = newArray(t, count, false);
        Case c = new Case(
                "allReduceAsync(" + kind(a) + (useImplied ? ", op)" : ", type, op)"),
                t,
                op,
                count,
                -1,
                true,
                "array",
                seed);
        Dist d = TestData.exactFor(t, op);
        TestData.fill(view(a), seed, rank, count, t, d);
        CompletableFuture<Void> f = callGet(c, () -> arrayAllReduceAsync(a, t, op, useImplied));
        Reference.Reduction red = new Reference.Reduction(seed, size, t, op, d);
        return new Pending(c, f, () -> expectReduced(c, "array", view(a), count, red, 0, d));
    }

    /** Ring send/recv as futures, in the same even/odd order as the blocking ring. */
    private List<Pending> asyncSendRecv(Arena shared, DataType t, long count) {
        long seed = nextSeed();
        Case c = new Case("sendAsync/recvAsync ring", t, null, count, -1, false, Mem.SHARED.label, seed);
        long bytes = count * t.byteSize();
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        MemorySegment recv = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        TestData.fill(send, seed, rank, count, t, Dist.BITS);
        Runnable none = () -> {};
        Runnable checkRecv = () -> {
            expectInput(c, "recv (message from " + prev() + ")", recv, t, count, seed, prev(), 0, Dist.BITS);
            expectGuard(c, "recv", recv, bytes);
            expectInput(c, "send (must not change)", send, t, count, seed, rank, 0, Dist.BITS);
        };
        List<Pending> out = new ArrayList<>();
        if (rank % 2 == 0) {
            out.add(new Pending(c, callGet(c, () -> comm.sendAsync(send, count, t, next())), none));
            out.add(new Pending(c, callGet(c, () -> comm.recvAsync(recv, count, t, prev())), checkRecv));
        } else {
            out.add(new Pending(c, callGet(c, () -> comm.recvAsync(recv, count, t, prev())), checkRecv));
            out.add(new Pending(c, callGet(c, () -> comm.sendAsync(send, count, t, next())), none));
        }
        return out;
    }

    private Pending asyncExchange(Arena shared, DataType t, long count, Exchange pattern, boolean inPlace) {
        long seed = nextSeed();
        int to = pattern.to(rank, size);
        int from = pattern.from(rank, size);
        Case c = new Case(
                "sendRecvAsync " + pattern.label + " (to " + to + ", from " + from + ")",
                t,
                null,
                count,
                -1,
                inPlace,
                Mem.SHARED.label,
                seed);
        long bytes = count * t.byteSize();
        MemorySegment send = GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        MemorySegment recv = inPlace ? send : GuardedBuffers.allocate(Mem.SHARED, shared, bytes);
        TestData.fill(send, seed, rank, count, t, Dist.BITS);
        CompletableFuture<Void> f = callGet(c, () -> comm.sendRecvAsync(send, to, recv, from, count, t));
        return new Pending(c, f, () -> {
            expectInput(c, "recv (rank " + from + "'s data)", recv, t, count, seed, from, 0, Dist.BITS);
            expectGuard(c, "recv", recv, bytes);
            if (!inPlace) expectInput(c, "send (must not change)", send, t, count, seed, rank, 0, Dist.BITS);
        });
    }

    /**
     * Every async form must refuse a segment confined to the calling thread, with an IllegalArgumentException thrown by
     * the call itself, before any data moves. Only segments every rank uses here; Broadcast's send and Reduce's recv,
     * which only the root uses, are {@link BadArgumentsBody#runRootOnly}'s question.
     */
    private void asyncRefusesConfinedSegments() {
        DataType t = DataType.INT64;
        long count = 8;
        long bytes = count * t.byteSize();
        try (Arena confined = Arena.ofConfined();
                Arena shared = Arena.ofShared()) {
            MemorySegment conf = GuardedBuffers.allocate(Mem.NATIVE, confined, size * bytes);
            MemorySegment sh = GuardedBuffers.allocate(Mem.SHARED, shared, size * bytes);
            expectRefused("allReduceAsync(confined send)", () -> comm.allReduceAsync(conf, sh, count, t, ReduceOp.SUM));
            expectRefused("allReduceAsync(confined recv)", () -> comm.allReduceAsync(sh, conf, count, t, ReduceOp.SUM));
            expectRefused(
                    "allReduceAsync(confined, in place)",
                    () -> comm.allReduceAsync(conf, conf, count, t, ReduceOp.MAX));
            expectRefused("broadcastAsync(confined recv)", () -> comm.broadcastAsync(sh, conf, count, t, 0));
            expectRefused("reduceAsync(confined send)", () -> comm.reduceAsync(conf, sh, count, t, ReduceOp.SUM, 0));
            expectRefused("allGatherAsync(confined send)", () -> comm.allGatherAsync(conf, sh, count, t));
            expectRefused("allGatherAsync(confined recv)", () -> comm.allGatherAsync(sh, conf, count, t));
            expectRefused(
                    "reduceScatterAsync(confined send)",
                    () -> comm.reduceScatterAsync(conf, sh, count, t, ReduceOp.SUM));
            expectRefused(
                    "reduceScatterAsync(confined recv)",
                    () -> comm.reduceScatterAsync(sh, conf, count, t, ReduceOp.SUM));
            expectRefused("allToAllAsync(confined send)", () -> comm.allToAllAsync(conf, sh, count, t));
            expectRefused("allToAllAsync(confined recv)", () -> comm.allToAllAsync(sh, conf, count, t));
            if (size > 1) {
                expectRefused("sendAsync(confined)", () -> comm.sendAsync(conf, count, t, next()));
                expectRefused("recvAsync(confined)", () -> comm.recvAsync(conf, count, t, prev()));
            }
            expectRefused("sendRecvAsync(confined send)", () -> comm.sendRecvAsync(conf, next(), sh, prev(), count, t));
            expectRefused("sendRecvAsync(confined recv)", () -> comm.sendRecvAsync(sh, next(), conf, prev(), count, t));
            expectRefused(
                    "sendRecvAsync(confined, in place)",
                    () -> comm.sendRecvAsync(conf, next(), conf, prev(), count, t));
            Case c = new Case(
                    "async calls with confined segments",
                    t,
                    null,
                    count,
                    -1,
                    false,
                    "native-confined and native-shared",
                    0);
            expectSentinel(c, "confined buffer (no data may move)", conf, 0, conf.byteSize());
            expectSentinel(c, "shared buffer (no data may move)", sh, 0, sh.byteSize());
        }
        // The refused calls must have left the ranks in step.
        allReduce(DataType.INT32, ReduceOp.SUM, 97, false, Mem.NATIVE, Dist.BITS);
    }

    private void expectRefused(String what, Supplier<CompletableFuture<Void>> call) {
        CompletableFuture<Void> f;
        try {
            f = call.get();
        } catch (IllegalArgumentException expected) {
            if (expected.getMessage() == null || expected.getMessage().isBlank()) {
                fail(what, "refused, but the IllegalArgumentException has no message");
            }
            return;
        } catch (Throwable t) {
            failAndStop(what, "expected IllegalArgumentException for a confined segment, got " + describe(t));
            return;
        }
        try {
            f.get(waitLimit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException) {
                fail(
                        what,
                        "a confined segment must make the call throw IllegalArgumentException; "
                                + "it returned a future that failed with it instead");
                return;
            }
            failAndStop(
                    what,
                    "accepted a confined segment (expected IllegalArgumentException); its future failed with "
                            + describe(e.getCause()));
        } catch (Exception e) {
            failAndStop(
                    what, "accepted a confined segment (expected IllegalArgumentException); joining its future: " + e);
        }
        failAndStop(what, "accepted a confined segment (expected IllegalArgumentException) and completed");
    }

    // ------------------------------------------------------------------ split

    /**
     * split(rank % 2, size - rank): two communicators (one when size is 1), each ordering its members by descending
     * parent rank. Checked by size, rank, an AllReduce over the members' inputs, and an AllGather of parent ranks
     * (which shows the order). Then a split where rank 0 passes SPLIT_NOCOLOR, and the parent must still work.
     */
    private void splitCases() {
        int color = rank % 2;
        int[] members = java.util.stream.IntStream.range(0, size)
                .filter(r -> r % 2 == color)
                .boxed()
                .sorted((a, b) -> Integer.compare(b, a))
                .mapToInt(Integer::intValue)
                .toArray();
        String sc = "split(color=rank%2, key=size-rank) → members " + Arrays.toString(members) + " by parent rank";
        // Seeds are drawn here, on every rank alike, because rank 0 sits out the second split.
        long seed1 = nextSeed();
        long seed2 = nextSeed();
        Communicator sub = callGet(sc, () -> comm.split(color, size - rank));
        if (sub == null) {
            failAndStop(sc, "returned null for a non-negative color");
        }
        try {
            checkSub(sc, sub, members, seed1);
        } finally {
            call(sc, sub::close);
        }

        int[] others = java.util.stream.IntStream.range(1, size).toArray();
        String nc = "split(rank 0: SPLIT_NOCOLOR, others: color 7, key=rank) → members " + Arrays.toString(others)
                + " by parent rank";
        Communicator sub2 = callGet(nc, () -> comm.split(rank == 0 ? Communicator.SPLIT_NOCOLOR : 7, rank));
        if (rank == 0) {
            if (sub2 != null) {
                fail(nc, "returned a communicator for SPLIT_NOCOLOR (size " + sub2.size() + "); expected null");
                sub2.close();
            }
        } else if (sub2 == null) {
            failAndStop(nc, "returned null for color 7");
        } else {
            try {
                checkSub(nc, sub2, others, seed2);
            } finally {
                call(nc, sub2::close);
            }
        }
        // The parent is unaffected by splitting and closing the children.
        allReduce(DataType.FLOAT32, ReduceOp.SUM, 1021, true, Mem.HEAP, Dist.SMALL_INTS);
    }

    private void checkSub(String sc, Communicator sub, int[] members, long seed) {
        int expectedRank = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == rank) expectedRank = i;
        }
        if (sub.size() != members.length || sub.rank() != expectedRank) {
            failAndStop(
                    sc,
                    "sub-communicator is rank " + sub.rank() + " of " + sub.size() + "; expected rank " + expectedRank
                            + " of " + members.length);
        }
        Case c = new Case("allReduce on " + sc, DataType.INT64, ReduceOp.SUM, 1021, -1, false, "native-confined", seed);
        DataType t = DataType.INT64;
        long count = 1021;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment send = GuardedBuffers.allocate(Mem.NATIVE, arena, count * 8);
            MemorySegment recv = GuardedBuffers.allocate(Mem.NATIVE, arena, count * 8);
            TestData.fill(send, seed, rank, count, t, Dist.BITS); // inputs keyed by parent rank
            call(c, () -> sub.allReduce(send, recv, count, t, ReduceOp.SUM));
            Reference.Reduction red = new Reference.Reduction(seed, members, t, ReduceOp.SUM, Dist.BITS);
            expectBits(c, "recv", recv, t, count, red::expected);
            expectGuard(c, "recv", recv, count * 8);

            Case g = new Case(
                    "allGather of parent ranks on " + sc, DataType.INT32, null, 1, -1, false, "native-confined", 0);
            MemorySegment mine = GuardedBuffers.allocate(Mem.NATIVE, arena, 4);
            MemorySegment all = GuardedBuffers.allocate(Mem.NATIVE, arena, 4L * members.length);
            Elements.set(mine, DataType.INT32, 0, rank);
            call(g, () -> sub.allGather(mine, all, 1, DataType.INT32));
            expectBits(
                    g,
                    "recv (parent rank of each sub-rank, ordered by key)",
                    all,
                    DataType.INT32,
                    members.length,
                    i -> members[(int) i]);
        }
    }

    // ------------------------------------------------------------------ barrier

    /**
     * Three rounds; in each one rank is late. Every rank notes the wall-clock time just before it calls barrier() and
     * just after it returns, and an AllGather shares them: every exit must be at or after every entry. (All ranks of
     * this suite run on one host, so they share a clock.)
     */
    private void barrierCases() {
        for (int round = 0; round < 3; round++) {
            int late = round % size;
            String c = "barrier round " + round + " (rank " + late + " arrives 50 ms late)";
            if (rank == late) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            long enter = nowMicros();
            call(c, comm::barrier);
            long exit = nowMicros();
            long[] mine = {enter, exit};
            long[] all = new long[2 * size];
            call(c, () -> comm.allGather(mine, all));
            long lastEntry = Long.MIN_VALUE;
            long firstExit = Long.MAX_VALUE;
            int lastEntrant = -1;
            int firstLeaver = -1;
            for (int r = 0; r < size; r++) {
                if (all[2 * r] > lastEntry) {
                    lastEntry = all[2 * r];
                    lastEntrant = r;
                }
                if (all[2 * r + 1] < firstExit) {
                    firstExit = all[2 * r + 1];
                    firstLeaver = r;
                }
            }
            if (firstExit < lastEntry) {
                fail(
                        c,
                        "rank " + firstLeaver + " left the barrier " + (lastEntry - firstExit) + " µs before rank "
                                + lastEntrant + " entered it (all entries/exits in µs: " + Arrays.toString(all) + ")");
            }
        }
    }

    private static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }
}
