package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.UniqueId;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IdCommandTest {

    @Test
    void printsAnIdThatParsesOnTheConfiguredInterface() throws Exception {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_SOCKET_IFNAME", "lo"), "id");
        assertEquals(0, r.code(), r::toString);
        assertEquals("", r.err());
        assertTrue(r.out().endsWith("\n") && r.out().lines().count() == 1, "one line, for JCCL_ID=$(jccl id): " + r);
        UniqueId id = UniqueId.parse(r.out().strip());
        assertEquals("127.0.0.1", id.rootAddress().getAddress().getHostAddress());
        // The id is for another process: the port must not stay held by this one.
        assertNull(id.takeReservedListener());
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(new InetSocketAddress(
                    id.rootAddress().getAddress(), id.rootAddress().getPort()));
        }
    }

    @Test
    void everyCallMakesANewSecret() {
        String a = Cli.inProcess(Cli.environment("JCCL_SOCKET_IFNAME", "lo"), "id")
                .out()
                .strip();
        String b = Cli.inProcess(Cli.environment("JCCL_SOCKET_IFNAME", "lo"), "id")
                .out()
                .strip();
        assertNotEquals(a.substring(a.lastIndexOf(':')), b.substring(b.lastIndexOf(':')));
    }

    @Test
    void ifnameOverridesTheEnvironment() {
        Cli.Result r = Cli.inProcess(Cli.environment("JCCL_SOCKET_IFNAME", "=nosuch0"), "id", "--ifname", "lo");
        assertEquals(0, r.code(), r::toString);
        assertEquals(
                "127.0.0.1",
                UniqueId.parse(r.out().strip()).rootAddress().getAddress().getHostAddress());
    }

    @Test
    void anInterfaceThatIsNotThereIsAClearError() {
        Cli.Result r = Cli.inProcess(Cli.environment(), "id", "--ifname", "=nosuch0");
        assertEquals(1, r.code(), r::toString);
        assertEquals("", r.out());
        assertTrue(
                r.err().startsWith("jccl id: SOCKET_IFNAME='=nosuch0' matches no usable interface; interfaces here: "),
                r::toString);
        assertEquals(1, r.err().lines().count(), "a message, not a stack trace: " + r);
    }
}
