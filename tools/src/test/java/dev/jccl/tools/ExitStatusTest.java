package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExitStatusTest {

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            3   | exited with code 3
            137 | exited with code 137 (killed by signal 9, SIGKILL)
            143 | exited with code 143 (killed by signal 15, SIGTERM)
            162 | exited with code 162 (killed by signal 34)
            255 | exited with code 255
            """)
    void codesAbove128AreSignals(int code, String description) {
        assertEquals(description, ExitStatus.describe(code));
    }

    @Test
    void launcherCodesOutsideAByteBecomeOne() {
        assertEquals(3, ExitStatus.launcherCode(3));
        assertEquals(1, ExitStatus.launcherCode(-1));
        assertEquals(1, ExitStatus.launcherCode(256));
    }
}
