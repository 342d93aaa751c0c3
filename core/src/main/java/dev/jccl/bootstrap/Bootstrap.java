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
     * Exchanges {@code self} with every rank of the job described by {@code id}; returns the table
     * indexed by rank. Fails within {@code timeout} with a {@link BootstrapException} that names
     * the missing ranks or the unreachable root.
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
                log.info(Log.Subsys.BOOTSTRAP, "root listening on " + listener.getLocalAddress() + " for " + (size - 1) + " ranks");
                return new BootstrapRoot(listener, size, id.secret(), log).serve(self, deadline, start);
            } catch (IOException e) {
                closeQuietly(listener);
                throw new BootstrapException("bootstrap root failed: " + e.getMessage(), e);
            }
        }
        return BootstrapClient.join(id.rootAddress(), rank, size, id.secret(), self, deadline, timeout.toMillis(), log);
    }

    private static ServerSocketChannel bind(InetSocketAddress address) {
        try {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, 1024);
            return server;
        } catch (IOException e) {
            throw new BootstrapException("rank 0 cannot listen on the root address " + address + " from the unique id: "
                    + e.getMessage() + ". Is the id from this host, and not in use by another job?", e);
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
