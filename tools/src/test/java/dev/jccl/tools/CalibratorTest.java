package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.plan.Calibration;
import dev.jccl.plan.Collective;
import dev.jccl.plan.Tuner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The last-level cache's size as sysfs describes it, which the calibration writes for the tuner, and the link figures
 * read off a ring AllReduce's line through the tuner's own estimate of it.
 */
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
    void theCpusToPinAreTheFirstOfTheKernelsListAndRanges() {
        assertEquals(List.of("0", "1"), Calibrator.firstCpus("0-3,8", 2));
        assertEquals(List.of("2", "5"), Calibrator.firstCpus("2,5-7", 2));
        assertEquals(List.of("5"), Calibrator.firstCpus("5", 2)); // one CPU: two ranks on it
        assertEquals(List.of("4"), Calibrator.firstCpus("4-7", 1));
        assertEquals(List.of(), Calibrator.firstCpus("", 2));
    }

    @Test
    void noCachesIsZero() {
        assertEquals(0.0, Calibrator.lastLevelCacheMib(dir.resolve("absent")));
        assertEquals(0.0, Calibrator.lastLevelCacheMib(dir));
    }

    /**
     * Times made by the tuner itself for a 2-rank ring AllReduce on known figures, fitted as calibrate fits them, give
     * those figures back: the step from the intercept (two steps), the link's rate from the slope less the reduce's.
     */
    @Test
    void theRingsLineGivesBackTheTunersStepAndRate() {
        Calibration known = Calibration.DEFAULTS.with(
                Map.of("shm.step.us", 0.5, "shm.bandwidth.gbps", 12.0, "reduce.gbps", 30.0, "cache.mib", 0.0),
                "the test's figures");
        Tuner tuner = new Tuner(2, null, true, false, false, null, null, known, 1 << 20);
        List<Calibrator.Sample> samples = new ArrayList<>();
        for (long bytes = 8; bytes <= (32L << 20); bytes *= 4) {
            double micros = tuner.estimateMicros(
                    Collective.ALL_REDUCE, Tuner.Algorithm.RING, Tuner.Protocol.SIMPLE, bytes / 4, DataType.FLOAT32);
            samples.add(new Calibrator.Sample(bytes, micros));
        }
        Calibrator.Link link = Calibrator.ringLink(Calibrator.fit(samples, 1), 30.0);
        assertEquals(0.5, link.stepMicros(), 1e-6);
        assertEquals(12.0, link.gbPerSecond(), 1e-6);
        assertFalse(link.reduceExplainsSlope());
    }

    /** A slope the reduce alone would explain says nothing of the link: the line's own rate, reduce included. */
    @Test
    void aSlopeTheReduceExplainsKeepsTheLinesRate() {
        Calibrator.Fit line = new Calibrator.Fit(1.0, 20.0, 0);
        Calibrator.Link link = Calibrator.ringLink(line, 10.0); // the reduce of half the message: 1/20 µs per kB
        assertTrue(link.reduceExplainsSlope());
        assertEquals(20.0, link.gbPerSecond());
        assertEquals(0.5, link.stepMicros());
    }
}
