package dev.jccl.transport.table;

import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPluginException;
import dev.jccl.transport.NetPlugins;
import dev.jccl.transport.NetTransport;
import dev.jccl.transport.shm.ShmTransport;
import dev.jccl.transport.tcp.TcpTransport;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rank opens before it knows its peers, because the peers must learn its addresses from the bootstrap: the
 * socket listener, and the endpoint of the network plugin {@code JCCL_NET} chose. {@link TransportTable#wire} then
 * turns them, with the peer table, into the transports a communicator runs on. Closing closes whatever has not been
 * handed over.
 */
public final class Endpoints implements AutoCloseable {
    private final long commId;
    private final TcpTransport sockets;
    private final NetTransport net;
    private final NetPlugin plugin;
    private boolean handedOver;

    private Endpoints(long commId, TcpTransport sockets, NetTransport net, NetPlugin plugin) {
        this.commId = commId;
        this.sockets = sockets;
        this.net = net;
        this.plugin = plugin;
    }

    /**
     * Opens the listener on {@code bindAddress} and, with a {@code plugin}, its endpoint on the interface
     * {@code interfaceName}. A plugin that cannot run here is an error naming {@code JCCL_NET}, not a silent fall back
     * to sockets.
     */
    public static Endpoints open(
            long commId,
            byte[] secret,
            Config config,
            InetAddress bindAddress,
            String interfaceName,
            NetPlugin plugin,
            Log log) {
        TcpTransport sockets = new TcpTransport(commId, secret, config.chunkBytes(), bindAddress, log);
        try {
            NetTransport net = plugin == null ? null : openPlugin(plugin, config, commId, interfaceName, log);
            return new Endpoints(commId, sockets, net, plugin);
        } catch (RuntimeException e) {
            sockets.close();
            throw e;
        }
    }

    private static NetTransport openPlugin(
            NetPlugin plugin, Config config, long commId, String interfaceName, Log log) {
        try {
            NetTransport net = plugin.open(
                    new NetPlugin.Settings(commId, config.chunkBytes(), interfaceName, config.ibHca()), log);
            log.info(Log.Subsys.NET, "NET/" + plugin.name() + " : Using " + net.describe());
            return net;
        } catch (NetPluginException e) {
            throw new JcclException(
                    "JCCL_NET=" + config.net() + " asks for " + plugin.name() + ", which cannot run here: "
                            + e.getMessage() + " (unset JCCL_NET to use sockets)",
                    e);
        }
    }

    /** Why ranks on different hosts will use sockets, for the debug output. */
    public static String whyNoPlugin(Config config) {
        List<String> available = new ArrayList<>();
        for (NetPlugin p : NetPlugins.all()) {
            try {
                available.add(p.name() + " (" + p.probe() + ")");
            } catch (NetPluginException e) {
                available.add(p.name() + " unusable: " + e.getMessage());
            }
        }
        return "NET/Plugin : between hosts using sockets ("
                + (config.net() == null ? "JCCL_NET unset" : "JCCL_NET=" + config.net()) + "); "
                + (available.isEmpty()
                        ? "no network plugin on the class path"
                        : "JCCL_NET=<name> selects one of: " + String.join(", ", available));
    }

    /**
     * This process's shared-memory prefix for its {@link PeerInfo}, or "" where it cannot (or, with {@code disabled},
     * must not) use shared memory; {@code why} says why not.
     */
    public static String sharedMemoryPrefix(boolean disabled, StringBuilder why) {
        return disabled ? "" : ShmTransport.prefixForThisProcess(why);
    }

    long commId() {
        return commId;
    }

    /** How reports name the network transport: {@code tcp}, or the plugin's name in lower case ({@code ucx}). */
    String netName() {
        return plugin == null ? "tcp" : plugin.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The port peers dial for sockets. */
    public int socketPort() {
        return sockets.listenAddress().getPort();
    }

    /** The plugin endpoint's address for peers, or an empty array without a plugin. */
    public byte[] netAddress() {
        return net == null ? new byte[0] : net.localAddress();
    }

    /**
     * Starts what was opened with this rank's place and the exchanged table; the factories that carry it, in order of
     * preference.
     */
    List<TransportFactory> start(int rank, List<PeerInfo> peers, ShmFactory shm) {
        sockets.start(rank, peers);
        if (net != null) net.start(rank, peers);
        handedOver = true;
        List<TransportFactory> factories = new ArrayList<>();
        factories.add(shm);
        if (net != null) factories.add(new OpenedFactory("NET/" + plugin.name(), false, net));
        factories.add(new OpenedFactory("NET/Socket", true, sockets));
        return factories;
    }

    @Override
    public void close() {
        if (handedOver) return;
        sockets.close();
        if (net != null) net.close();
    }
}
