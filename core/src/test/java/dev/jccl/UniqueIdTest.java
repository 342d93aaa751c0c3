package dev.jccl;

import static org.junit.jupiter.api.Assertions.*;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class UniqueIdTest {
    private static final Config LO = Config.builder().socketIfname("lo").build();

    @Test
    void roundTripsThroughText() throws Exception {
        UniqueId id = UniqueId.create(LO);
        try (ServerSocketChannel reserved = id.takeReservedListener()) {
            assertNotNull(reserved, "create() keeps the port bound for an in-process rank 0");
            assertNull(id.takeReservedListener(), "the reservation is handed over once");
            UniqueId parsed = UniqueId.parse(id.toString());
            assertEquals(id, parsed);
            assertTrue(parsed.rootAddress().getAddress().isLoopbackAddress());
            assertEquals(
                    ((InetSocketAddress) reserved.getLocalAddress()).getPort(),
                    parsed.rootAddress().getPort());
            assertTrue(id.toString().matches("jccl1:127\\.0\\.0\\.1:\\d+:[0-9a-f]{32}"), id.toString());
        }
    }

    @Test
    void anIdForAnotherProcessHoldsNoPortAndNamesOneBelowTheEphemeralRange() throws Exception {
        int ephemeralStart = EphemeralPorts.firstEphemeralPort();
        for (int i = 0; i < 20; i++) {
            UniqueId id = UniqueId.createForAnotherProcess(LO);
            assertNull(id.takeReservedListener(), "nothing is held for an in-process rank 0");
            int port = id.rootAddress().getPort();
            assertTrue(
                    port >= EphemeralPorts.FIRST_CANDIDATE && port < ephemeralStart,
                    () -> "port " + port + " is not in [" + EphemeralPorts.FIRST_CANDIDATE + ", " + ephemeralStart
                            + "), where no outgoing connection can take it");
            try (ServerSocketChannel rank0 = ServerSocketChannel.open()) {
                rank0.bind(id.rootAddress()); // what the worker's rank 0 does later
            }
        }
    }

    @Test
    void theEphemeralRangeIsReadFromTheKernelsText() {
        assertEquals(32768, EphemeralPorts.parseRangeStart("32768\t60999\n"));
        assertEquals(1024, EphemeralPorts.parseRangeStart(" 1024 65535"));
        assertThrows(NumberFormatException.class, () -> EphemeralPorts.parseRangeStart("garbage"));
        assertThrows(IllegalArgumentException.class, () -> EphemeralPorts.parseRangeStart("0 10"));
    }

    @Test
    void secretsDiffer() {
        UniqueId a = UniqueId.create(LO);
        UniqueId b = UniqueId.create(LO);
        assertNotEquals(a, b);
        a.takeReservedListener();
        b.takeReservedListener();
    }

    @Test
    void ipv6HostsAreBracketed() {
        UniqueId id = UniqueId.of(new InetSocketAddress("::1", 4242), new byte[16]);
        assertEquals("jccl1:[0:0:0:0:0:0:0:1]:4242:00000000000000000000000000000000", id.toString());
        assertEquals(id, UniqueId.parse(id.toString()));
    }

    @Test
    void malformedTextSaysWhatIsWrong() {
        assertParseRefused("hello", "not a Jccl unique id");
        assertParseRefused("jccl1:127.0.0.1:99999:00000000000000000000000000000000", "port");
        assertParseRefused("jccl1:127.0.0.1:80:abc", "32 hex");
        assertParseRefused("jccl1:127.0.0.1:80:zz000000000000000000000000000000", "hex");
        assertThrows(IllegalArgumentException.class, () -> UniqueId.parse(null));
    }

    /** {@code text} is refused with an IllegalArgumentException whose message contains {@code mention}. */
    private static void assertParseRefused(String text, String mention) {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> UniqueId.parse(text))
                .getMessage()
                .contains(mention));
    }

    /**
     * Mutated and random id texts either parse or fail with IllegalArgumentException. Texts whose host part is not the
     * seed's loopback literal are only checked for that much by the test, not parsed: parsing would ask the resolver
     * about random names.
     */
    @Test
    void mutatedIdsParseOrAreRefusedClearly() {
        byte[] seed = "jccl1:127.0.0.1:29500:00112233445566778899aabbccddeeff"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] v6 = "jccl1:[::1]:4242:0123456789abcdef0123456789ABCDEF"
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Fuzz.Report report = Fuzz.run("UniqueId.parse", java.util.List.of(seed, v6), 64 << 10, input -> {
            String text = new String(input, java.nio.charset.StandardCharsets.ISO_8859_1);
            if (resolverWouldBeAsked(text)) return false;
            try {
                UniqueId id = UniqueId.parse(text);
                assertTrue(id.rootAddress().getAddress().isLoopbackAddress(), text);
                assertEquals(16, id.secret().length);
                return true;
            } catch (IllegalArgumentException refused) {
                assertNotNull(refused.getMessage());
                return false;
            }
        });
        assertTrue(report.decoded() > 0 && report.refused() > 0, report.toString());
    }

    private static boolean resolverWouldBeAsked(String text) {
        if (!text.startsWith("jccl1:")) return false;
        String rest = text.substring("jccl1:".length());
        int last = rest.lastIndexOf(':');
        int portColon = last < 0 ? -1 : rest.lastIndexOf(':', last - 1);
        if (portColon < 0) return false;
        String host = rest.substring(0, portColon);
        return !host.equals("127.0.0.1") && !host.equals("[::1]");
    }
}
