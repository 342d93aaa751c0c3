package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SizeSweepTest {
    @Test
    void sizesParseAsNcclTestsParsesThem() {
        assertEquals(8, SizeSweep.parseSize("-b", "8"));
        assertEquals(64L << 20, SizeSweep.parseSize("-e", "64M"));
        assertEquals(32L << 20, SizeSweep.parseSize("-e", "32m"));
        assertEquals(1L << 30, SizeSweep.parseSize("-e", "1G"));
        assertEquals(1536, SizeSweep.parseSize("-b", "1.5K"));
        assertEquals(0, SizeSweep.parseSize("-b", "0"));
    }

    @Test
    void badSizesNameTheFlag() {
        for (String bad : new String[] {"abc", "-5", "8X", "", "M", "0x10"}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> SizeSweep.parseSize("-e", bad), bad);
            assertTrue(e.getMessage().contains("-e") && e.getMessage().contains("64M"), e.getMessage());
        }
    }

    @Test
    void factorSweepStopsAtTheLargestSizeNotAbove() {
        List<Long> s = new SizeSweep(8, 64L << 20, 4, 1).sizes();
        assertEquals(12, s.size());
        assertEquals(8L, s.getFirst());
        assertEquals(32L << 20, s.getLast());
        assertEquals(List.of(8L, 16L, 32L), new SizeSweep(8, 32, 2, 1).sizes());
    }

    @Test
    void incrementSweepIncludesBothEnds() {
        assertEquals(List.of(0L, 5L, 10L), new SizeSweep(0, 10, 1, 5).sizes());
        assertEquals(List.of(32L << 20), new SizeSweep(32L << 20, 32L << 20, 1, 1L << 20).sizes());
    }

    @Test
    void impossibleSweepsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SizeSweep(16, 8, 2, 1));
        assertThrows(IllegalArgumentException.class, () -> new SizeSweep(8, 16, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new SizeSweep(0, 16, 2, 1));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new SizeSweep(1, 1L << 30, 1, 1).sizes());
        assertTrue(e.getMessage().contains("larger step"), e.getMessage());
    }

    @Test
    void bytesForPeople() {
        assertEquals("8 B", SizeSweep.binary(8));
        assertEquals("192 MiB", SizeSweep.binary(192L << 20));
        assertEquals("1.5 KiB", SizeSweep.binary(1536));
        assertEquals("64M", SizeSweep.format(64L << 20));
        assertEquals("1000", SizeSweep.format(1000));
    }
}
