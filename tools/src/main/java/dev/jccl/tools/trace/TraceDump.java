package dev.jccl.tools.trace;

import java.nio.file.Path;
import java.util.List;

/**
 * One rank's flight-recorder dump: who wrote it, when, the agreed root cause if the communicator had failed, and the
 * operations its ring held, oldest first.
 *
 * @param file where it was read from
 * @param where the rank's {@code host:pid}, as Jccl's messages name it
 * @param commId the communicator's id, 16 hex digits
 * @param recorded how many operations the rank had recorded in all; more than {@code operations.size()} once its ring
 *     has wrapped
 * @param verdict the root-cause sentence every rank of a failed communicator agrees on; null if none
 */
record TraceDump(
        Path file,
        int rank,
        int size,
        String where,
        String commId,
        long dumpedAtMicros,
        long recorded,
        String verdict,
        List<TraceOperation> operations) {

    TraceDump {
        operations = List.copyOf(operations);
    }

    /** The collective operations of the ring, oldest first (point-to-point ones have their own numbering). */
    List<TraceOperation> collectives() {
        return operations.stream().filter(TraceOperation::collective).toList();
    }

    /** This rank's entry for collective {@code seq}, or null if its ring does not hold it. */
    TraceOperation collective(long seq) {
        for (TraceOperation o : operations) {
            if (o.collective() && o.seq() == seq) return o;
        }
        return null;
    }
}
