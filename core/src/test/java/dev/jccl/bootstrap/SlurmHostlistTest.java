package dev.jccl.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class SlurmHostlistTest {

    @Test
    void plainName() {
        assertEquals(List.of("login1"), SlurmHostlist.expand("login1"));
        assertEquals("login1", SlurmHostlist.first("login1"));
    }

    @Test
    void plainNamesSeparatedByCommas() {
        assertEquals(List.of("a", "b.example.org", "c-1"), SlurmHostlist.expand("a,b.example.org,c-1"));
    }

    @Test
    void singleRange() {
        assertEquals(List.of("node1", "node2", "node3"), SlurmHostlist.expand("node[1-3]"));
    }

    @Test
    void zeroPaddedRangeKeepsItsWidth() {
        assertEquals(List.of("node08", "node09", "node10", "node11"), SlurmHostlist.expand("node[08-11]"));
        assertEquals(List.of("n001", "n002"), SlurmHostlist.expand("n[001-002]"));
        assertEquals("node08", SlurmHostlist.first("node[08-11]"));
    }

    @Test
    void unpaddedRangeGrowsInWidth() {
        assertEquals(List.of("n9", "n10", "n11"), SlurmHostlist.expand("n[9-11]"));
    }

    @Test
    void paddedRangePastItsWidth() {
        assertEquals(List.of("n98", "n99", "n100"), SlurmHostlist.expand("n[98-100]"));
        assertEquals(List.of("n099", "n100"), SlurmHostlist.expand("n[099-100]"));
    }

    @Test
    void listsAndSinglesInsideBrackets() {
        assertEquals(List.of("node01", "node02", "node03", "node07"), SlurmHostlist.expand("node[01-03,07]"));
        assertEquals(List.of("x5", "x1", "x2"), SlurmHostlist.expand("x[5,1-2]"));
    }

    @Test
    void commasInsideAndOutsideBrackets() {
        assertEquals(
                List.of("node01", "node02", "node03", "node07", "gpu-a1", "gpu-a2"),
                SlurmHostlist.expand("node[01-03,07],gpu-a[1-2]"));
        assertEquals("node01", SlurmHostlist.first("node[01-03,07],gpu-a[1-2]"));
    }

    @Test
    void severalGroupsInOneNameMultiplyLeftmostSlowest() {
        assertEquals(
                List.of("rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"),
                SlurmHostlist.expand("rack[1-2]-node[01-02]"));
        assertEquals("rack1-node01", SlurmHostlist.first("rack[1-2]-node[01-02]"));
    }

    @Test
    void suffixAfterBracket() {
        assertEquals(List.of("n1-ib", "n2-ib"), SlurmHostlist.expand("n[1-2]-ib"));
        assertEquals(List.of("n1.cluster", "n3.cluster"), SlurmHostlist.expand("n[1,3].cluster"));
    }

    @Test
    void nameThatIsOnlyABracketGroup() {
        assertEquals(List.of("7", "8"), SlurmHostlist.expand("[7-8]"));
    }

    @Test
    void digitsBeforeBracketStayLiteral() {
        assertEquals(List.of("n10", "n11", "n12"), SlurmHostlist.expand("n1[0-2]"));
    }

    @Test
    void singleElementRangeAndDuplicatesKept() {
        assertEquals(List.of("n5"), SlurmHostlist.expand("n[5-5]"));
        assertEquals(List.of("a", "a"), SlurmHostlist.expand("a,a"));
    }

    @Test
    void whiteSpaceSeparatesLikeACommaAndIsTrimmed() {
        assertEquals(List.of("a1", "a2", "b"), SlurmHostlist.expand("  a[1-2] b "));
        assertEquals(List.of("a", "b"), SlurmHostlist.expand("a, b"));
        assertEquals(List.of("a", "b"), SlurmHostlist.expand("a ,b"));
    }

    @Test
    void mixedRealisticList() {
        List<String> hosts = SlurmHostlist.expand("gpu-[001-003],cpu-a[1-2]b[7,9],login");
        assertEquals(
                List.of("gpu-001", "gpu-002", "gpu-003", "cpu-a1b7", "cpu-a1b9", "cpu-a2b7", "cpu-a2b9", "login"),
                hosts);
    }

    @Test
    void largeButReasonableList() {
        List<String> hosts = SlurmHostlist.expand("n[0000-4095]");
        assertEquals(4096, hosts.size());
        assertEquals("n0000", hosts.getFirst());
        assertEquals("n4095", hosts.getLast());
    }

    @Test
    void firstDoesNotExpandAHugeList() {
        assertEquals("n0", SlurmHostlist.first("n[0-999999999999]"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.expand("n[0-999999999999]"));
        assertTrue(e.getMessage().contains("more than"), e.getMessage());
    }

    @ParameterizedTest(name = "[{index}] ''{0}''")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "node[1-3        | is never closed",
                "node1-3]        | without a '['",
                "node[[1-2]]     | inside brackets",
                "node[1-[2]]     | inside brackets",
                "node[]          | empty brackets",
                "node[1,]        | empty range",
                "node[,1]        | empty range",
                "node[1,,2]      | empty range",
                "node[3-1]       | runs backwards",
                "node[10-09]     | runs backwards",
                "node[a-b]       | not a number",
                "node[1-]        | not a number",
                "node[-3]        | not a number",
                "node[1-2-3]     | not a number",
                "node[1 - 2]     | not a number",
                "node[0x1]       | not a number",
                "node[1234567890123456789] | too many digits",
                "a,,b            | empty host name",
                ",a              | empty host name",
                "a,              | no host name after",
                "a, ,b           | empty host name",
            })
    void malformed(String expr, String fault) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.expand(expr));
        assertTrue(e.getMessage().contains(fault), e.getMessage());
        assertTrue(e.getMessage().contains("'" + expr + "'"), "message quotes the expression: " + e.getMessage());
        IllegalArgumentException f = assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.first(expr));
        assertEquals(e.getMessage(), f.getMessage());
    }

    @Test
    void malformedReportsThePosition() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.expand("ok[1-2],bad[9-3]"));
        assertTrue(e.getMessage().contains("position 12"), e.getMessage());
    }

    @Test
    void emptyOrBlank() {
        for (String s : new String[] {"", "   ", null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.expand(s));
            assertTrue(e.getMessage().contains("empty"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> SlurmHostlist.first(s));
        }
    }
}
