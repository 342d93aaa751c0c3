package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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

    @Test
    void percentGAsC() {
        assertEquals("0", PerfTable.cG(0));
        assertEquals("4.52531", PerfTable.cG(4.525314));
        assertEquals("67.9217", PerfTable.cG(67.92171));
        assertEquals("100", PerfTable.cG(100));
        assertEquals("12.5", PerfTable.cG(12.5));
        assertEquals("1e+06", PerfTable.cG(1_000_000));
        assertEquals("1.23457e+06", PerfTable.cG(1_234_567));
        assertEquals("0.0001234", PerfTable.cG(0.0001234));
        assertEquals("1.234e-05", PerfTable.cG(0.00001234));
        assertEquals("999999", PerfTable.cG(999_999));
    }

    @Test
    void footerIsWhatScriptsGrepFor() {
        assertEquals(
                "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.52531 \n#\n", PerfTable.footer(0, 4.525314));
        assertTrue(PerfTable.footer(3, 1).startsWith("# Out of bounds values : 3 FAILED\n"));
    }
}
