package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.plan.Collective;
import dev.jccl.plan.Tuner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each rank's last operations, kept without allocating, written on failure and on request. */
@Timeout(120)
class FlightRecorderTest {
    private static final Pattern OPERATION =
            Pattern.compile("\\{\"index\": (\\d+), \"op\": \"(\\w+)\", \"seq\": (\\d+), .*?\"state\": \"(\\w+)\"}");

    @TempDir
    Path dir;

    /** Loopback ranks that keep the last 16 operations and write their recorders into {@code dir}. */
    private static Config recordingInto(Path dir) {
        return keeping(16).traceDir(dir.toString()).build();
    }

    /** Loopback ranks whose recorders keep the last {@code operations} operations (0: no recorder). */
    private static Config.Builder keeping(int operations) {
        return TestRanks.loopback(Duration.ofSeconds(30)).toBuilder().traceBuffer(operations);
    }

    @Test
    void theRingKeepsTheNewestOperationsOldestFirstWithTheirStates() throws Exception {
        FlightRecorder r = new FlightRecorder(4, 1, 3, "host:pid 7", 0xabcL);
        for (int i = 0; i < 6; i++) {
            r.started(
                    new OpContext(Collective.ALL_REDUCE, 10, DataType.FLOAT32, ReduceOp.SUM, -1, i, System.nanoTime()),
                    new Tuner.Choice(Tuner.Algorithm.RING, Tuner.Protocol.SIMPLE));
            if (i < 5) r.ended(true);
        }
        String json = r.toJson(null);
        List<String[]> ops = operations(json);
        assertEquals(4, ops.size(), json);
        assertEquals(List.of("2", "3", "4", "5"), ops.stream().map(o -> o[0]).toList());
        assertEquals(
                List.of("completed", "completed", "completed", "started"),
                ops.stream().map(o -> o[3]).toList());
        assertTrue(json.contains("\"rank\": 1") && json.contains("\"size\": 3") && json.contains("\"recorded\": 6"));
        assertTrue(json.contains("\"bytes\": 40") && json.contains("\"algorithm\": \"Ring/Simple\""), json);
    }

    /** Every field of an entry comes back out of the dump as it went in, the packed ones and their "none" too. */
    @Test
    void eachEntryKeepsItsOwnFields() {
        FlightRecorder r = new FlightRecorder(3, 0, 4000, "host:pid 7", 0xabcL);
        r.started(
                new OpContext(Collective.BROADCAST, 7, DataType.BFLOAT16, null, 3999, 5, 1_000_000),
                new Tuner.Choice(Tuner.Algorithm.ONE_SHOT, Tuner.Protocol.LL));
        r.endedAtOnce();
        r.started(new OpContext(Collective.ALL_REDUCE, 9, DataType.INT64, ReduceOp.MAX, -1, 6, 2_000_000), null);
        r.ended(false);
        r.started(new OpContext(Collective.SEND, 3, DataType.UINT8, null, 2, 0, 3_000_000), null);
        String json = r.toJson(null);
        String[] entries = json.split("\\{\"index\": ");
        assertEquals(4, entries.length, json);
        String broadcast = entries[1];
        assertTrue(broadcast.contains("\"op\": \"Broadcast\"") && broadcast.contains("\"seq\": 5"), broadcast);
        assertTrue(broadcast.contains("\"type\": \"BFLOAT16\"") && broadcast.contains("\"bytes\": 14"), broadcast);
        assertTrue(broadcast.contains("\"reduceOp\": null") && broadcast.contains("\"peer\": 3999"), broadcast);
        assertTrue(broadcast.contains("\"algorithm\": \"OneShot/LL\""), broadcast);
        assertTrue(broadcast.contains("\"durationMicros\": 0") && broadcast.contains("\"completed\""), broadcast);
        String allReduce = entries[2];
        assertTrue(allReduce.contains("\"reduceOp\": \"MAX\"") && allReduce.contains("\"peer\": -1"), allReduce);
        assertTrue(allReduce.contains("\"type\": \"INT64\"") && allReduce.contains("\"bytes\": 72"), allReduce);
        assertTrue(
                allReduce.contains("\"algorithm\": \"p2p or local\"") && allReduce.contains("\"failed\""), allReduce);
        String send = entries[3];
        assertTrue(send.contains("\"op\": \"Send\"") && send.contains("\"collective\": false"), send);
        assertTrue(send.contains("\"durationMicros\": null") && send.contains("\"started\""), send);
    }

