package dev.jccl.plan;

/**
 * AllGather as a ring, one chunk of every block at a time: rank r first copies SEND into RECV's block r, then at step k
 * sends RECV block (r-k) to the next rank and receives block (r-k-1) from the previous one. In place (SEND is RECV's
 * block r) the copy is skipped and block r, the only block that aliases SEND, is never written.
 */
final class RingAllGather {
    private RingAllGather() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        int size = r.size();
        long n = r.count();
        Pieces chunks = Pieces.of(n, r.chunkCount());
        int stepsPerChunk = size - 1;
        b.steps(Math.multiplyExact(chunks.steps(), stepsPerChunk));
        b.copy(0, Region.send(0, n), Region.recv(r.rank() * n, n));
        for (int c = 0; c < chunks.steps(); c++) {
            long off = chunks.offset(c);
            long len = chunks.length(c);
            int base = c * stepsPerChunk;
            for (int k = 0; k < size - 1; k++) {
                b.ringStep(
                        base + k,
                        Region.recv(r.ringRank(-k) * n + off, len),
                        Region.recv(r.ringRank(-k - 1) * n + off, len),
                        null);
            }
        }
    }
}
