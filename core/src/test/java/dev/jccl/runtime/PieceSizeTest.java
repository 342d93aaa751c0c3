package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The piece a communicator cuts its collectives into depends on how its ranks connect
 * ({@link Config#chunkBytes(boolean, boolean)}): 128 KiB where the ranks of one host talk over sockets, else (shared
 * memory, several hosts, ranks sharing CPUs, {@code JCCL_BUFFSIZE} set) a quarter of the buffer. The ring's step count
 * in the TRACE line shows which: 1 MiB of floats on 2 ranks is one slice of 2 steps in 1 MiB pieces, 4 slices of 2
 * steps in 128 KiB ones.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PieceSizeTest {
    private static final int RANKS = 2;
    private static final long COUNT = 1 << 18;

    @Test
    void socketsCut128KibPiecesAndSharedMemoryAQuarterOfTheBuffer() throws Exception {
        assertEquals("8 steps", ringSteps(TestRanks.Link.TCP.config(Duration.ofSeconds(30))));
        assertEquals("2 steps", ringSteps(TestRanks.Link.SHM.config(Duration.ofSeconds(30))));
    }

    @Test
    void aBufferSizeSetByTheUserIsHonouredOverSocketsToo() throws Exception {
        Config set = TestRanks.Link.TCP.config(Duration.ofSeconds(30)).toBuilder()
                .buffSize(Config.DEFAULT_BUFFSIZE)
                .build();
        assertEquals("2 steps", ringSteps(set));
    }

    @Test
    void ranksThatDisagreeOnWhetherTheBufferSizeIsSetAreRefused() throws Exception {
        Config unset = TestRanks.Link.TCP.config(Duration.ofSeconds(30));
        Config set = unset.toBuilder().buffSize(Config.DEFAULT_BUFFSIZE).build();
        List<Throwable> failures = new ArrayList<>();
        run(rank -> rank == 0 ? unset : set, failures);
        assertEquals(RANKS, failures.size(), failures.toString());
        for (Throwable t : failures) {
            assertTrue(t instanceof JcclException, t.toString());
            assertTrue(
                    t.getMessage().contains("JCCL_BUFFSIZE=(unset)")
                            && t.getMessage().contains("JCCL_BUFFSIZE=" + Config.DEFAULT_BUFFSIZE),
                    t.getMessage());
        }
    }

    @Test
    void theSocketPieceIsUsedOnlyWhereNothingElseDecides() {
        Config unset = Config.builder().build();
        assertEquals(Config.SOCKET_CHUNK_BYTES, unset.chunkBytes(true, false));
        assertEquals(
                1 << 20, unset.chunkBytes(false, false), "shared memory or several hosts: a quarter of the buffer");
        assertEquals(1 << 20, unset.chunkBytes(true, true), "ranks sharing CPUs pay hand-offs for every extra step");
        Config small = Config.builder().buffSize(256 << 10).build();
        assertEquals(64 << 10, small.chunkBytes(true, false), "a buffer size set by the user decides");
        Config fromVariable = Config.fromEnvironment(Map.of("JCCL_BUFFSIZE", "4194304"));
        assertEquals(1 << 20, fromVariable.chunkBytes(true, false));
    }

    /** The "N steps" of rank 0's TRACE line for a Ring/Simple AllReduce of 1 MiB, after checking the sums. */
    private static String ringSteps(Config config) throws Exception {
        List<Throwable> failures = new ArrayList<>();
        String log = run(rank -> config, failures);
        assertEquals(List.of(), failures, log);
        Matcher m = Pattern.compile("\\[0] JCCL TRACE COLL : [^\\n]*algorithm ring, (\\d+ steps)")
                .matcher(log);
        assertTrue(m.find(), log);
        return m.group(1);
    }

    private static String run(IntFunction<Config> configOf, List<Throwable> failures) throws Exception {
        UniqueId id = UniqueId.create(configOf.apply(0));
        return PrintingRanks.printedBy(
                RANKS,
                rank -> {
                    Config config = configOf.apply(rank).toBuilder()
                            .algo("Ring")
                            .proto("Simple")
                            .oversubscription(Config.Oversubscription.NO)
                            .debugLevel(Config.DebugLevel.TRACE)
                            .debugSubsys("COLL")
                            .build();
                    return () -> {
                        try (Communicator c = Jccl.init(rank, RANKS, id, config);
                                Arena arena = Arena.ofConfined()) {
                            MemorySegment buf = arena.allocate(COUNT * 4);
                            for (long i = 0; i < COUNT; i++) {
                                buf.setAtIndex(ValueLayout.JAVA_FLOAT, i, rank + 1 + i % 7);
                            }
                            c.allReduce(buf, buf, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                            for (long i = 0; i < COUNT; i++) {
                                assertEquals(
                                        3 + 2 * (i % 7), buf.getAtIndex(ValueLayout.JAVA_FLOAT, i), "element " + i);
                            }
                        } catch (Throwable e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    };
                },
                60_000);
    }
}
