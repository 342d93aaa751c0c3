package dev.jccl.transport.table;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.Transport;
import dev.jccl.transport.shm.ShmTransport;
import java.util.List;

/** Shared memory, between ranks of one host that both have a usable /dev/shm. */
record ShmFactory(long commId, int bufferBytes, boolean singleCopy, Log log, long deadlineNanos)
        implements TransportFactory {
    @Override
    public String via(PeerInfo peer) {
        return "SHM/direct";
    }

    @Override
    public boolean canConnect(PeerInfo me, PeerInfo peer) {
        return me.sharesMemoryWith(peer);
    }

    @Override
    public Transport open(int rank, List<PeerInfo> peers, List<Integer> routed) {
        return ShmTransport.open(commId, rank, peers, bufferBytes, singleCopy, log, deadlineNanos);
    }

    @Override
    public void close() {
        // opens nothing before it is asked to
    }
}
