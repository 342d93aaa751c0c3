package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rank tunes with rank 0's calibration, whatever its own host's file says: ranks that chose differently would
 * wait for each other forever.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CalibrationAgreementTest {
    @TempDir
    Path dir;

    @Test
    void rankZerosFiguresDecideForEveryRankAndItsFileProblemsAreReportedOnce() throws Exception {
        // With a shared-memory step of 10 ms, 1 MiB on 4 ranks runs by recursive doubling (2 steps) rather than the
        // ring (6 steps) that the built-in figures pick; only rank 0 has that file, the others read none.
        Path slow = Files.writeString(dir.resolve("slow.properties"), "shm.step.us = 10000\n");
        Path broken = Files.writeString(dir.resolve("broken.properties"), "shm.step.us = quick\n");
        UniqueId id = UniqueId.create(TestRanks.loopback(Duration.ofSeconds(30)));
        int n = 4;
        long count = 1 << 18;
        List<Throwable> failures = new ArrayList<>();
        String log = PrintingRanks.printedBy(
                n,
                rank -> {
                    Config config = TestRanks.loopback(Duration.ofSeconds(30)).toBuilder()
                            .algo("Ring,RecursiveDoubling")
                            .proto("Simple")
                            .debugLevel(Config.DebugLevel.TRACE)
                            .debugSubsys("COLL,TUNING")
                            .calibration(rank == 0 ? slow.toString() : rank == 1 ? broken.toString() : "none")
                            .build();
                    return () -> {
                        try (Communicator c = Jccl.init(rank, n, id, config);
                                Arena arena = Arena.ofConfined()) {
                            MemorySegment buf = arena.allocate(count * 4);
                            for (long i = 0; i < count; i++) buf.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + 1);
                            c.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
                            for (long i = 0; i < count; i += 4099) {
                                assertEquals(10f, buf.getAtIndex(ValueLayout.JAVA_FLOAT, i), "element " + i);
                            }
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    };
                },
                100_000);
        assertEquals(List.of(), failures, log);
        for (int r = 0; r < n; r++) {
            assertTrue(
                    log.matches("(?s).*\\[" + r + "] JCCL TRACE COLL : [^\\n]*algorithm recursive-doubling.*"),
                    "rank " + r + " did not run recursive doubling:\n" + log);
        }
        assertFalse(log.contains("algorithm ring"), log);
        assertTrue(log.contains("figures: " + slow), log); // rank 0's tuning table names the file it tunes with
        // Rank 1's own file is malformed, but only rank 0's is used, and only rank 0 speaks of its file.
        assertFalse(log.contains(broken.toString()), log);
    }
}
