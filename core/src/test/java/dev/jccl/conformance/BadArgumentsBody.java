package dev.jccl.conformance;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every rank makes the same bad call; each must throw {@link IllegalArgumentException} locally, before any data moves,
 * with a message that names the problem — and afterwards the ranks must still be in step, which a checked AllReduce
 * after every bad call proves.
 *
 * <p>Bad calls: negative count (every collective, blocking and async), root out of range (-1, size), peer out of range
 * (-1, size), each buffer of each collective one byte too small, AllGather recv smaller than size × count,
 * ReduceScatter send smaller than size × recvCount, AllToAll with shifted overlapping buffers, a count whose byte size
 * overflows a long, and array overloads with the wrong element width or shape; SendRecv with each of those that
 * applies, and with this rank as one peer but not the other; and, separately ({@link #runRootOnly}), root-only buffers
 * too small.
 */
final class BadArgumentsBody {
    private static final int COUNT = 16;
    private static final DataType T = DataType.INT32;
    private static final long BYTES = COUNT * 4L;

    private final Communicator comm;
    private final int rank;
    private final int size;
    private final List<String> failures = new ArrayList<>();
    private int seedNo;

    private BadArgumentsBody(Communicator comm) {
        this.comm = comm;
        this.rank = comm.rank();
        this.size = comm.size();
    }

    /** Every check except {@link #runRootOnly}'s. */
    static List<String> run(Communicator comm) {
        BadArgumentsBody b = new BadArgumentsBody(comm);
        try {
            b.all();
        } catch (StopException stop) {
            // recorded
        }
        return b.failures;
    }

    /**
     * Buffers only the root reads or writes (Broadcast's send, Reduce's recv), too small on every rank, and the same
     * buffers confined to their thread in async calls. Every rank must refuse: if only the root did, the others would
     * go on into a collective the root never joins. Kept apart because a runtime that checks these at the root only
     * leaves the communicator broken, which would hide every later check.
     */
    static List<String> runRootOnly(Communicator comm) {
        BadArgumentsBody b = new BadArgumentsBody(comm);
        try (Arena arena = Arena.ofConfined();
                Arena shared = Arena.ofShared()) {
            b.rootOnlyBuffersTooSmall(arena);
            b.rootOnlyBuffersConfined(arena, shared);
        } catch (StopException stop) {
            // recorded
        }
        return b.failures;
    }

    private static final class StopException extends RuntimeException {
        StopException() {
            super(null, null, false, false);
        }
    }

    private interface BadCall {
        void run() throws Exception;
    }

    private void fail(String what) {
        failures.add("rank " + rank + "/" + size + ": " + what);
    }

    /**
     * {@code call} must throw IllegalArgumentException whose message contains, for each group in {@code mentions}, at
     * least one of the group's '|'-separated words (case-insensitive); the {@code untouched} buffers must still hold
     * only the sentinel; then a correct AllReduce runs.
     */
    private void expectRejected(String what, BadCall call, List<MemorySegment> untouched, String... mentions) {
        try {
            call.run();
            fail(what + ": accepted (expected IllegalArgumentException)");
        } catch (IllegalArgumentException e) {
            String msg = e.getMessage() == null ? "" : e.getMessage();
            String lower = msg.toLowerCase(Locale.ROOT);
            for (String group : mentions) {
                boolean found = false;
                for (String word : group.split("\\|")) found |= lower.contains(word.toLowerCase(Locale.ROOT));
                if (!found) {
                    fail(what + ": the message should name the problem (mention " + group.replace("|", " or ") + "): \""
                            + msg + "\"");
                }
            }
        } catch (Throwable t) {
            fail(what + ": threw " + ThreadRanks.stack(t) + "\n    instead of IllegalArgumentException");
        }
        for (MemorySegment s : untouched) {
            long bad = GuardedBuffers.firstNonSentinel(s, 0, s.byteSize());
            if (bad >= 0) {
                fail(what + ": data moved although the call was refused (byte " + bad + " of a " + s.byteSize()
                        + "-byte buffer changed)");
            }
        }
        stillInStep(what);
    }

    /** A checked AllReduce: the bad call consumed no operation and left no rank behind. */
    private void stillInStep(String after) {
        long seed = TestData.mix(0xBADL + seedNo++);
        int[] data = new int[COUNT];
        MemorySegment v = MemorySegment.ofArray(data);
        TestData.fill(v, seed, rank, COUNT, T, TestData.Dist.BITS);
        try {
            comm.allReduce(data, ReduceOp.SUM);
        } catch (Throwable t) {
            fail("the AllReduce after \"" + after + "\" threw " + ThreadRanks.stack(t)
                    + "\n    — the communicator did not stay usable; stopping");
            comm.abort();
            throw new StopException();
        }
        Reference.Reduction red = new Reference.Reduction(seed, size, T, ReduceOp.SUM, TestData.Dist.BITS);
        for (int i = 0; i < COUNT; i++) {
            if ((data[i] & 0xFFFF_FFFFL) != red.expected(i)) {
                fail("the AllReduce after \"" + after + "\" is wrong at index " + i + ": expected "
                        + (int) red.expected(i) + ", actual " + data[i] + " (ranks out of step?)");
                return;
            }
        }
    }

    private void all() {
        try (Arena arena = Arena.ofConfined();
                Arena shared = Arena.ofShared()) {
            negativeCounts(arena, shared);
            rootsOutOfRange(arena, shared);
            if (size > 1) peersOutOfRange(arena, shared);
            buffersTooSmall(arena, shared);
            allToAllInPlace(arena, shared);
            byteSizeOverflow(arena);
            if (size > 1) sendRecvBadCalls(arena, shared);
        }
        arrayOverloads();
    }

    /** A sentinel-filled native buffer of exactly {@code bytes} (no guard: its size is the point). */
    private static MemorySegment buffer(Arena arena, long bytes) {
        MemorySegment s = arena.allocate(Math.max(bytes, 0), 8);
        s.fill(GuardedBuffers.SENTINEL);
        return s;
    }

    private MemorySegment big(Arena arena) {
        return buffer(arena, size * BYTES);
    }

    private void negativeCounts(Arena a, Arena shared) {
        MemorySegment s = big(a);
        MemorySegment r = big(a);
        MemorySegment ss = big(shared);
        MemorySegment sr = big(shared);
        List<MemorySegment> both = List.of(s, r);
        List<MemorySegment> sharedBoth = List.of(ss, sr);
        expectRejected("allReduce count=-5", () -> comm.allReduce(s, r, -5, T, ReduceOp.SUM), both, "count", "-5");
        expectRejected("broadcast count=-5", () -> comm.broadcast(s, r, -5, T, 0), both, "count", "-5");
        expectRejected("reduce count=-5", () -> comm.reduce(s, r, -5, T, ReduceOp.SUM, 0), both, "count", "-5");
        expectRejected("allGather count=-5", () -> comm.allGather(s, r, -5, T), both, "count", "-5");
        expectRejected(
                "reduceScatter count=-5", () -> comm.reduceScatter(s, r, -5, T, ReduceOp.SUM), both, "count", "-5");
        expectRejected("allToAll count=-5", () -> comm.allToAll(s, r, -5, T), both, "count", "-5");
        if (size > 1) {
            expectRejected("send count=-5", () -> comm.send(s, -5, T, next()), both, "count", "-5");
            expectRejected("recv count=-5", () -> comm.recv(r, -5, T, prev()), both, "count", "-5");
        }
        expectRejected(
                "allReduceAsync count=-5",
                () -> comm.allReduceAsync(ss, sr, -5, T, ReduceOp.SUM),
                sharedBoth,
                "count",
                "-5");
        expectRejected(
                "broadcastAsync count=-5", () -> comm.broadcastAsync(ss, sr, -5, T, 0), sharedBoth, "count", "-5");
        expectRejected(
                "reduceAsync count=-5",
                () -> comm.reduceAsync(ss, sr, -5, T, ReduceOp.MAX, 0),
                sharedBoth,
                "count",
                "-5");
        expectRejected("allGatherAsync count=-5", () -> comm.allGatherAsync(ss, sr, -5, T), sharedBoth, "count", "-5");
        expectRejected(
                "reduceScatterAsync count=-5",
                () -> comm.reduceScatterAsync(ss, sr, -5, T, ReduceOp.SUM),
                sharedBoth,
                "count",
                "-5");
        expectRejected("allToAllAsync count=-5", () -> comm.allToAllAsync(ss, sr, -5, T), sharedBoth, "count", "-5");
        if (size > 1) {
            expectRejected("sendAsync count=-5", () -> comm.sendAsync(ss, -5, T, next()), sharedBoth, "count", "-5");
            expectRejected("recvAsync count=-5", () -> comm.recvAsync(sr, -5, T, prev()), sharedBoth, "count", "-5");
        }
    }

    private void rootsOutOfRange(Arena a, Arena shared) {
        MemorySegment s = big(a);
        MemorySegment r = big(a);
        MemorySegment ss = big(shared);
        MemorySegment sr = big(shared);
        for (int root : new int[] {-1, size}) {
            String v = Integer.toString(root);
            expectRejected(
                    "broadcast root=" + root, () -> comm.broadcast(s, r, COUNT, T, root), List.of(s, r), "root", v);
            expectRejected(
                    "broadcast in place root=" + root,
                    () -> comm.broadcast(r, r, COUNT, T, root),
                    List.of(r),
                    "root",
                    v);
            expectRejected(
                    "reduce root=" + root,
                    () -> comm.reduce(s, r, COUNT, T, ReduceOp.SUM, root),
                    List.of(s, r),
                    "root",
                    v);
            expectRejected(
                    "broadcastAsync root=" + root,
                    () -> comm.broadcastAsync(ss, sr, COUNT, T, root),
                    List.of(ss, sr),
                    "root",
                    v);
            expectRejected(
                    "reduceAsync root=" + root,
                    () -> comm.reduceAsync(ss, sr, COUNT, T, ReduceOp.PROD, root),
                    List.of(ss, sr),
                    "root",
                    v);
        }
    }

    private void peersOutOfRange(Arena a, Arena shared) {
        MemorySegment b = big(a);
        MemorySegment sb = big(shared);
        for (int peer : new int[] {-1, size}) {
            String v = Integer.toString(peer);
            expectRejected("send peer=" + peer, () -> comm.send(b, COUNT, T, peer), List.of(b), "peer", v);
            expectRejected("recv peer=" + peer, () -> comm.recv(b, COUNT, T, peer), List.of(b), "peer", v);
            expectRejected("sendAsync peer=" + peer, () -> comm.sendAsync(sb, COUNT, T, peer), List.of(sb), "peer", v);
            expectRejected("recvAsync peer=" + peer, () -> comm.recvAsync(sb, COUNT, T, peer), List.of(sb), "peer", v);
        }
    }

    /** One byte short of what {@code COUNT} INT32 elements (or {@code size} blocks of them) need. */
    private void buffersTooSmall(Arena a, Arena shared) {
        MemorySegment ok = big(a);
        MemorySegment small = buffer(a, BYTES - 1);
        MemorySegment smallBlocks = buffer(a, size * BYTES - 1);
        String need = "63|64"; // the message should give the size it got or the size it needs
        if (size > 1) need = need + "|" + (size * BYTES - 1) + "|" + (size * BYTES);
        expectRejected(
                "allReduce send 63 bytes for 16 INT32",
                () -> comm.allReduce(small, ok, COUNT, T, ReduceOp.SUM),
                List.of(small, ok),
                "send",
                need);
        expectRejected(
                "allReduce recv 63 bytes for 16 INT32",
                () -> comm.allReduce(ok, small, COUNT, T, ReduceOp.SUM),
                List.of(small, ok),
                "recv",
                need);
        expectRejected(
                "broadcast recv 63 bytes for 16 INT32",
                () -> comm.broadcast(ok, small, COUNT, T, 0),
                List.of(small, ok),
                "recv",
                need);
        expectRejected(
                "reduce send 63 bytes for 16 INT32",
                () -> comm.reduce(small, ok, COUNT, T, ReduceOp.SUM, size - 1),
                List.of(small, ok),
                "send",
                need);
        expectRejected(
                "allGather send 63 bytes for 16 INT32",
                () -> comm.allGather(small, ok, COUNT, T),
                List.of(small, ok),
                "send",
                need);
        expectRejected(
                "allGather recv " + (size * BYTES - 1) + " bytes for " + size + " × 16 INT32",
                () -> comm.allGather(ok, smallBlocks, COUNT, T),
                List.of(smallBlocks, ok),
                "recv",
                need);
        expectRejected(
                "reduceScatter send " + (size * BYTES - 1) + " bytes for " + size + " × 16 INT32",
                () -> comm.reduceScatter(smallBlocks, ok, COUNT, T, ReduceOp.SUM),
                List.of(smallBlocks, ok),
                "send",
                need);
        expectRejected(
                "reduceScatter recv 63 bytes for 16 INT32",
                () -> comm.reduceScatter(ok, small, COUNT, T, ReduceOp.SUM),
                List.of(small, ok),
                "recv",
                need);
        expectRejected(
                "allToAll send " + (size * BYTES - 1) + " bytes for " + size + " × 16 INT32",
                () -> comm.allToAll(smallBlocks, ok, COUNT, T),
                List.of(smallBlocks, ok),
                "send",
                need);
        expectRejected(
                "allToAll recv " + (size * BYTES - 1) + " bytes for " + size + " × 16 INT32",
                () -> comm.allToAll(ok, smallBlocks, COUNT, T),
                List.of(smallBlocks, ok),
                "recv",
                need);
        if (size > 1) {
            expectRejected(
                    "send buffer 63 bytes for 16 INT32",
                    () -> comm.send(small, COUNT, T, next()),
                    List.of(small),
                    need);
            expectRejected(
                    "recv buffer 63 bytes for 16 INT32",
                    () -> comm.recv(small, COUNT, T, prev()),
                    List.of(small),
                    need);
        }
        MemorySegment sOk = big(shared);
        MemorySegment sSmall = buffer(shared, BYTES - 1);
        expectRejected(
                "allReduceAsync recv 63 bytes for 16 INT32",
                () -> comm.allReduceAsync(sOk, sSmall, COUNT, T, ReduceOp.SUM),
                List.of(sOk, sSmall),
                "recv",
                need);
        expectRejected(
                "allGatherAsync send 63 bytes for 16 INT32",
                () -> comm.allGatherAsync(sSmall, sOk, COUNT, T),
                List.of(sOk, sSmall),
                "send",
                need);
        // The same calls with exactly enough bytes are fine (the boundary is count × size, not more).
        MemorySegment exact = buffer(a, BYTES);
        MemorySegment exact2 = buffer(a, BYTES);
        try {
            comm.allReduce(exact, exact2, COUNT, T, ReduceOp.MAX);
        } catch (Throwable t) {
            fail("allReduce with buffers of exactly 16 × 4 bytes threw " + ThreadRanks.stack(t));
            comm.abort();
            throw new StopException();
        }
    }

    private void rootOnlyBuffersTooSmall(Arena a) {
        MemorySegment ok = big(a);
        MemorySegment small = buffer(a, BYTES - 1);
        String need = "63|64";
        expectRejected(
                "broadcast send 63 bytes for 16 INT32 (every rank)",
                () -> comm.broadcast(small, ok, COUNT, T, 0),
                List.of(small, ok),
                "send",
                need);
        expectRejected(
                "reduce recv 63 bytes for 16 INT32 (every rank)",
                () -> comm.reduce(ok, small, COUNT, T, ReduceOp.SUM, 0),
                List.of(small, ok),
                "recv",
                need);
    }

    /** Async calls need segments the progress thread can use; a confined one is refused on every rank. */
    private void rootOnlyBuffersConfined(Arena confined, Arena shared) {
        MemorySegment conf = big(confined);
        MemorySegment ok = big(shared);
        expectRejected(
                "broadcastAsync with a confined send (every rank)",
                () -> comm.broadcastAsync(conf, ok, COUNT, T, size - 1),
                List.of(conf, ok),
                "confined|thread|shared");
        expectRejected(
                "reduceAsync with a confined recv (every rank)",
                () -> comm.reduceAsync(ok, conf, COUNT, T, ReduceOp.SUM, size - 1),
                List.of(conf, ok),
                "confined|thread|shared");
    }

    /**
     * AllToAll in place is supported (the planner swaps blocks pairwise through scratch), so it must give the right
     * answer; a send and recv that overlap without being the same memory are refused.
     */
    private void allToAllInPlace(Arena a, Arena shared) {
        MemorySegment b = big(a);
        for (int k = 0; k < size; k++) {
            for (int j = 0; j < COUNT; j++) {
                b.setAtIndex(ValueLayout.JAVA_INT, (long) k * COUNT + j, rank * 100_000 + k * 1000 + j);
            }
        }
        try {
            comm.allToAll(b, b, COUNT, T);
            for (int k = 0; k < size; k++) {
                for (int j = 0; j < COUNT; j++) {
                    int expected = k * 100_000 + rank * 1000 + j;
                    int actual = b.getAtIndex(ValueLayout.JAVA_INT, (long) k * COUNT + j);
                    if (actual != expected) {
                        fail("allToAll in place: block " + k + " element " + j + " is " + actual + ", expected "
                                + expected);
                        return;
                    }
                }
            }
        } catch (Throwable t) {
            fail("allToAll in place threw " + ThreadRanks.stack(t));
            return;
        }
        MemorySegment wide = buffer(shared, (size + 1) * BYTES);
        MemorySegment send = wide.asSlice(0, size * BYTES);
        MemorySegment shifted = wide.asSlice(BYTES, size * BYTES);
        expectRejected(
                "allToAll with overlapping, shifted send and recv",
                () -> comm.allToAll(send, shifted, COUNT, T),
                List.of(wide),
                "overlap");
        expectRejected(
                "allToAllAsync with overlapping, shifted send and recv",
                () -> comm.allToAllAsync(send, shifted, COUNT, T),
                List.of(wide),
                "overlap");
    }

    /** A count whose byte size does not fit in a long must be refused, not wrapped into a small size. */
    private void byteSizeOverflow(Arena a) {
        MemorySegment b = big(a);
        MemorySegment b2 = big(a);
        long huge = Long.MAX_VALUE / 4 + 1; // × 8 bytes wraps negative
        expectRejected(
                "allReduce count=" + huge + " INT64",
                () -> comm.allReduce(b, b2, huge, DataType.INT64, ReduceOp.SUM),
                List.of(b, b2),
                "count|send|recv|overflow|large");
        expectRejected(
                "allGather count=" + (Long.MAX_VALUE / 2) + " INT8",
                () -> comm.allGather(b, b2, Long.MAX_VALUE / 2, DataType.INT8),
                List.of(b, b2),
                "count|send|recv|overflow|large");
    }

    /**
     * SendRecv: negative count, each peer out of range, this rank as one peer only, each buffer one byte short, send
     * and recv overlapping without being the same memory, arrays of different lengths — blocking and async.
     */
    private void sendRecvBadCalls(Arena a, Arena shared) {
        MemorySegment s = big(a);
        MemorySegment r = big(a);
        MemorySegment ss = big(shared);
        MemorySegment sr = big(shared);
        List<MemorySegment> both = List.of(s, r);
        List<MemorySegment> sharedBoth = List.of(ss, sr);
        expectRejected("sendRecv count=-5", () -> comm.sendRecv(s, next(), r, prev(), -5, T), both, "count", "-5");
        expectRejected(
                "sendRecvAsync count=-5",
                () -> comm.sendRecvAsync(ss, next(), sr, prev(), -5, T),
                sharedBoth,
                "count",
                "-5");
        for (int peer : new int[] {-1, size}) {
            String v = Integer.toString(peer);
            expectRejected(
                    "sendRecv sendPeer=" + peer, () -> comm.sendRecv(s, peer, r, prev(), COUNT, T), both, "peer", v);
            expectRejected(
                    "sendRecv recvPeer=" + peer, () -> comm.sendRecv(s, next(), r, peer, COUNT, T), both, "peer", v);
            expectRejected(
                    "sendRecvAsync sendPeer=" + peer,
                    () -> comm.sendRecvAsync(ss, peer, sr, prev(), COUNT, T),
                    sharedBoth,
                    "peer",
                    v);
            expectRejected(
                    "sendRecvAsync recvPeer=" + peer,
                    () -> comm.sendRecvAsync(ss, next(), sr, peer, COUNT, T),
                    sharedBoth,
                    "peer",
                    v);
        }
        // Itself both ways is a local copy; one way only is refused.
        expectRejected(
                "sendRecv sendPeer=rank, recvPeer=prev",
                () -> comm.sendRecv(s, rank, r, prev(), COUNT, T),
                both,
                "peer",
                "rank|itself|self");
        expectRejected(
                "sendRecv sendPeer=next, recvPeer=rank",
                () -> comm.sendRecv(s, next(), r, rank, COUNT, T),
                both,
                "peer",
                "rank|itself|self");
        expectRejected(
                "sendRecvAsync sendPeer=rank, recvPeer=prev",
                () -> comm.sendRecvAsync(ss, rank, sr, prev(), COUNT, T),
                sharedBoth,
                "peer",
                "rank|itself|self");

        MemorySegment small = buffer(a, BYTES - 1);
        MemorySegment ok = big(a);
        expectRejected(
                "sendRecv send 63 bytes for 16 INT32",
                () -> comm.sendRecv(small, next(), ok, prev(), COUNT, T),
                List.of(small, ok),
                "send",
                "63|64");
        expectRejected(
                "sendRecv recv 63 bytes for 16 INT32",
                () -> comm.sendRecv(ok, next(), small, prev(), COUNT, T),
                List.of(small, ok),
                "recv",
                "63|64");

        MemorySegment wide = buffer(shared, 2 * BYTES);
        MemorySegment first = wide.asSlice(0, BYTES + 4);
        MemorySegment shifted = wide.asSlice(4, BYTES + 4);
        expectRejected(
                "sendRecv with overlapping, shifted send and recv",
                () -> comm.sendRecv(first, next(), shifted, prev(), COUNT, T),
                List.of(wide),
                "overlap");
        expectRejected(
                "sendRecvAsync with overlapping, shifted send and recv",
                () -> comm.sendRecvAsync(first, next(), shifted, prev(), COUNT, T),
                List.of(wide),
                "overlap");

        int[] shortRecv = filled(new int[COUNT - 1]);
        expectRejected(
                "sendRecv(int[16], next, int[15], prev)",
                () -> comm.sendRecv(filled(new int[COUNT]), next(), shortRecv, prev()),
                List.of(MemorySegment.ofArray(shortRecv)),
                "length|recv");
    }

    private void arrayOverloads() {
        int[] ints = filled(new int[COUNT]);
        short[] shorts = new short[COUNT];
        byte[] bytes = new byte[COUNT];
        long[] longs = new long[COUNT];
        double[] doubles = new double[COUNT];
        MemorySegment.ofArray(shorts).fill(GuardedBuffers.SENTINEL);
        MemorySegment.ofArray(bytes).fill(GuardedBuffers.SENTINEL);
        MemorySegment.ofArray(longs).fill(GuardedBuffers.SENTINEL);
        MemorySegment.ofArray(doubles).fill(GuardedBuffers.SENTINEL);
        expectRejected(
                "allReduce(int[], FLOAT64, SUM)",
                () -> comm.allReduce(ints, DataType.FLOAT64, ReduceOp.SUM),
                List.of(MemorySegment.ofArray(ints)),
                "FLOAT64");
        expectRejected(
                "allReduce(short[], FLOAT32, MAX)",
                () -> comm.allReduce(shorts, DataType.FLOAT32, ReduceOp.MAX),
                List.of(MemorySegment.ofArray(shorts)),
                "FLOAT32");
        expectRejected(
                "allReduce(byte[], INT32, SUM)",
                () -> comm.allReduce(bytes, DataType.INT32, ReduceOp.SUM),
                List.of(MemorySegment.ofArray(bytes)),
                "INT32");
        expectRejected(
                "allReduceAsync(long[], FLOAT16, SUM)",
                () -> comm.allReduceAsync(longs, DataType.FLOAT16, ReduceOp.SUM),
                List.of(MemorySegment.ofArray(longs)),
                "FLOAT16");
        expectRejected(
                "reduce(double[], FLOAT32, MIN, 0)",
                () -> comm.reduce(doubles, DataType.FLOAT32, ReduceOp.MIN, 0),
                List.of(MemorySegment.ofArray(doubles)),
                "FLOAT32");
        int[] rsRecv = filled(new int[COUNT]);
        expectRejected(
                "reduceScatter(int[], int[], INT64, SUM)",
                () -> comm.reduceScatter(filled(new int[size * COUNT]), rsRecv, DataType.INT64, ReduceOp.SUM),
                List.of(MemorySegment.ofArray(rsRecv)),
                "INT64");

        // shapes: AllGather's recv must hold size × send, ReduceScatter's send size × recv, AllToAll size equal blocks
        int[] agRecv = filled(new int[size * COUNT - 1]);
        expectRejected(
                "allGather(int[16], int[" + (size * COUNT - 1) + "])",
                () -> comm.allGather(filled(new int[COUNT]), agRecv),
                List.of(MemorySegment.ofArray(agRecv)),
                "recv");
        int[] rsRecv2 = filled(new int[COUNT]);
        expectRejected(
                "reduceScatter(int[" + (size * COUNT - 1) + "], int[16])",
                () -> comm.reduceScatter(filled(new int[size * COUNT - 1]), rsRecv2, DataType.INT32, ReduceOp.SUM),
                List.of(MemorySegment.ofArray(rsRecv2)),
                "send");
        if (size > 1) {
            int[] a2aRecv = filled(new int[size * COUNT + 1]);
            expectRejected(
                    "allToAll(int[" + (size * COUNT + 1) + "], …) not a multiple of size",
                    () -> comm.allToAll(filled(new int[size * COUNT + 1]), a2aRecv),
                    List.of(MemorySegment.ofArray(a2aRecv)),
                    "multiple|size");
        }
    }

    private static int[] filled(int[] a) {
        MemorySegment.ofArray(a).fill(GuardedBuffers.SENTINEL);
        return a;
    }

    private int next() {
        return (rank + 1) % size;
    }

    private int prev() {
        return (rank + size - 1) % size;
    }
}