    @Test
    void dumpTraceWritesEveryOperationOfThisRank() throws Exception {
        Config config = keeping(16).build();
        List<Object> results = TestRanks.run(2, config, (rank, c) -> {
            for (int i = 0; i < 3; i++) c.allReduce(new float[100], ReduceOp.SUM);
            c.broadcast(new int[5], 0);
            return c.dumpTrace(dir.resolve("rank" + rank + ".json"));
        });
        for (int rank = 0; rank < 2; rank++) {
            Path file = assertInstanceOf(Path.class, results.get(rank));
            List<String[]> ops = operations(Files.readString(file));
            assertEquals(4, ops.size());
            assertEquals(
                    List.of("AllReduce", "AllReduce", "AllReduce", "Broadcast"),
                    ops.stream().map(o -> o[1]).toList());
            assertEquals(
                    List.of("0", "1", "2", "3"), ops.stream().map(o -> o[2]).toList());
            assertTrue(ops.stream().allMatch(o -> o[3].equals("completed")));
        }
    }

    @Test
    void anOperationThatEndedAtOnceLastsZeroMicrosecondsAndOneThatWaitedIsTimed() throws Exception {
        FlightRecorder r = new FlightRecorder(4, 0, 2, "host:pid 7", 0xabcL);
        long start = System.nanoTime() - 5_000_000;
        r.started(new OpContext(Collective.BROADCAST, 2, DataType.FLOAT32, null, 0, 0, start), null);
        r.endedAtOnce();
        r.started(new OpContext(Collective.BROADCAST, 2, DataType.FLOAT32, null, 0, 1, start), null);
        r.ended(true);
        String json = r.toJson(null);
        assertEquals(
                List.of("completed", "completed"),
                operations(json).stream().map(o -> o[3]).toList(),
                json);
        List<Long> durations = durations(json);
        assertEquals(0, durations.get(0), json);
        assertTrue(durations.get(1) >= 5000, json);
    }

    /**
     * The shortcut of {@link FlightRecorder#endedAtOnce} must not hide a real wait: an 8-byte AllReduce whose peer
     * comes 50 ms late is recorded as lasting about that long on the rank that waited.
     */
    @Test
    void aSmallOperationThatWaitedForALatePeerIsTimed() throws Exception {
        Config config = keeping(16).build();
        List<Object> results = TestRanks.run(2, config, (rank, c) -> {
            float[] x = new float[2];
            c.allReduce(x, ReduceOp.SUM);
            if (rank == 1) Thread.sleep(50);
            c.allReduce(x, ReduceOp.SUM);
            return c.dumpTrace(dir.resolve("late" + rank + ".json"));
        });
        String json = Files.readString(assertInstanceOf(Path.class, results.get(0)));
        List<Long> durations = durations(json);
        assertEquals(2, durations.size(), json);
        assertTrue(durations.get(1) >= 30_000, "rank 0 waited 50 ms for rank 1: " + json);
    }

