package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.jccl.tools.trace.DumpFile;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code jccl trace DIR} as a user runs it: the report, --json, --plot, --comm, and what bad input says. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TraceCommandTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final String VERDICT = "Root cause (decided by rank 0, the same for every rank that reaches it):"
            + " AllReduce #150 (1024 × FLOAT32, SUM) cannot finish: rank 1 (host1:pid 1001) never entered it";

    @TempDir
    Path dir;

    /** Rank 1 stopped calling collectives after #149; ranks 0 and 2 wait in #150. */
    private void rankOneStayedOut() {
        DumpFile.rank(0, 3)
                .allReduces(0, 149)
                .running(150, "AllReduce")
                .verdict(VERDICT)
                .writeTo(dir);
        DumpFile.rank(1, 3).allReduces(0, 149).verdict(VERDICT).writeTo(dir);
        DumpFile.rank(2, 3)
                .allReduces(0, 149)
                .running(150, "AllReduce")
                .verdict(VERDICT)
                .writeTo(dir);
    }

    @Test
    void theReportSaysWhichRankIsBehindInPlainWords() {
        rankOneStayedOut();
        Cli.Result r = trace(dir.toString(), "--last", "3");
        assertEquals(0, r.code(), r::toString);
        assertEquals("", r.err());
        assertEquals("""
                communicator 00000000000abcde: dumps from 3 of 3 ranks, written at 2025-06-01T10:00:05Z

                verdict (the same in every dump)
                  Root cause (decided by rank 0, the same for every rank that reaches it): AllReduce #150
                  (1024 × FLOAT32, SUM) cannot finish: rank 1 (host1:pid 1001) never entered it

                ranks
                  rank 0  host0:pid 1000  jccl-trace-00000000000abcde-rank0.json
                    ring            151 operations, collectives #0–#150
                    last completed  #149 AllReduce (1024 × FLOAT32, SUM) in 12µs
                    in flight       #150 AllReduce (1024 × FLOAT32, SUM), running 4.9s at dump time
                    failed          none
                  rank 1  host1:pid 1001  jccl-trace-00000000000abcde-rank1.json
                    ring            150 operations, collectives #0–#149
                    last completed  #149 AllReduce (1024 × FLOAT32, SUM) in 12µs
                    in flight       nothing
                    failed          none
                  rank 2  host2:pid 1002  jccl-trace-00000000000abcde-rank2.json
                    ring            151 operations, collectives #0–#150
                    last completed  #149 AllReduce (1024 × FLOAT32, SUM) in 12µs
                    in flight       #150 AllReduce (1024 × FLOAT32, SUM), running 4.9s at dump time
                    failed          none

                behind
                  rank 1 is behind: it last completed #149 AllReduce and never started #150 AllReduce, which
                  ranks 0, 2 are waiting in

                first disagreement
                  no disagreement in the 150 collective operations every dump holds (#0–#149), nor in the 1 more
                  that some of them hold

                timeline of the last 3 collectives (ok: completed, RUNNING: not ended when the rank dumped, FAILED,
                  -: not started or no longer in the ring, (Op): this rank ran another operation than the row's)
                  seq   op         rank 0        rank 1   rank 2
                  #148  AllReduce  ok 12µs       ok 12µs  ok 12µs
                  #149  AllReduce  ok 12µs       ok 12µs  ok 12µs
                  #150  AllReduce  RUNNING 4.9s  -        RUNNING 4.9s
                """, r.out());
    }

    @Test
    void jsonCarriesTheSameAnalysis() throws IOException {
        rankOneStayedOut();
        Cli.Result r = trace(dir.toString(), "--json");
        assertEquals(0, r.code(), r::toString);
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertEquals("jccl trace", doc.get("tool").asText());
        JsonNode comm = doc.get("communicators").get(0);
        assertEquals("00000000000abcde", comm.get("commId").asText());
        assertEquals(VERDICT, comm.get("verdict").get("agreed").asText());
        JsonNode behind = comm.get("behind");
        assertEquals("behind", behind.get("status").asText());
        assertEquals("[1]", behind.get("ranks").toString());
        assertEquals(149, behind.get("lastCompletedSeq").asLong());
        assertEquals(150, behind.get("neverStartedSeq").asLong());
        assertTrue(comm.get("agreement").get("firstDisagreement").isNull());
        assertEquals(10, comm.get("timeline").size(), "--last defaults to 10");
        JsonNode lastRow = comm.get("timeline").get(9);
        assertEquals(150, lastRow.get("seq").asLong());
        assertEquals("absent", lastRow.get("cells").get(1).get("state").asText());
        assertEquals(
                150, comm.get("rankStates").get(0).get("inFlight").get("seq").asLong());
    }

    @Test
    void plotWritesAPngOfTheTimeline() throws IOException {
        rankOneStayedOut();
        Path png = dir.resolve("timeline.png");
        Cli.Result r = trace(dir.toString(), "--plot", png.toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.out()
                        .endsWith("\nwrote " + png + " (communicator 00000000000abcde, collectives #141–#150,"
                                + " 29 operations of 3 ranks)\n"),
                r::toString);
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 1000, "a real picture, not " + bytes.length + " bytes");
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(bytes, 8));
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(pixels(image, 0xFF7F0E) > 500, "the running bars are drawn in orange");
        assertTrue(pixels(image, 0x2CA02C) > 50, "the completed ones in green");
    }

    @Test
    void plotWithJsonKeepsStdoutOneDocument() throws IOException {
        // Size 1 and a rank short of the size: the shapes that once sent XChart's tick calculator into a loop.
        DumpFile.rank(0, 1).allReduces(0, 4).writeTo(dir);
        Path png = dir.resolve("one.png");
        Cli.Result r = trace(dir.toString(), "--json", "--plot", png.toString());
        assertEquals(0, r.code(), r::toString);
        assertEquals(
                "jccl trace", new ObjectMapper().readTree(r.out()).get("tool").asText());
        assertTrue(r.err().startsWith("wrote " + png), r::toString);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(Files.readAllBytes(png), 8));

        Path other = Files.createDirectory(dir.resolve("other"));
        DumpFile.rank(0, 5).allReduces(0, 2).running(3, "AllReduce").writeTo(other);
        DumpFile.rank(2, 5).allReduces(0, 3).writeTo(other);
        Cli.Result r2 = trace(other.toString(), "--plot", other.resolve("t.png").toString());
        assertEquals(0, r2.code(), r2::toString);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(Files.readAllBytes(other.resolve("t.png")), 8));
    }

    @Test
    void severalCommunicatorsAreShownNewestFirstAndCommPicksOne() {
        DumpFile.rank(0, 2)
                .comm("1111111111111111")
                .dumpedAt(DumpFile.T0 + 1_000_000)
                .allReduces(0, 3)
                .writeTo(dir);
        DumpFile.rank(1, 2)
                .comm("1111111111111111")
                .dumpedAt(DumpFile.T0 + 1_000_000)
                .allReduces(0, 3)
                .writeTo(dir);
        DumpFile.rank(0, 2)
                .comm("00000000000000ff")
                .dumpedAt(DumpFile.T0 + 9_000_000)
                .allReduces(0, 5)
                .writeTo(dir);

        Cli.Result all = trace(dir.toString());
        assertEquals(0, all.code(), all::toString);
        assertTrue(
                all.out()
                        .startsWith(dir + " holds dumps of 2 communicators, shown newest first (--comm ID for one):"
                                + " 00000000000000ff (1 dump), 1111111111111111 (2 dumps)\n\ncommunicator"
                                + " 00000000000000ff: dumps from 1 of 2 ranks"),
                all::toString);
        assertTrue(all.out().contains("\ncommunicator 1111111111111111: dumps from 2 of 2 ranks"), all::toString);

        Cli.Result one = trace(dir.toString(), "--comm", "0x1111111111111111");
        assertEquals(0, one.code(), one::toString);
        assertTrue(one.out().startsWith("communicator 1111111111111111: dumps from 2 of 2 ranks"), one::toString);
        assertFalse(one.out().contains("00000000000000ff"), one::toString);
        assertTrue(trace(dir.toString(), "--comm", "ff").out().startsWith("communicator 00000000000000ff:"));

        assertFails(
                "no dump of communicator 42 in " + dir + "; it holds 00000000000000ff (1 dump, newest at"
                        + " 2025-06-01T10:00:09Z), 1111111111111111 (2 dumps, newest at 2025-06-01T10:00:01Z)",
                dir.toString(),
                "--comm",
                "42");
    }

    @Test
    void aRankThatDumpedTwiceCountsOnceWithItsNewestDump() throws IOException {
        rankOneStayedOut();
        Files.writeString(
                dir.resolve("rank1-later.json"),
                DumpFile.rank(1, 3)
                        .dumpedAt(DumpFile.T0 + 6_000_000)
                        .allReduces(0, 149)
                        .running(150, "AllReduce")
                        .json());
        Files.writeString(dir.resolve("perf.json"), "{\"tool\": \"jccl perf\", \"rows\": []}");
        Cli.Result r = trace(dir.toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.out()
                        .startsWith("note: left out perf.json: a JSON file that is not a dump\n"
                                + "note: rank 1 of 00000000000abcde dumped twice: using rank1-later.json, the newer,"
                                + " not jccl-trace-00000000000abcde-rank1.json\n"),
                r::toString);
        assertTrue(r.out().contains("\n  all ranks are level: each is waiting in #150 AllReduce;"), r::toString);
    }

    // Bad input: one line on stderr naming the file and what to do, nothing on stdout, exit 1, no stack trace.

    @Test
    void aMissingDirectoryIsNamed() {
        Path missing = dir.resolve("nosuch");
        assertFails(
                "cannot read " + missing + ": no such directory; give the directory that holds the dumps (ranks write"
                        + " jccl-trace-<communicator>-rank<r>.json into JCCL_TRACE_DIR (default: the temp dir) when an"
                        + " operation fails, and comm.dumpTrace(path) writes one on request)",
                missing.toString());
    }

    @Test
    void aDirectoryWithoutDumpsSaysHowToGetThem() throws IOException {
        assertFails(
                "no flight-recorder dumps in " + dir + " (no *.json file); ranks write"
                        + " jccl-trace-<communicator>-rank<r>.json into JCCL_TRACE_DIR (default: the temp dir) when an"
                        + " operation fails, and comm.dumpTrace(path) writes one on request",
                dir.toString());
        Files.writeString(dir.resolve("info.json"), "{\"version\": \"0.1.0\"}");
        assertFails(
                "no flight-recorder dumps in " + dir + ": its 1 JSON file(s) are something else; ranks write"
                        + " jccl-trace-<communicator>-rank<r>.json into JCCL_TRACE_DIR (default: the temp dir) when an"
                        + " operation fails, and comm.dumpTrace(path) writes one on request",
                dir.toString());
    }

    @Test
    void aFileThatIsNotJsonIsNamed() throws IOException {
        rankOneStayedOut();
        Path cut = dir.resolve("jccl-trace-00000000000abcde-rank2.json");
        String json = Files.readString(cut);
        Files.writeString(cut, json.substring(0, json.length() / 2));
        Cli.Result r = trace(dir.toString());
        assertEquals(1, r.code(), r::toString);
        assertEquals("", r.out());
        assertTrue(
                r.err().startsWith("jccl trace: " + cut + " is not a readable flight-recorder dump: it is not JSON ("),
                r::toString);
        assertTrue(r.err().endsWith("; move it out of " + dir + " (or repair it) and run again\n"), r::toString);
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void aDumpWithoutAFieldIsNamedWithTheField() throws IOException {
        Path file = DumpFile.rank(0, 2).allReduces(0, 1).writeTo(dir);
        Files.writeString(file, Files.readString(file).replaceFirst("\"seq\": 1, ", ""));
        assertFails(
                file + " is not a readable flight-recorder dump: operations[1].seq is missing; move it out of " + dir
                        + " (or repair it) and run again",
                dir.toString());
        Files.writeString(file, "[1, 2]");
        assertFails(
                file + " is not a readable flight-recorder dump: it holds a JSON an array, not an object; move it out"
                        + " of " + dir + " (or repair it) and run again",
                dir.toString());
    }

    @Test
    void aFileGivenForTheDirectoryIsRefused() {
        Path file = DumpFile.rank(0, 2).allReduces(0, 1).writeTo(dir);
        assertFails(file + " is a file; give the directory that holds every rank's dump, e.g. " + dir, file.toString());
    }

    @Test
    void aPlotThatCannotBeWrittenIsRefusedBeforeTheReport() {
        rankOneStayedOut();
        UnwritablePngs.assertRefused(TraceCommandTest::assertFails, dir, dir.toString(), "--plot");
    }

    @Test
    void lastMustBePositive() {
        rankOneStayedOut();
        Cli.Result r = trace(dir.toString(), "--last", "0");
        assertEquals(2, r.code(), r::toString);
        assertTrue(r.err().startsWith("--last must be at least 1, got 0"), r::toString);
    }

    @Test
    void helpIsListedAndShowsTheOptions() {
        Cli.Result top = Cli.inProcess(Cli.cleanEnvironment(), "--help");
        assertTrue(top.out().contains("\n  trace "), top::toString);
        Cli.Result r = trace("--help");
        assertEquals(0, r.code(), r::toString);
        assertTrue(
                r.out().contains("Usage: jccl trace [-hV] [--json] [--comm=ID] [--last=N] [--plot=FILE.png] DIR"),
                r::toString);
    }

    private static Cli.Result trace(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "trace";
        System.arraycopy(args, 0, all, 1, args.length);
        return Cli.inProcess(Cli.cleanEnvironment(), all);
    }

    private static void assertFails(String message, String... args) {
        Cli.Result r = trace(args);
        assertEquals(1, r.code(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertEquals("jccl trace: " + message + "\n", r.err().replace(System.lineSeparator(), "\n"));
    }

    private static int pixels(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) n++;
            }
        }
        return n;
    }
}
