package dev.jccl.transport.table;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.transport.Transport;
import java.util.List;

/**
 * A network transport opened before the peer table was known (its address had to be in the table): sockets, or the
 * endpoint of a network plugin. It can reach every peer.
 */
final class OpenedFactory implements TransportFactory {
    private final String name;
    private final boolean namesHost;
    private final Transport transport;
    private boolean taken;

    /** {@code namesHost}: logs name the peer's data address after {@code name} ({@code NET/Socket/10.0.0.2}). */
    OpenedFactory(String name, boolean namesHost, Transport transport) {
        this.name = name;
        this.namesHost = namesHost;
        this.transport = transport;
    }

    @Override
    public String via(PeerInfo peer) {
        return namesHost ? name + "/" + peer.dataHost() : name;
    }

    @Override
    public boolean canConnect(PeerInfo me, PeerInfo peer) {
        return true;
    }

    @Override
    public Transport open(int rank, List<PeerInfo> peers, List<Integer> routed) {
        taken = true;
        return transport;
    }

    @Override
    public void close() {
        if (!taken) transport.close();
    }
}
