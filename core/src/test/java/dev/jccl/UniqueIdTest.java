package dev.jccl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;

import static org.junit.jupiter.api.Assertions.*;

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
            assertEquals(((InetSocketAddress) reserved.getLocalAddress()).getPort(), parsed.rootAddress().getPort());
            assertTrue(id.toString().matches("jccl1:127\\.0\\.0\\.1:\\d+:[0-9a-f]{32}"), id.toString());
        }
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
        assertTrue(assertThrows(IllegalArgumentException.class, () -> UniqueId.parse("hello")).getMessage().contains("not a Jccl unique id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> UniqueId.parse("jccl1:127.0.0.1:99999:00000000000000000000000000000000"))
                .getMessage().contains("port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> UniqueId.parse("jccl1:127.0.0.1:80:abc"))
                .getMessage().contains("32 hex"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> UniqueId.parse("jccl1:127.0.0.1:80:zz000000000000000000000000000000"))
                .getMessage().contains("hex"));
        assertThrows(IllegalArgumentException.class, () -> UniqueId.parse(null));
    }
}
