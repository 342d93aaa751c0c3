package dev.jccl.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one-line description of a layout that the tuner's table and the start-up log print. */
class HostGroupsTest {
    @Test
    void consecutiveEvenLayoutsAreNamedNotListed() {
        assertEquals(
                "32 hosts of 128 consecutive ranks", HostGroups.evenly(32, 128).summary());
        assertEquals(
                "2 hosts of 1 consecutive ranks",
                HostGroups.of(List.of("a", "b")).summary());
    }

    @Test
    void fewOtherHostsAreListedInFull() {
        HostGroups interleaved = HostGroups.of(List.of("a", "b", "a", "b"));
        assertEquals("[0, 2] | [1, 3]", interleaved.summary());
        HostGroups uneven = HostGroups.of(List.of("a", "a", "a", "b"));
        assertEquals("[0, 1, 2] | [3]", uneven.summary());
    }

    @Test
    void manyOtherHostsShowTheFirstAndTheCount() {
        List<String> keys = new ArrayList<>();
        for (int r = 0; r < 4096; r++) keys.add("host" + (r % 32)); // round-robin: host h holds h, h + 32, …
        String s = HostGroups.of(keys).summary();
        assertTrue(s.startsWith("[0, 32, 64, "), s);
        assertTrue(s.endsWith("… 32 hosts in all"), s);
        assertEquals(4, s.split(" \\| ").length - 1, s);
        assertTrue(s.length() < 4 * 128 * 6, "4 hosts of 128 ranks at most: " + s.length());
    }
}
