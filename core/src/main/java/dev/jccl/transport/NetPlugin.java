package dev.jccl.transport;

import dev.jccl.debug.Log;

/**
 * A network transport that lives outside the core, found with {@link java.util.ServiceLoader} (e.g. the
 * {@code jccl-ucx} module's UCX transport), so that the core needs no native library. {@code JCCL_NET} /
 * {@code NCCL_NET} names the one to use between hosts; without it, ranks on different hosts use the core's sockets.
 */
public interface NetPlugin {
    /** The name {@code JCCL_NET} takes, e.g. {@code UCX}; compared without regard to case. */
    String name();

    /**
     * Whether this plugin can run here, and what it would use, in one line for {@code jccl info} and debug output, e.g.
     * {@code UCX 1.13.1 (libucp.so.0)}; throws {@link NetPluginException} saying what is missing and how to install it.
     */
    String probe() throws NetPluginException;

    /**
     * Opens this rank's endpoint of the transport before the bootstrap, so that its address can travel in the peer
     * table; {@link NetTransport#start} follows once the table is known.
     */
    NetTransport open(Settings settings, Log log) throws NetPluginException;

    /**
     * What a plugin needs from the communicator's configuration.
     *
     * @param commId the communicator's id (plugins may use it to tell jobs apart)
     * @param chunkBytes the largest payload of one transfer
     * @param interfaceName the network interface the sockets use (JCCL_SOCKET_IFNAME resolved), for plugins that can
     *     run over TCP
     * @param ibHca JCCL_IB_HCA / NCCL_IB_HCA, or null
     */
    record Settings(long commId, int chunkBytes, String interfaceName, String ibHca) {}
}
