package dev.jccl.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * sendRecv beyond the battery: its cases again with the smallest chunks (so even small counts take many steps, and
 * counts are rarely a multiple of a chunk), and exchanges larger than the sockets can buffer, where a ring of blocking
 * send-then-recv calls deadlocks (on this machine's loopback it does from about 8 MiB per rank; these use 32 MiB).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SendRecvTest {
    /** Smallest staging buffer the config allows: 1 KiB chunks. */
    private static final Config SMALL_CHUNKS = Config.builder()
            .socketIfname("lo")
            .timeout(Duration.ofSeconds(60))
            .buffSize(Config.MIN_BUFFSIZE)
            .build();

    private static final ConformanceBody.Plan SMALL_CHUNK_PLAN =
            new ConformanceBody.Plan(new long[] {0, 1, 2, 7, 13, 97, 1021}, 4099, 96L << 10, true, 8);

    private static final long BIG_BYTES = 32L << 20;

    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void everyPatternWithOneKibChunks(int size) {
        List<List<String>> results = ThreadRanks.run(
                size,
                SMALL_CHUNKS,
                Duration.ofMinutes(4),
                c -> ConformanceBody.runSendRecv(
                        c, SMALL_CHUNK_PLAN, c.rank() == 0 ? System.out::println : line -> {}));
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    /**
     * Rank {@code rank}'s data: element i of a message is {@code rank << 48 | salt << 40 | i}, so a misplaced or
     * foreign long shows.
     */
    private static void fill(MemorySegment s, int rank, int salt) {
        long n = s.byteSize() / 8;
        for (long i = 0; i < n; i++) s.setAtIndex(ValueLayout.JAVA_LONG, i, (long) rank << 48 | (long) salt << 40 | i);
    }

    private static String check(String what, MemorySegment s, int rank, int salt) {
        long n = s.byteSize() / 8;
        for (long i = 0; i < n; i++) {
            long expected = (long) rank << 48 | (long) salt << 40 | i;
            long actual = s.getAtIndex(ValueLayout.JAVA_LONG, i);
            if (actual != expected) {
                return what + ": long " + i + " of " + n + " is 0x" + Long.toHexString(actual) + ", expected 0x"
                        + Long.toHexString(expected) + " (rank " + rank + "'s data)";
            }
        }
        return null;
    }

    /**
     * 32 MiB per rank in a ring, blocking and async, out of place and in place, then in pairs against a partner that
     * sends everything before it receives, and one that receives everything before it sends: neither direction of
     * sendRecv may wait for the other.
     */
    @ParameterizedTest(name = "{0} thread ranks")
    @ValueSource(ints = {2, 3})
    void exchangesLargerThanTheSocketBuffersComplete(int size) {
        Config config = ThreadRanks.loopbackConfig(Duration.ofSeconds(60));
        List<List<String>> results = ThreadRanks.run(size, config, Duration.ofMinutes(4), c -> bigExchanges(c));
        assertTrue(ThreadRanks.allPassed(results), () -> ThreadRanks.report(results));
    }

    private static List<String> bigExchanges(Communicator c) {
        int rank = c.rank();
        int size = c.size();
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        long count = BIG_BYTES / 8;
        List<String> failures = new ArrayList<>();
        java.util.function.Consumer<String> note = f -> {
            if (f != null) failures.add("rank " + rank + "/" + size + ": " + f);
        };
        try (Arena arena = Arena.ofShared()) {
            MemorySegment send = arena.allocate(BIG_BYTES, 64);
            MemorySegment recv = arena.allocate(BIG_BYTES, 64);

            fill(send, rank, 1);
            c.sendRecv(send, next, recv, prev, count, DataType.INT64);
            note.accept(check("ring, recv", recv, prev, 1));
            note.accept(check("ring, send (must not change)", send, rank, 1));

            fill(send, rank, 2);
            c.sendRecv(send, next, send, prev, count, DataType.UINT64);
            note.accept(check("ring in place", send, prev, 2));

            fill(send, rank, 3);
            CompletableFuture<Void> f = c.sendRecvAsync(send, prev, recv, next, count, DataType.FLOAT64);
            f.get(90, TimeUnit.SECONDS);
            note.accept(check("reversed ring, async", recv, next, 3));

            int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
            for (int order = 0; order < 2; order++) {
                int salt = 4 + order;
                fill(send, rank, salt);
                String how = order == 0 ? "sends first" : "receives first";
                if (rank % 2 == 0 || partner == rank) {
                    c.sendRecv(send, partner, recv, partner, count, DataType.INT64);
                } else if (order == 0) {
                    c.send(send, count, DataType.INT64, partner);
                    c.recv(recv, count, DataType.INT64, partner);
                } else {
                    c.recv(recv, count, DataType.INT64, partner);
                    c.send(send, count, DataType.INT64, partner);
                }
                note.accept(check("pairs, the odd rank " + how + ", recv", recv, partner, salt));
            }
        } catch (Exception e) {
            failures.add("rank " + rank + "/" + size + ": threw " + ThreadRanks.stack(e));
            c.abort();
        }
        return failures;
    }

    /**
     * The same exchange as two blocking calls deadlocks at this size, which is what makes the test above prove
     * something; on a machine whose sockets buffer that much it proves nothing, and this says so by being skipped.
     */
    @Test
    void aBlockingSendThenRecvExchangeOfThatSizeDeadlocks() {
        Config config = ThreadRanks.loopbackConfig(Duration.ofSeconds(3));
        List<List<String>> results = ThreadRanks.run(2, config, Duration.ofMinutes(1), c -> {
            try (Arena arena = Arena.ofShared()) {
                MemorySegment send = arena.allocate(BIG_BYTES);
                MemorySegment recv = arena.allocate(BIG_BYTES);
                c.send(send, BIG_BYTES / 8, DataType.INT64, 1 - c.rank());
                c.recv(recv, BIG_BYTES / 8, DataType.INT64, 1 - c.rank());
                return List.of();
            } catch (RuntimeException e) {
                return List.of(e.toString());
            }
        });
        assumeTrue(
                !ThreadRanks.allPassed(results),
                "the sockets here buffer " + (BIG_BYTES >> 20) + " MiB each way: "
                        + "the large-exchange tests do not show that sendRecv avoids a deadlock");
        assertTrue(
                ThreadRanks.report(results).contains("timed out"),
                () -> "expected a timeout; got " + ThreadRanks.report(results));
    }
}
