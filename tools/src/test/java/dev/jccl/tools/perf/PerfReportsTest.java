package dev.jccl.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PerfReportsTest {
    @TempDir
    Path dir;

    private static final List<PerfRow> ROWS = List.of(
            PerfFixtures.row(0, "float", "sum", -1, false, 0.0, 0L),
            PerfFixtures.row(8, "float", "sum", -1, false, 0.0003, 0L),
            PerfFixtures.row(8, "float", "sum", -1, true, 0.00031, 3L),
            PerfFixtures.row(1 << 20, "bfloat16", "max", 2, false, 1.2345678901234, null),
            PerfFixtures.row(1L << 33, "int64", "none", -1, true, 2.5, Long.MAX_VALUE));

    @Test
    void aReportReadsBackEqualToWhatWasWrittenUncheckedRowsIncluded() {
        PerfReport report = PerfFixtures.report("all_reduce", 4, "tcp ring 4 ranks", ROWS);
        Path file = dir.resolve("ar.json");
        PerfReports.write(report, file);
        PerfReport back = PerfReports.read(file);
        assertEquals(report, back);
        assertEquals(null, back.rows().get(3).wrong(), "unchecked stays unchecked, not 0");
        assertEquals(3L, back.rows().get(2).wrong());
    }

    @Test
    void aReportWithoutRowsReadsBack() {
        PerfReport report = PerfFixtures.report("sendrecv", 1, "local p2p 1 rank", List.of());
        Path file = dir.resolve("empty.json");
        PerfReports.write(report, file);
        assertEquals(report, PerfReports.read(file));
    }

    @Test
    void theJsonIsIndentedAndNamedAndOrderedAsTheRecords() throws IOException {
        Path file = dir.resolve("ar.json");
        PerfReports.write(PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS), file);
        String text = Files.readString(file);
        assertTrue(text.startsWith("{\n  \"tool\": \"jccl perf\",\n  \"version\": "), text);
        assertTrue(text.contains("\"wrong\": null"), text);
        assertTrue(text.contains("\n  \"rows\": [\n    {\n      \"size\": 0,\n"), text);
        assertTrue(text.endsWith("}\n"), text);

        JsonNode json = new ObjectMapper().readTree(text);
        assertEquals(names(PerfReport.class), fieldNames(json));
        assertEquals(names(PerfRow.class), fieldNames(json.get("rows").get(0)));
        assertEquals(8589934592L, json.get("rows").get(4).get("size").asLong());
        assertTrue(json.get("rows").get(4).get("inPlace").asBoolean());
    }

    @Test
    void unknownFieldsAreIgnoredSoThatANewerJcclMayAddSome() throws IOException {
        Path file = dir.resolve("ar.json");
        PerfReport report = PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS.subList(1, 2));
        PerfReports.write(report, file);
        Files.writeString(file, Files.readString(file).replace("{\n  \"tool\"", "{\n  \"gpu\": \"none\",\n  \"tool\""));
        assertEquals(report, PerfReports.read(file));
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("nosuch.json");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PerfReports.read(file));
        assertEquals("cannot read " + file + ": no such file or directory", e.getMessage());
    }

    @Test
    void aDirectoryIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PerfReports.read(dir));
        assertEquals("cannot read " + dir + ": it is a directory", e.getMessage());
    }

    @Test
    void textThatIsNotJsonIsNamed() throws IOException {
        Path file = write("log.txt", "# nccl-tests output\n#  size count type\n");
        assertNotAReport(file, "not JSON (");
    }

    @Test
    void trailingTextAfterTheReportIsNotAReport() throws IOException {
        Path file = dir.resolve("ar.json");
        PerfReports.write(PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS), file);
        Files.writeString(file, Files.readString(file) + "# Avg bus bandwidth : 1.2\n");
        assertNotAReport(file, "not JSON (");
    }

    @Test
    void anEmptyFileIsNamed() throws IOException {
        assertNotAReport(write("empty.json", ""), "the file is empty");
    }

    @Test
    void jsonThatIsNotAnObjectIsNotAReport() throws IOException {
        assertNotAReport(write("a.json", "[1, 2]"), "it holds a JSON array, not an object");
    }

    @Test
    void anotherToolsJsonIsNotAReport() throws IOException {
        // `jccl info --json` output, for example.
        assertNotAReport(
                write("info.json", "{\"version\": \"0.1.0\", \"transports\": []}"), "no \"tool\": \"jccl perf\" field");
        assertNotAReport(
                write("other.json", "{\"tool\": \"nccl-tests\", \"rows\": []}"),
                "its tool is \"nccl-tests\", not \"jccl perf\"");
    }

    @Test
    void aReportWithoutRowsIsNotAReport() throws IOException {
        String text = reportText().replaceFirst("\"rows\": \\[[^\\]]*\\]", "\"results\": []");
        assertNotAReport(write("norows.json", text), "no \"rows\" array");
        assertNotAReport(
                write("rowsobject.json", reportText().replaceFirst("\"rows\": \\[[^\\]]*\\]", "\"rows\": {}")),
                "no \"rows\" array");
    }

    @Test
    void aRowWithoutBusbwIsNamedByItsPosition() throws IOException {
        String text = reportText();
        int second = text.indexOf("\"busbw\"", text.indexOf("\"busbw\"") + 1);
        String broken = text.substring(0, second) + "\"busbw_\"" + text.substring(second + "\"busbw\"".length());
        assertNotAReport(write("broken.json", broken), "rows[1].busbw: missing");
    }

    @Test
    void aFieldOfTheWrongTypeIsNamed() throws IOException {
        String text = reportText().replaceFirst("\"size\": 8,", "\"size\": \"8 B\",");
        IllegalArgumentException e = assertNotAReport(write("typed.json", text), "rows[1].size: ");
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }

    @Test
    void aNullPrimitiveIsNotAReport() throws IOException {
        String text = reportText().replaceFirst("\"ranks\": 2,", "\"ranks\": null,");
        assertNotAReport(write("null.json", text), "ranks: ");
    }

    @Test
    void writingIntoAMissingDirectoryIsNamed() {
        Path file = dir.resolve("nosuch").resolve("ar.json");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> PerfReports.write(PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS), file));
        assertEquals("cannot write " + file + ": directory " + file.getParent() + " does not exist", e.getMessage());
    }

    @Test
    void writingOverADirectoryIsNamed() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> PerfReports.write(PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS), dir));
        assertTrue(e.getMessage().startsWith("cannot write " + dir + ": "), e.getMessage());
    }

    private String reportText() throws IOException {
        Path file = dir.resolve("template.json");
        PerfReports.write(PerfFixtures.report("all_reduce", 2, "tcp ring 2 ranks", ROWS), file);
        return Files.readString(file);
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private static IllegalArgumentException assertNotAReport(Path file, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PerfReports.read(file));
        String prefix = file + " is not a jccl perf --json report: ";
        assertTrue(e.getMessage().startsWith(prefix + why), e.getMessage());
        return e;
    }

    private static List<String> names(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents())
                .map(RecordComponent::getName)
                .toList();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
