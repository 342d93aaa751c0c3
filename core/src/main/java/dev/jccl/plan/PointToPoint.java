package dev.jccl.plan;

/**
 * Send, Recv and SendRecv: the whole buffer, one chunk per step. A Send's step c matches the peer's Recv's step c;
 * SendRecv is a Send to {@link OpRequest#root()} and a Recv from {@link OpRequest#recvPeer()} in one schedule, chunk c
 * of each in step c, so each half matches a plain Recv or Send (or the other half of a SendRecv) on the peer.
 *
 * <p>SendRecv's halves must not wait for each other, or a peer that answers with a Recv and then a Send (or a Send and
 * then a Recv) would wait forever for the second chunk: its schedule is {@link Schedule.Pacing#PER_DIRECTION}. Out of
 * place, chunk c arrives straight in RECV. In place it cannot: it would overwrite SEND's chunk c, which may not have
 * left yet. It lands in one chunk of SCRATCH and is copied to RECV at the start of step c+1, which runs once chunk c
 * has been sent; a last step holds the last copy. Sending to and receiving from this rank itself is one local copy
 * (nothing in place).
 *
 * <pre>
 * SendRecv rank 1 of 3, count 5, to 2, from 0, in place, chunk 2: p2p per direction, 4 steps, scratch 2
 *   step 0: send →2 SEND[0,2) | recv ←0 SCRATCH[0,2)
 *   step 1: copy SCRATCH[0,2) → RECV[0,2) | send →2 SEND[2,4) | recv ←0 SCRATCH[0,2)
 *   step 2: copy SCRATCH[0,2) → RECV[2,4) | send →2 SEND[4,5) | recv ←0 SCRATCH[0,1)
 *   step 3: copy SCRATCH[0,1) → RECV[4,5)
 * </pre>
 */
final class PointToPoint {
    private PointToPoint() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        if (r.collective() == Collective.SEND_RECV) {
            sendRecv(b, r);
            return;
        }
        Pieces chunks = Pieces.of(r.count(), r.chunkCount());
        b.steps(chunks.steps());
        for (int c = 0; c < chunks.steps(); c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            if (r.collective() == Collective.SEND) {
                b.send(c, r.root(), Region.send(off, len));
            } else {
                b.receive(c, r.root(), Region.recv(off, len), null);
            }
        }
    }

    private static void sendRecv(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        b.pacing(Schedule.Pacing.PER_DIRECTION);
        if (r.root() == r.rank()) {
            // To and from itself (the planner allows that only both ways at once): a local copy.
            if (!r.inPlace()) {
                b.copy(0, Region.send(0, n), Region.recv(0, n));
            }
            return;
        }
        Pieces chunks = Pieces.of(n, r.chunkCount());
        int m = chunks.steps();
        if (r.inPlace()) {
            b.steps(m == 0 ? 0 : m + 1).scratch(chunks.longest());
        } else {
            b.steps(m);
        }
        for (int c = 0; c < m; c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            b.send(c, r.root(), Region.send(off, len));
            if (r.inPlace()) {
                b.receive(c, r.recvPeer(), Region.scratch(0, len), null);
                b.copy(c + 1, Region.scratch(0, len), Region.recv(off, len));
            } else {
                b.receive(c, r.recvPeer(), Region.recv(off, len), null);
            }
        }
    }
}
