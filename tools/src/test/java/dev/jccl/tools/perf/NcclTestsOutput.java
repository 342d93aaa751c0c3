package dev.jccl.tools.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a table the way scripts written for nccl-tests do: this is the row pattern such a script uses (groups: 1 size,
 * 2 count, 3 type, 4 redop, 5 root, 6-9 out-of-place time, algbw, busbw, #wrong, 10-13 the same in-place), so our
 * output must match it unchanged.
 */
public final class NcclTestsOutput {
    /** One row of the table. */
    public static final Pattern ROW = Pattern.compile(
            "^\\s*(\\d+)\\s+(\\d+)\\s+(\\w+)\\s+(\\w+)\\s+(-?\\d+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)"
                    + "\\s+(\\S+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+([\\d.]+)\\s+(\\S+)\\s*$");

    static final Pattern AVG_BUS_BW = Pattern.compile("^# Avg bus bandwidth\\s*:\\s*([\\d.e+-]+)", Pattern.MULTILINE);

    private NcclTestsOutput() {}

    /** Every row line; a line that is neither a row nor a {@code #} comment fails the caller's test. */
    public static List<Matcher> rows(String table) {
        List<Matcher> rows = new ArrayList<>();
        for (String line : table.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) continue;
            Matcher m = ROW.matcher(line);
            if (!m.matches()) throw new AssertionError("line is not an nccl-tests row: '" + line + "' in\n" + table);
            rows.add(m);
        }
        return rows;
    }
}
