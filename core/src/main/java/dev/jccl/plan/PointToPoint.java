package dev.jccl.plan;

/**
 * Send and Recv: the whole buffer, one chunk per step, to or from the peer named in
 * {@link OpRequest#root()}. A Send's step c matches the peer's Recv's step c.
 */
final class PointToPoint {
    static final String NAME = "p2p";

    private PointToPoint() {}

    static Schedule plan(OpRequest r) {
        Pieces chunks = Pieces.of(r.count(), r.chunkCount());
        ScheduleBuilder b = new ScheduleBuilder(r, NAME).steps(chunks.steps());
        for (int c = 0; c < chunks.steps(); c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            if (r.collective() == Collective.SEND) {
                b.send(c, r.root(), Region.send(off, len));
            } else {
                b.receive(c, r.root(), Region.recv(off, len), null);
            }
        }
        return b.build();
    }
}
