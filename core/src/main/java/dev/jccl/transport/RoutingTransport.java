package dev.jccl.transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * One transport per peer, behind the single {@link Transport} a schedule runs on: shared memory to the ranks of this
 * host, the network to the others. Schedules and the runtime never know which carries what.
 */
public final class RoutingTransport implements Transport {
    private final Transport[] byPeer;
    private final Transport polled;
    private final Transport blocking;
    private final List<Transport> members;
    private final boolean[] connected;
    private final List<Integer> scratch = new ArrayList<>();

    /**
     * @param byPeer the transport to each peer (this rank's own entry is ignored)
     * @param polled a member that cannot wake a waiter (shared memory), or null
     * @param blocking a member that can block in the kernel until I/O (sockets)
     */
    public RoutingTransport(Transport[] byPeer, Transport polled, Transport blocking) {
        this.byPeer = byPeer.clone();
        this.polled = polled;
        this.blocking = blocking;
        this.members = polled == null ? List.of(blocking) : List.of(polled, blocking);
        this.connected = new boolean[byPeer.length];
    }

    @Override
    public String name() {
        return polled == null ? blocking.name() : polled.name() + "+" + blocking.name();
    }

    @Override
    public boolean tryConnect(Collection<Integer> peers) throws IOException {
        boolean all = true;
        for (int p : peers) all &= connected[p];
        if (all) return true;
        for (Transport m : members) {
            scratch.clear();
            for (int p : peers) {
                if (!connected[p] && byPeer[p] == m) scratch.add(p);
            }
            if (!scratch.isEmpty() && m.tryConnect(scratch)) {
                for (int p : scratch) connected[p] = true;
            }
        }
        for (int p : peers) {
            if (!connected[p]) return false;
        }
        return true;
    }

    @Override
    public TransferHandle postSend(int peer, FrameHeader header, MemorySegment data, long readyBytes) {
        return byPeer[peer].postSend(peer, header, data, readyBytes);
    }

    @Override
    public TransferHandle postRecv(int peer, FrameHeader expected, int elementBytes, RecvSink sink) {
        return byPeer[peer].postRecv(peer, expected, elementBytes, sink);
    }

    @Override
    public int progress() throws IOException {
        int work = blocking.progress();
        if (polled != null) work += polled.progress();
        return work;
    }

    /**
     * Blocks in the socket selector, unless shared memory has work pending: then it parks as briefly as shared memory
     * does, since nothing would wake the selector for it.
     */
    @Override
    public void awaitIo(long maxNanos) throws IOException {
        if (polled != null && polled.busy()) {
            polled.awaitIo(maxNanos);
        } else {
            blocking.awaitIo(maxNanos);
        }
    }

    @Override
    public boolean busy() {
        return blocking.busy() || polled != null && polled.busy();
    }

    @Override
    public String describePending(int peer) {
        return byPeer[peer].describePending(peer);
    }

    @Override
    public void wakeup() {
        for (Transport m : members) m.wakeup();
    }

    @Override
    public void abandon(String reason) {
        for (Transport m : members) m.abandon(reason);
    }

    @Override
    public void finishDelivery(long deadlineNanos) {
        for (Transport m : members) m.finishDelivery(deadlineNanos);
    }

    @Override
    public void close() {
        for (Transport m : members) m.close();
    }
}
