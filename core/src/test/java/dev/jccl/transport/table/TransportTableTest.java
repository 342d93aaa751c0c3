package dev.jccl.transport.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.Config;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The routing decisions the table makes from a peer table alone. Shared memory between real processes is covered by the
 * runtime's and the conformance tests (they check the same "via" lines in the init log); here no peer shares this
 * rank's memory, so nothing is connected and only the table's answers are looked at.
 */
@Timeout(30)
class TransportTableTest {
    private static final Config CONFIG = Config.fromEnvironment(Map.of("JCCL_SOCKET_IFNAME", "lo"));
    private static final byte[] SECRET = new byte[32];

    private static PeerInfo peer(int rank, String host, String shmPrefix) {
        return new PeerInfo(rank, host, host, 1000 + rank, "127.0.0." + (rank + 1), 40000 + rank, shmPrefix, "", "");
    }

    private static Wiring wire(int rank, List<PeerInfo> peers) throws Exception {
        Endpoints endpoints =
                Endpoints.open(1, SECRET, CONFIG, InetAddress.getLoopbackAddress(), "lo", null, new Log(CONFIG, rank));
        return TransportTable.wire(
                endpoints,
                rank,
                peers,
                CONFIG.buffSize(),
                true,
                false,
                new Log(CONFIG, rank),
                System.nanoTime() + 5_000_000_000L);
    }

    @Test
    void aSingleRankIsLocalAndOffersNoOutbox() throws Exception {
        Wiring w = wire(0, List.of(peer(0, "a", "jccl-x")));
        try {
            assertEquals("local", w.summary());
            assertNull(w.outbox());
            assertNull(w.board());
            assertNotNull(w.transport());
            assertEquals(List.of("self"), w.via());
        } finally {
            w.transport().close();
        }
    }

    @Test
    void ranksOnOtherHostsGoOverSocketsNamedByTheirAddress() throws Exception {
        List<PeerInfo> peers = List.of(peer(0, "a", "jccl-a"), peer(1, "b", "jccl-b"), peer(2, "c", ""));
        Wiring w = wire(1, peers);
        try {
            assertEquals("tcp", w.summary());
            assertEquals("Socket", w.transport().name());
            assertNull(w.outbox(), "the LL outbox needs every rank in shared memory");
            assertNull(w.board(), "no peer can read this rank's board");
            assertEquals("NET/Socket/127.0.0.1 (different host)", w.via().get(0));
            assertEquals("self", w.via().get(1));
            assertEquals("NET/Socket/127.0.0.3 (different host)", w.via().get(2));
        } finally {
            w.transport().close();
        }
    }

    @Test
    void aSameHostPeerWithoutSharedMemoryIsToldApartInTheLog() throws Exception {
        // Rank 1 has no /dev/shm (empty prefix), so the pair cannot use shared memory although it shares a host.
        List<PeerInfo> peers = List.of(peer(0, "a", "jccl-a"), peer(1, "a", ""));
        Wiring w = wire(0, peers);
        try {
            assertEquals("tcp", w.summary());
            assertTrue(
                    w.via().get(1).startsWith("NET/Socket/127.0.0.2 (same host, but rank 1 does not use shared memory"),
                    w.via().get(1));
        } finally {
            w.transport().close();
        }
    }
}
