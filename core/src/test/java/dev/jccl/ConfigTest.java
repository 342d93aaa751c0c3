package dev.jccl;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ConfigTest {
    @Test
    void jcclVariablesWinOverNcclOnes() {
        Config c = Config.fromEnvironment(
                Map.of("NCCL_SOCKET_IFNAME", "eth", "JCCL_SOCKET_IFNAME", "lo", "NCCL_DEBUG", "info"));
        assertEquals("lo", c.socketIfname());
        assertEquals(Config.DebugLevel.INFO, c.debugLevel());
        String[] ifRow = c.describe().stream()
                .filter(r -> r[0].equals("socketIfname"))
                .findFirst()
                .orElseThrow();
        assertEquals("JCCL_SOCKET_IFNAME", ifRow[2]);
        String[] debugRow = c.describe().stream()
                .filter(r -> r[0].equals("debug"))
                .findFirst()
                .orElseThrow();
        assertEquals("NCCL_DEBUG", debugRow[2]);
    }

    @Test
    void sourceOfSaysWhetherTheUserSetASetting() {
        Config c = Config.fromEnvironment(Map.of("JCCL_TIMEOUT", "30s", "NCCL_SOCKET_IFNAME", "eth"));
        assertEquals("JCCL_TIMEOUT", c.sourceOf("timeout"));
        assertEquals("NCCL_SOCKET_IFNAME", c.sourceOf("socketIfname"));
        assertEquals("default", c.sourceOf("buffSize"));
        assertEquals("builder", c.toBuilder().buffSize(1 << 20).build().sourceOf("buffSize"));
        assertEquals("default", Config.fromEnvironment(Map.of()).sourceOf("timeout"));
    }

    @Test
    void debugSinkIsReadAndDescribed() {
        assertEquals(Config.DebugSink.AUTO, Config.fromEnvironment(Map.of()).debugSink());
        Config c = Config.fromEnvironment(Map.of("JCCL_DEBUG_SINK", "Logger"));
        assertEquals(Config.DebugSink.LOGGER, c.debugSink());
        String[] row = c.describe().stream()
                .filter(r -> r[0].equals("debugSink"))
                .findFirst()
                .orElseThrow();
        assertArrayEquals(new String[] {"debugSink", "logger", "JCCL_DEBUG_SINK"}, row);
        assertEquals(List.of(), Config.unknownVariables(Map.of("JCCL_DEBUG_SINK", "stdout")));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Config.fromEnvironment(Map.of("JCCL_DEBUG_SINK", "file")));
        assertTrue(e.getMessage().contains("JCCL_DEBUG_SINK"), e.getMessage());
    }

    @Test
    void shmSingleCopyIsOnByDefaultAndReadAsASwitch() {
        assertTrue(Config.fromEnvironment(Map.of()).shmSingleCopy());
        Config off = Config.fromEnvironment(Map.of("JCCL_SHM_SINGLE_COPY", "0"));
        assertFalse(off.shmSingleCopy());
        String[] row = off.describe().stream()
                .filter(r -> r[0].equals("shmSingleCopy"))
                .findFirst()
                .orElseThrow();
        assertArrayEquals(new String[] {"shmSingleCopy", "0", "JCCL_SHM_SINGLE_COPY"}, row);
        assertEquals(List.of(), Config.unknownVariables(Map.of("JCCL_SHM_SINGLE_COPY", "1")));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Config.fromEnvironment(Map.of("JCCL_SHM_SINGLE_COPY", "cma")));
        assertTrue(e.getMessage().contains("JCCL_SHM_SINGLE_COPY='cma'"), e.getMessage());
    }

    @Test
    void timeoutAcceptsSecondsAndUnits() {
        assertEquals(Duration.ofSeconds(30), timeoutFrom("30"));
        assertEquals(Duration.ofMillis(1500), timeoutFrom("1.5s"));
        assertEquals(Duration.ofMillis(250), timeoutFrom("250ms"));
        assertEquals(Duration.ofMinutes(2), timeoutFrom("2m"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> timeoutFrom("soon"));
        assertTrue(e.getMessage().contains("JCCL_TIMEOUT"), e.getMessage());
    }

    /** The timeout a configuration read from an environment holding only {@code JCCL_TIMEOUT=value} has. */
    private static Duration timeoutFrom(String value) {
        return Config.fromEnvironment(Map.of("JCCL_TIMEOUT", value)).timeout();
    }

    @Test
    void malformedNumbersNameTheVariable() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Config.fromEnvironment(Map.of("NCCL_BUFFSIZE", "big")));
        assertTrue(e.getMessage().contains("NCCL_BUFFSIZE"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Config.fromEnvironment(Map.of("JCCL_DEBUG", "LOUD")));
    }

    @Test
    void unknownVariablesGetTheClosestRealName() {
        List<String> unknown = Config.unknownVariables(
                Map.of("JCCL_TIMOUT", "3", "JCCL_SOCKET_IFNAME", "lo", "PATH", "/bin", "JCCL_WHATEVER_THIS_IS", "1"));
        assertEquals(2, unknown.size(), unknown.toString());
        assertTrue(unknown.contains("JCCL_TIMOUT (did you mean JCCL_TIMEOUT?)"), unknown.toString());
        assertTrue(unknown.contains("JCCL_WHATEVER_THIS_IS (not a Jccl variable)"), unknown.toString());
    }

    @Test
    void builderRejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> Config.builder().timeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> Config.builder().buffSize(10));
        assertEquals(1 << 20, Config.builder().build().chunkBytes());
    }
}
