package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared-memory transport as users meet it: what it leaves in /dev/shm, what it says, how it fails. */
@Timeout(180)
class SharedMemoryTest {
    private static final Path DEV_SHM = Path.of("/dev/shm");

    private static List<String> jcclFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("jccl-"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void nothingIsLeftInDevShmWhileRanksRunNorAfter() throws Exception {
        List<Object> results = TestRanks.run(3, TestRanks.loopback(Duration.ofSeconds(30)), (rank, c) -> {
            float[] big = new float[1 << 20];
            c.allReduce(big, ReduceOp.SUM); // ring: pair segments for (0,1), (1,2), (0,2)
            for (int peer = 0; peer < 3; peer++) {
                if (peer != rank) c.sendRecv(new float[8], peer, new float[8], peer);
            }
            c.barrier();
            c.barrier();
            List<String> left = jcclFiles(DEV_SHM);
            c.barrier(); // no rank closes before every rank has looked
            return left;
        });
        for (Object r : results) {
            assertEquals(List.of(), r, "segments are unlinked once every rank that needs them has mapped them");
        }
        assertEquals(List.of(), jcclFiles(DEV_SHM));
    }

    /**
     * The lower rank of a pair makes the pair's segment and writes its send there at once; if it then closes before the
     * higher rank has opened the segment, closing must not take the data away (seen in the conformance battery: a Bruck
     * AllGather on 7 ranks, whose rank 1 needs nothing from rank 4 and closed first).
     */
    @Test
    void aRankThatSendsAndClosesBeforeItsPeerOpenedTheRingStillDelivers() throws Exception {
        List<Object> results = TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(30)), (rank, c) -> {
            if (rank == 0) {
                c.send(new int[] {7, 11, 13}, 1);
                return "sent";
            }
            Thread.sleep(500); // rank 0 is in close by now
            int[] got = new int[3];
            c.recv(got, 0);
            return Arrays.toString(got);
        });
        assertEquals(List.of("sent", "[7, 11, 13]"), results);
        assertEquals(List.of(), jcclFiles(DEV_SHM), "the segment is unlinked once rank 1 mapped it");
    }

    @Test
    void aDevShmTooSmallForTheRingsIsAClearErrorOnEveryRank() throws Exception {
        onASmallDevShm("jccl-small-shm", "1m", dir -> {
            long start = System.nanoTime();
            List<Object> results = TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(60)), (rank, c) -> {
                c.allReduce(new float[1 << 20], ReduceOp.SUM); // needs the 8 MiB pair segment
                return "no error";
            });
            for (Object r : results) {
                JcclException e = assertInstanceOf(JcclException.class, r);
                assertTrue(e.getMessage().contains("is too small"), e.getMessage());
                assertTrue(
                        e.getMessage().contains("--shm-size")
                                && e.getMessage().contains("JCCL_SHM_DISABLE=1")
                                && e.getMessage().contains("medium: Memory"),
                        e.getMessage());
            }
            assertTrue((System.nanoTime() - start) / 1e9 < 30, "both ranks fail long before the timeout");
            assertEquals(List.of(), jcclFiles(dir), "a failed creation leaves no file behind");
        });
    }

    @Test
    void aDevShmTooSmallForEvenTheRankPagesFailsAtInit() throws Exception {
        onASmallDevShm("jccl-tiny-shm", "64k", dir -> {
            List<Object> results =
                    TestRanks.run(2, TestRanks.loopback(Duration.ofSeconds(20)), (rank, c) -> "no error");
            boolean explained = false;
            for (Object r : results) {
                JcclException e = assertInstanceOf(JcclException.class, r);
                explained |= e.getMessage().contains("is too small")
                        && e.getMessage().contains("JCCL_SHM_DISABLE=1");
            }
            assertTrue(explained, results.toString());
        });
    }

    @Test
    void ranksThatDisagreeOnSettingsRefuseToStart() throws Exception {
        Config base = TestRanks.loopback(Duration.ofSeconds(20));
        UniqueId id = UniqueId.create(base);
        List<Object> results = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        Object[] out = new Object[2];
        for (int r = 0; r < 2; r++) {
            int rank = r;
            Thread t = new Thread(() -> {
                try (Communicator c = Jccl.init(
                        rank,
                        2,
                        id,
                        base.toBuilder().algo(rank == 0 ? "Ring" : null).build())) {
                    out[rank] = "started";
                } catch (Throwable e) {
                    out[rank] = e;
                }
            });
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) t.join(60_000);
        results.addAll(Arrays.asList(out));
        for (Object r : results) {
            JcclException e = assertInstanceOf(JcclException.class, r);
            assertTrue(
                    e.getMessage().contains("JCCL_ALGO=Ring") && e.getMessage().contains("JCCL_ALGO=(unset)"),
                    e.getMessage());
        }
    }

    @Test
    void debugLinesNameTheTransportOfEveryPeerAndTheTuningTable() throws Exception {
        UniqueId id = UniqueId.create(TestRanks.loopback(Duration.ofSeconds(20)));
        String log = PrintingRanks.printedBy(
                3,
                rank -> {
                    Config config = TestRanks.loopback(Duration.ofSeconds(20)).toBuilder()
                            .debugLevel(Config.DebugLevel.INFO)
                            .debugSubsys("INIT,TUNING")
                            .hostId(rank < 2 ? "host-a" : "host-b")
                            .build();
                    return () -> {
                        try (Communicator c = Jccl.init(rank, 3, id, config)) {
                            c.barrier();
                        }
                    };
                },
                60_000);
        assertContainsMatch(log, "\\[0] JCCL INFO INIT : peer 1 \\([^)]*\\) via SHM/direct \\(same host\\)");
        assertContainsMatch(
                log, "\\[0] JCCL INFO INIT : peer 2 \\([^)]*\\) via NET/Socket/127\\.0\\.0\\.1 \\(different host\\)");
        assertContainsMatch(
                log, "\\[2] JCCL INFO INIT : peer 0 \\([^)]*\\) via NET/Socket/127\\.0\\.0\\.1 \\(different host\\)");
        assertTrue(log.contains("JCCL INFO TUNING : Algorithm"), log);
        assertContainsMatch(log, "JCCL INFO TUNING : AllReduce +\\|");
    }

    /** {@code log} contains a match of {@code regex} (which may span lines). */
    private static void assertContainsMatch(String log, String regex) {
        assertTrue(log.matches("(?s).*" + regex + ".*"), log);
    }

    /**
     * Non-roots of a one-shot Broadcast or Reduce leave as soon as they have what they need, so ranks drift apart; a
     * rank must not rewrite its low-latency slot while a slow peer may still read it. Skewed ranks, mixed with
     * ring-sized operations, every result checked.
     */
    @Test
    void lowLatencySlotsAreReusedOnlyOnceEveryRankIsDoneWithThem() throws Exception {
        int size = 3;
        List<Object> results = TestRanks.run(size, TestRanks.loopback(Duration.ofSeconds(60)), (rank, c) -> {
            Random pause = new Random(rank);
            int wrong = 0;
            for (int i = 0; i < 600; i++) {
                int root = i % size;
                long[] b = new long[16];
                if (rank == root) Arrays.fill(b, i * 1000L + root);
                c.broadcast(b, root);
                for (long v : b) {
                    if (v != i * 1000L + root) wrong++;
                }
                long[] r = new long[16];
                Arrays.fill(r, rank + i);
                c.reduce(r, dev.jccl.DataType.INT64, ReduceOp.SUM, (i + 1) % size);
                if (rank == (i + 1) % size) {
                    for (long v : r) {
                        if (v != 3L * i + 3) wrong++;
                    }
                }
                if (i % 50 == 0) {
                    float[] big = new float[1 << 18];
                    Arrays.fill(big, 1);
                    c.allReduce(big, ReduceOp.SUM);
                    for (float v : big) {
                        if (v != size) wrong++;
                    }
                }
                if (rank == 2 && pause.nextInt(10) == 0) Thread.sleep(1);
            }
            return wrong;
        });
        assertEquals(List.of(0, 0, 0), results);
    }

    /**
     * Chunks of up to 16 bytes of a Broadcast or Reduce go to small records, a ring deeper than the slots', so their
     * writers run further ahead. A reader that pauses now and then lets the writer fill that ring; 64-byte calls mixed
     * in take slots from the same chunk numbers. Every value is checked: a record rewritten before its slowest reader
     * took it would show as a wrong value or a wait past the deadline.
     */
    @Test
    void smallRecordsAreReusedOnlyOnceEveryRankIsDoneWithThem() throws Exception {
        int size = 3;
        int calls = 2000;
        List<Object> results = TestRanks.run(size, TestRanks.loopback(Duration.ofSeconds(60)), (rank, c) -> {
            Random pause = new Random(rank);
            int wrong = 0;
            for (int i = 0; i < calls; i++) { // root 0 runs ahead of the readers
                long[] b = new long[i % 101 == 0 ? 8 : 1 + i % 2];
                if (rank == 0) Arrays.fill(b, i * 7L + 1);
                c.broadcast(b, 0);
                for (long v : b) {
                    if (v != i * 7L + 1) wrong++;
                }
                if (rank == 2 && pause.nextInt(400) == 0) Thread.sleep(2);
            }
            for (int i = 0; i < calls; i++) { // ranks 1 and 2 run ahead of the root
                long[] r = new long[i % 101 == 0 ? 8 : 1 + i % 2];
                Arrays.fill(r, rank * 3L + i);
                c.reduce(r, dev.jccl.DataType.INT64, ReduceOp.SUM, 0);
                if (rank == 0) {
                    for (long v : r) {
                        if (v != 9L + 3L * i) wrong++;
                    }
                }
                if (rank == 0 && pause.nextInt(400) == 0) Thread.sleep(2);
            }
            return wrong;
        });
        assertEquals(List.of(0, 0, 0), results);
    }

    /**
     * Operations too big for the caches reduce with the streaming kernels: still exact, over both transports and every
     * op.
     */
    @Test
    void reductionsTooBigForTheCachesAreExact() throws Exception {
        int count = (int) (dev.jccl.reduce.ReduceKernels.STREAMING_BYTES / 4) + 13;
        for (Link link : Link.values()) {
            List<Object> results = TestRanks.run(2, link.config(Duration.ofSeconds(60)), (rank, c) -> {
                int wrong = 0;
                for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD}) {
                    int[] data = new int[count];
                    for (int i = 0; i < count; i++) data[i] = (i % 7) + rank * 3;
                    c.allReduce(data, dev.jccl.DataType.INT32, op);
                    for (int i = 0; i < count; i++) {
                        int a = i % 7;
                        int b = i % 7 + 3;
                        int expected = switch (op) {
                            case SUM -> a + b;
                            case MAX -> b;
                            case MIN -> a;
                            default -> a * b;
                        };
                        if (data[i] != expected) wrong++;
                    }
                }
                return wrong;
            });
            assertEquals(List.of(0, 0), results, link.toString());
        }
    }

    private interface ShmBody {
        void run(Path dir) throws Exception;
    }

    /**
     * Runs {@code body} with the shared-memory segments' directory on a fresh tmpfs of {@code size} (skipped where
     * mounting one is not allowed), then puts the directory back and unmounts the tmpfs.
     */
    private static void onASmallDevShm(String prefix, String size, ShmBody body) throws Exception {
        Path dir = Files.createTempDirectory(prefix);
        Assumptions.assumeTrue(mountTmpfs(dir, size), "cannot mount a small tmpfs here (needs root); skipping");
        String before = System.getProperty("jccl.shm.dir");
        System.setProperty("jccl.shm.dir", dir.toString());
        try {
            body.run(dir);
        } finally {
            restore(before);
            unmount(dir);
        }
    }

    private static boolean mountTmpfs(Path dir, String size) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(
                            "mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=1777", "tmpfs", dir.toString())
                    .redirectErrorStream(true)
                    .start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static void unmount(Path dir) throws IOException, InterruptedException {
        new ProcessBuilder("umount", dir.toString())
                .redirectErrorStream(true)
                .start()
                .waitFor(10, TimeUnit.SECONDS);
        Files.deleteIfExists(dir);
    }

    private static void restore(String before) {
        if (before == null) System.clearProperty("jccl.shm.dir");
        else System.setProperty("jccl.shm.dir", before);
    }
}
