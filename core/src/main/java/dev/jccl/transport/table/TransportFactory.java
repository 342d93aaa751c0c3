package dev.jccl.transport.table;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.transport.Transport;
import java.util.List;

/**
 * One kind of transport, as the {@link TransportTable} sees it: it answers, from the peer table alone, whether it can
 * carry data between this rank and a peer, and opens its transport once it has been given at least one peer. Every rank
 * asks the same questions of the same table, so all agree on how each pair is connected.
 */
interface TransportFactory extends AutoCloseable {

    /**
     * How logs name this factory's connection to {@code peer}, e.g. {@code SHM/direct} or {@code NET/Socket/10.0.0.2}.
     */
    String via(PeerInfo peer);

    /** True if this factory's transport can connect {@code me} to {@code peer}. */
    boolean canConnect(PeerInfo me, PeerInfo peer);

    /** The transport, for the {@code routed} peers the table gave this factory (at least one). */
    Transport open(int rank, List<PeerInfo> peers, List<Integer> routed);

    /** Releases what the factory holds that no transport took over (a listener no peer will use). */
    @Override
    void close();
}
