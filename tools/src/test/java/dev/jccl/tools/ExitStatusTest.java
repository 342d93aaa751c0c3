package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExitStatusTest {

    @Test
    void codesAbove128AreSignals() {
        assertEquals("exited with code 3", ExitStatus.describe(3));
        assertEquals("exited with code 137 (killed by signal 9, SIGKILL)", ExitStatus.describe(137));
        assertEquals("exited with code 143 (killed by signal 15, SIGTERM)", ExitStatus.describe(143));
        assertEquals("exited with code 162 (killed by signal 34)", ExitStatus.describe(162));
        assertEquals("exited with code 255", ExitStatus.describe(255));
        assertEquals(3, ExitStatus.launcherCode(3));
        assertEquals(1, ExitStatus.launcherCode(-1));
        assertEquals(1, ExitStatus.launcherCode(256));
    }
}
