package dev.jccl.transport.table;

import dev.jccl.transport.OperationBoard;
import dev.jccl.transport.Outbox;
import dev.jccl.transport.Transport;
import java.util.List;

/**
 * How one rank reaches its peers, as the {@link TransportTable} decided from the peer table.
 *
 * @param transport what schedules run on (one transport, or a router in front of two)
 * @param outbox the low-latency medium, offered when every rank shares memory with every other; null otherwise
 * @param board where this rank posts its operations for the peers that can read it; null when no peer can
 * @param summary the transports in use for tools and reports: {@code shm}, {@code tcp}, {@code shm+tcp}, {@code ucx},
 *     {@code shm+ucx}
 * @param via for each rank, how this rank reaches it, as the init log prints it (this rank's own entry: "self")
 */
public record Wiring(Transport transport, Outbox outbox, OperationBoard board, String summary, List<String> via) {

    /** Marks this rank aborted for the peers that read its board, before its transports close. */
    public void markAborted() {
        if (board != null) board.markAborted();
    }
}
