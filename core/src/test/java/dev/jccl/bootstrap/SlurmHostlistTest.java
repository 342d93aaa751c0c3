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

    /** Each expression and its expansion in order, hosts separated by spaces. */
    @ParameterizedTest(name = "[{index}] ''{0}''")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                // plain names, separated by commas
                "login1                    | login1",
                "a,b.example.org,c-1       | a b.example.org c-1",
                // a single range; a zero-padded one keeps its width, an unpadded one grows, a padded one can outgrow it
                "node[1-3]                 | node1 node2 node3",
                "node[08-11]               | node08 node09 node10 node11",
                "n[001-002]                | n001 n002",
                "n[9-11]                   | n9 n10 n11",
                "n[98-100]                 | n98 n99 n100",
                "n[099-100]                | n099 n100",
                // lists and singles inside brackets, commas inside and outside them
                "node[01-03,07]            | node01 node02 node03 node07",
                "x[5,1-2]                  | x5 x1 x2",
                "node[01-03,07],gpu-a[1-2] | node01 node02 node03 node07 gpu-a1 gpu-a2",
                // several groups in one name multiply, the leftmost slowest
                "rack[1-2]-node[01-02]     | rack1-node01 rack1-node02 rack2-node01 rack2-node02",
                // a suffix after the bracket; a name that is only a bracket group; digits before it stay literal
                "n[1-2]-ib                 | n1-ib n2-ib",
                "n[1,3].cluster            | n1.cluster n3.cluster",
                "[7-8]                     | 7 8",
                "n1[0-2]                   | n10 n11 n12",
                // a single-element range; duplicates are kept
                "n[5-5]                    | n5",
                "a,a                       | a a",
                // white space separates like a comma and is trimmed
                "\"  a[1-2] b \"           | a1 a2 b",
                "a, b                      | a b",
                "a ,b                      | a b",
            })
    void expands(String hostlist, String hosts) {
        assertEquals(List.of(hosts.split(" ")), SlurmHostlist.expand(hostlist));
    }

    @ParameterizedTest(name = "[{index}] first of ''{0}''")
    @CsvSource({
        "login1, login1",
        "node[08-11], node08",
        "'node[01-03,07],gpu-a[1-2]', node01",
        "rack[1-2]-node[01-02], rack1-node01"
    })
    void firstIsTheFirstHost(String hostlist, String first) {
        assertEquals(first, SlurmHostlist.first(hostlist));
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
