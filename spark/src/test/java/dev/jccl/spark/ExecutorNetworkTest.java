package dev.jccl.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.jccl.Config;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ExecutorNetworkTest {
    @Test
    void hostIsTakenFromSparksAddressForms() {
        assertEquals("10.0.0.5", ExecutorNetwork.host("10.0.0.5:40213"));
        assertEquals("worker-3.example", ExecutorNetwork.host("worker-3.example:7078"));
        assertEquals("fe80::1", ExecutorNetwork.host("[fe80::1]:7078"));
        assertEquals("fe80::1", ExecutorNetwork.host("fe80::1"));
        assertEquals("127.0.0.1", ExecutorNetwork.host("127.0.0.1"));
        assertNull(ExecutorNetwork.host(""));
    }

    @Test
    void theInterfaceHoldingTheExecutorsAddressIsChosenExactly() {
        Config chosen = ExecutorNetwork.onExecutorInterface(Config.fromEnvironment(Map.of()), "127.0.0.1:7078");
        assertEquals("=lo", chosen.socketIfname());
    }

    @Test
    void aFilterTheUserSetWins() {
        Config user = Config.fromEnvironment(Map.of("NCCL_SOCKET_IFNAME", "eth"));
        assertSame(user, ExecutorNetwork.onExecutorInterface(user, "127.0.0.1:7078"));
    }

    @Test
    void anAddressNoInterfaceHereHoldsLeavesTheChoiceToJccl() {
        Config none = Config.fromEnvironment(Map.of());
        // TEST-NET-2 (RFC 5737), a literal: nothing is resolved or sent, only the local interfaces are compared.
        assertSame(none, ExecutorNetwork.onExecutorInterface(none, "198.51.100.77:7078"));
    }
}
