package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The last-level cache's size as sysfs describes it, which the calibration writes for the tuner. */
@Timeout(30)
class CalibratorTest {
    @TempDir
    Path dir;

    private void cache(String index, String level, String size) throws IOException {
        Path d = Files.createDirectories(dir.resolve(index));
        if (level != null) Files.writeString(d.resolve("level"), level + "\n");
        if (size != null) Files.writeString(d.resolve("size"), size + "\n");
    }

    @Test
    void theHighestLevelIsTheLastLevelCache() throws IOException {
        cache("index0", "1", "48K");
        cache("index1", "1", "32K");
        cache("index2", "2", "1024K");
        cache("index3", "3", "32768K");
        assertEquals(32.0, Calibrator.lastLevelCacheMib(dir));
    }

    @Test
    void sizesInOtherUnitsAndUnreadableEntries() throws IOException {
        cache("index0", "2", "2M");
        cache("index1", "4", null); // no size: skipped, not taken for the last level
        cache("index2", "3", "1G");
        cache("index3", "5", ""); // an empty size: skipped too
        assertEquals(1024.0, Calibrator.lastLevelCacheMib(dir));
    }

    @Test
    void noCachesIsZero() {
        assertEquals(0.0, Calibrator.lastLevelCacheMib(dir.resolve("absent")));
        assertEquals(0.0, Calibrator.lastLevelCacheMib(dir));
    }
}
