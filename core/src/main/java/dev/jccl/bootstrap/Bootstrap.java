package dev.jccl.bootstrap;

import dev.jccl.BootstrapException;
import dev.jccl.UniqueId;
import dev.jccl.debug.Log;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.List;

/** Forms a communicator's peer table: rank 0 serves, every other rank joins. */
public final class Bootstrap {
    private Bootstrap() {}

    /**
     * Exchanges {@code self} with every rank of the job described by {@code id}; returns the table indexed by rank.
     * Fails within {@code timeout} with a {@link BootstrapException} that names the missing ranks or the unreachable
     * root.
     */
    public static List<PeerInfo> exchange(int rank, int size, UniqueId id, PeerInfo self, Duration timeout, Log log) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        if (size == 1) {
            ServerSocketChannel reserved = id.takeReservedListener();
            closeQuietly(reserved);
            return List.of(self);
        }
        if (rank == 0) {
            ServerSocketChannel listener = id.takeReservedListener();
            if (listener == null) listener = bind(id.rootAddress());
            try {
                log.info(
                        Log.Subsys.BOOTSTRAP,
                        "root listening on " + listener.getLocalAddress() + " for " + (size - 1) + " ranks");
                return new BootstrapRoot(listener, size, id.secret(), log).serve(self, deadline, start);
            } catch (IOException e) {
                closeQuietly(listener);
                throw new BootstrapException("bootstrap root failed: " + e.getMessage(), e);
            }
        }
        return BootstrapClient.join(id.rootAddress(), rank, size, id.secret(), self, deadline, timeout.toMillis(), log);
    }

    /**
     * Binds the root address. When the address is not one of this host's (a launcher's host name may resolve
     * differently here, e.g. to 127.0.1.1 through /etc/hosts), rank 0 listens on every interface at that port instead:
     * the handshake, not the address, keeps strangers out.
     */
    private static ServerSocketChannel bind(InetSocketAddress address) {
        IOException first;
        try {
            return open(address);
        } catch (IOException e) {
            first = e;
        }
        if (first instanceof java.net.BindException && !first.getMessage().contains("in use")) {
            try {
                return open(new InetSocketAddress(address.getPort()));
            } catch (IOException e) {
                first.addSuppressed(e);
            }
        }
        throw new BootstrapException(
                "rank 0 cannot listen on the root address " + address + ": " + first.getMessage()
                        + ". Is rank 0 on the host the id (JCCL_ID / JCCL_ROOT / MASTER_ADDR) names, "
                        + "and is the port free?",
                first);
    }

    private static ServerSocketChannel open(InetSocketAddress address) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, 1024);
            return server;
        } catch (IOException e) {
            server.close();
            throw e;
        }
    }

    private static void closeQuietly(ServerSocketChannel c) {
        if (c == null) return;
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing to recover
        }
    }
}
