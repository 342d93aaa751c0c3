package dev.jccl.transport;

import dev.jccl.bootstrap.PeerInfo;
import java.util.List;

/** A {@link Transport} opened by a {@link NetPlugin}: it has an address to publish before it can start. */
public interface NetTransport extends Transport {
    /** What peers need to reach this rank (for UCX, the worker address); carried in {@link PeerInfo#netAddress()}. */
    byte[] localAddress();

    /**
     * This rank's place and the peer table, whose {@link PeerInfo#netAddress()} entries say where to reach each rank.
     */
    void start(int rank, List<PeerInfo> peers);

    /** One line for debug output: the library, its version, the devices or transports it uses. */
    String describe();
}