    /**
     * The VM suspends threads with SIGUSR2 for JDK Flight Recorder's sampler; a trace handler on that signal took it
     * from the VM, so under JFR every sample became a trace dump and JFR sampled almost nothing. With a communicator
     * open (its handler installed), a busy thread is sampled and nothing is dumped.
     */
    @Test
    void flightRecorderSamplingStillWorksWithTheTraceHandlerInstalled() throws Exception {
        Config config = recordingInto(dir);
        Path jfr = dir.resolve("sampling.jfr");
        List<Object> results = TestRanks.run(1, config, (rank, c) -> {
            c.allReduce(new float[10], ReduceOp.SUM);
            try (Recording recording = new Recording()) {
                recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
                recording.start();
                long end = System.nanoTime() + 1_000_000_000L;
                long x = 0;
                while (System.nanoTime() < end) {
                    for (int i = 0; i < 1000; i++) x = x * 31 + i;
                }
                recording.stop();
                recording.dump(jfr);
                return x;
            }
        });
        assertEquals(1, results.size());
        long samples;
        try (RecordingFile file = new RecordingFile(jfr)) {
            samples = 0;
            while (file.hasMoreEvents()) {
                if (file.readEvent().getEventType().getName().equals("jdk.ExecutionSample")) samples++;
            }
        }
        // About 100 are due (a second of one busy thread, one every 10 ms); with the signal taken, 0-5 came.
        assertTrue(samples >= 20, "JFR took " + samples + " execution samples of a busy second");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> dumps = files.filter(f -> f.getFileName().toString().startsWith("jccl-trace"))
                    .toList();
            assertEquals(List.of(), dumps, "trace dumps nobody asked for");
        }
    }

    /** {@code kill -USR1 <pid>}: every open communicator of the process writes its recorder, while it runs on. */
    @Test
    void sigusr1WritesEveryOpenCommunicatorsRecorder() throws Exception {
        Config config = recordingInto(dir);
        // The ranks are threads of this process, and the signal reaches both: rank 0 sends it once every rank has
        // returned from its barrier, since a rank leaves the barrier when it has seen the others arrive, possibly
        // before they have recorded their own barrier as completed (one CI run dumped rank 1's as still running).
        CountDownLatch bothDone = new CountDownLatch(2);
        List<Object> results = TestRanks.run(2, config, (rank, c) -> {
            for (int i = 0; i < 5; i++) c.allReduce(new float[10], ReduceOp.SUM);
            c.barrier();
            bothDone.countDown();
            if (rank == 0) {
                assertTrue(bothDone.await(10, TimeUnit.SECONDS), "rank 1 never returned from the barrier");
                new ProcessBuilder(
                                "kill",
                                "-USR1",
                                Long.toString(ProcessHandle.current().pid()))
                        .start()
                        .waitFor();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                try (Stream<Path> files = Files.list(dir)) {
                    if (files.filter(f -> f.getFileName().toString().endsWith("-rank" + rank + ".json"))
                                    .count()
                            == 1) {
                        break;
                    }
                }
                Thread.sleep(20);
            }
            c.allReduce(new float[10], ReduceOp.SUM); // the communicator goes on working
            return "ok";
        });
        assertEquals(List.of("ok", "ok"), results);
        for (int rank = 0; rank < 2; rank++) {
            int r = rank;
            Path file;
            try (Stream<Path> files = Files.list(dir)) {
                file = files.filter(f -> f.getFileName().toString().endsWith("-rank" + r + ".json"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("rank " + r + " wrote no dump on SIGUSR1"));
            }
            List<String[]> ops = operations(Files.readString(file));
            assertEquals(6, ops.size(), "5 AllReduces and the barrier's");
            assertTrue(ops.stream().allMatch(o -> o[3].equals("completed")));
        }
    }

    @Test
    void aFailedOperationWritesTheRecorderWithTheVerdictToTheTraceDirectory() throws Exception {
        Config config = TestRanks.loopback(Duration.ofSeconds(2)).toBuilder()
                .traceDir(dir.toString())
                .build();
        List<Object> results = TestRanks.run(2, config, (rank, c) -> {
            c.allReduce(new float[10], ReduceOp.SUM);
            if (rank == 1) {
                Thread.sleep(6_000); // never enters the second AllReduce before rank 0's deadline
                return "stayed out";
            }
            return assertThrows(JcclException.class, () -> c.allReduce(new float[10], ReduceOp.SUM));
        });
        assertInstanceOf(JcclException.class, results.get(0));
        List<Path> dumps;
        try (Stream<Path> files = Files.list(dir)) {
            dumps = files.filter(p -> p.getFileName().toString().endsWith("-rank0.json"))
                    .toList();
        }
        assertEquals(1, dumps.size(), () -> "one dump by rank 0 in " + dir);
        String json = Files.readString(dumps.getFirst());
        List<String[]> ops = operations(json);
        assertEquals(List.of("completed", "failed"), ops.stream().map(o -> o[3]).toList(), json);
        assertTrue(json.contains("\"verdict\": \"Root cause") && json.contains("rank 1"), json);
    }

    @Test
    void withNoBufferThereIsNoRecorderAndDumpTraceSaysHowToGetOne() throws Exception {
        Config config = keeping(0).build();
        Object result = TestRanks.run(
                        1,
                        config,
                        (rank, c) -> assertThrows(IllegalStateException.class, () -> c.dumpTrace(dir.resolve("x.json")))
                                .getMessage())
                .getFirst();
        assertEquals("rank 0 keeps no flight recorder (JCCL_TRACE_BUFFER=0); set it above 0 to keep one", result);
        assertEquals(
                "JCCL_TRACE_BUFFER must be between 0 (off) and 16777216 operations, got -1",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> Config.fromEnvironment(java.util.Map.of("JCCL_TRACE_BUFFER", "-1")))
                        .getMessage());
    }

    /** index, op, seq, state of each operation in a dump. */
    private static List<Long> durations(String json) {
        Matcher m = Pattern.compile("\"durationMicros\": (\\d+)").matcher(json);
        List<Long> d = new java.util.ArrayList<>();
        while (m.find()) d.add(Long.parseLong(m.group(1)));
        return d;
    }

    private static List<String[]> operations(String json) {
        Matcher m = OPERATION.matcher(json);
        List<String[]> ops = new java.util.ArrayList<>();
        while (m.find()) ops.add(new String[] {m.group(1), m.group(2), m.group(3), m.group(4)});
        return ops;
    }
}
