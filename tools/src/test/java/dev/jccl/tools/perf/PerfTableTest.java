package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The table's text against nccl-tests' own lines (copied from its output, not from our code). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PerfTableTest {
    @Test
    void columnHeaderIsNcclTestsHeader() {
        String[] lines = PerfTable.columnHeader().split("\n");
        assertEquals(3, lines.length);
        assertEquals(
                "#                                                              out-of-place "
                        + "                      in-place          ",
                lines[0]);
        assertEquals(
                "#       size         count      type   redop    root     time   algbw "
                        + "  busbw #wrong     time   algbw   busbw #wrong",
                lines[1]);
        assertEquals(
                "#        (B)    (elements)                               (us)  (GB/s) "
                        + " (GB/s)            (us)  (GB/s)  (GB/s)       ",
                lines[2]);
    }

    @Test
    void rowLinesUpUnderTheHeader() {
        String row = PerfTable.rowStart(134217728, 33554432, "float", "sum", -1)
                + PerfTable.measurement(139876.5, 3.84, 6.72, 0L)
                + PerfTable.measurement(8.12, 0.0, 0.0, null);
        // nccl-tests: "   134217728      33554432     float     sum      -1   139876    3.84    6.72      0 ..."
        assertTrue(row.startsWith("   134217728      33554432     float     sum      -1   13987"), row);
        assertTrue(row.endsWith("     8.12    0.00    0.00    N/A"), row);
        assertEquals(
                PerfTable.columnHeader().split("\n")[1].length(),
                row.length(),
                "row and header widths differ:\n" + row);
    }

    @Test
    void timeKeepsSevenColumns() {
        assertEquals("  10.51", PerfTable.time(10.51));
        assertEquals("  512.3", PerfTable.time(512.3));
        assertEquals("  25807", PerfTable.time(25806.7));
    }

    @ParameterizedTest(name = "%g of {0} is {1}")
    @CsvSource({
        "0, 0",
        "4.525314, 4.52531",
        "67.92171, 67.9217",
        "100, 100",
        "12.5, 12.5",
        "1000000, 1e+06",
        "1234567, 1.23457e+06",
        "0.0001234, 0.0001234",
        "0.00001234, 1.234e-05",
        "999999, 999999"
    })
    void percentGAsC(double value, String expected) {
        assertEquals(expected, PerfTable.cG(value));
    }

    @Test
    void footerIsWhatScriptsGrepFor() {
        assertEquals(
                "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.52531 \n#\n", PerfTable.footer(0, 4.525314));
        assertTrue(PerfTable.footer(3, 1).startsWith("# Out of bounds values : 3 FAILED\n"));
    }
}
