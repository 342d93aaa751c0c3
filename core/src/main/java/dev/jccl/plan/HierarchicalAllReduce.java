package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce in two levels, for communicators that span hosts with the same number of ranks on each (L ranks per host, H
 * hosts): a ring reduce-scatter among each host's ranks (shared memory), a ring AllReduce of each rank's block among
 * the ranks with the same local index on every host (the network: L rings side by side, each carrying 1/L of the data),
 * and a ring all-gather inside each host. Every byte crosses the network 2(H-1)/H times instead of the flat ring's
 * 2(P-1)/P, and no network step waits for a shared-memory one.
 *
 * <p>Slices of at most {@code L × H × chunkCount} elements are cut into L blocks, and each block into H pieces of at
 * most a chunk. Per slice, with local index i and host index h:
 *
 * <pre>
 * local reduce-scatter, k = 0 .. L-2: send block (i-k) (SEND at k = 0, else RECV) to the next local rank,
 *                                      recv block (i-k-1) into RECV combined with SEND's block
 *   → block b = i+1 is reduced over the host, in RECV
 * network reduce-scatter, k = 0 .. H-2: piece (h-k) of block b to the next host's rank i, piece (h-k-1)
 *                                      received into RECV combined with RECV (SEND when L = 1)
 *   → piece h+1 of block b is reduced over every rank; AVG divides it here
 * network all-gather, k = 0 .. H-2:     piece (h+1-k) out, piece (h-k) in, both RECV
 * local all-gather, k = 0 .. L-2:       block (i+1-k) out, block (i-k) in, both RECV
 * </pre>
 *
 * Inside a host a block moves whole (cut only where it is longer than a chunk): sent as its H pieces, as it once was,
 * every local step paid H messages' overhead, 32 a step on 32 hosts, which made the local phases 3.3 ms of a 4.1 ms 32
 * KiB AllReduce on 32 hosts of 128 ranks in {@code jccl sim}. The result is reduced once per element, by one rank, and
 * copied to the others, so every rank gets the same bits. In place is safe for the reasons {@link RingAllReduce} gives,
 * level by level.
 */
final class HierarchicalAllReduce {
    private HierarchicalAllReduce() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        int me = r.rank();
        int host = g.hostOf(me);
        int index = g.localIndex(me);
        int local = g.localSize();
        int hosts = g.hosts();
        int localNext = g.rankAt(host, Math.floorMod(index + 1, local));
        int localPrev = g.rankAt(host, Math.floorMod(index - 1, local));
        int netNext = g.rankAt(Math.floorMod(host + 1, hosts), index);
        int netPrev = g.rankAt(Math.floorMod(host - 1, hosts), index);
        long count = r.count();
        long pieces = (long) local * hosts;
        long slices = r.chunkCount() >= Math.ceilDiv(count, pieces)
                ? Math.min(count, 1)
                : Math.ceilDiv(count, pieces * r.chunkCount());
        Pieces sliceSplit = new Pieces(count, slices);
        int stepsPerSlice = 2 * (local - 1) + 2 * (hosts - 1);
        b.steps(Math.multiplyExact(sliceSplit.steps(), stepsPerSlice));
        // Where the host-reduced block lives when the network phase starts.
        BufferRole hostReduced = local > 1 ? BufferRole.RECV : BufferRole.SEND;
        for (int s = 0; s < sliceSplit.steps(); s++) {
            Grid grid = new Grid(sliceSplit.offset(s), sliceSplit.length(s), local, hosts);
            int step = s * stepsPerSlice;
            for (int k = 0; k < local - 1; k++, step++) {
                int out = Math.floorMod(index - k, local);
                int in = Math.floorMod(index - k - 1, local);
                b.sendAll(step, localNext, grid.block(k == 0 ? BufferRole.SEND : BufferRole.RECV, out));
                b.receiveAll(step, localPrev, grid.block(BufferRole.RECV, in), grid.block(BufferRole.SEND, in));
            }
            int block = Math.floorMod(index + 1, local);
            for (int k = 0; k < hosts - 1; k++, step++) {
                int out = Math.floorMod(host - k, hosts);
                int in = Math.floorMod(host - k - 1, hosts);
                b.send(step, netNext, grid.piece(k == 0 ? hostReduced : BufferRole.RECV, block, out));
                b.receive(step, netPrev, grid.piece(BufferRole.RECV, block, in), grid.piece(hostReduced, block, in));
            }
            int ownedPiece = Math.floorMod(host + 1, hosts);
            if (r.op() == ReduceOp.AVG) b.divide(step, grid.piece(BufferRole.RECV, block, ownedPiece));
            for (int k = 0; k < hosts - 1; k++, step++) {
                b.send(step, netNext, grid.piece(BufferRole.RECV, block, Math.floorMod(host + 1 - k, hosts)));
                b.receive(step, netPrev, grid.piece(BufferRole.RECV, block, Math.floorMod(host - k, hosts)), null);
            }
            for (int k = 0; k < local - 1; k++, step++) {
                int out = Math.floorMod(index + 1 - k, local);
                int in = Math.floorMod(index - k, local);
                b.sendAll(step, localNext, grid.block(BufferRole.RECV, out));
                b.receiveAll(step, localPrev, grid.block(BufferRole.RECV, in), null);
            }
        }
    }

    /**
     * One slice cut into {@code local} blocks of {@code ceil(length / local)}, each cut into {@code hosts} pieces of
     * {@code ceil(block / hosts)}; trailing ones may be short or empty.
     */
    private record Grid(long sliceOffset, long sliceLength, int local, int hosts) {
        /** A whole block, its pieces side by side. */
        Region block(BufferRole role, int block) {
            long blockLength = Math.ceilDiv(sliceLength, local);
            long blockStart = Math.min(block * blockLength, sliceLength);
            return new Region(role, sliceOffset + blockStart, Math.min(blockLength, sliceLength - blockStart));
        }

        Region piece(BufferRole role, int block, int piece) {
            Region whole = block(role, block);
            long pieceLength = Math.ceilDiv(whole.count(), hosts);
            long start = Math.min(piece * pieceLength, whole.count());
            return whole.slice(start, Math.min(pieceLength, whole.count() - start));
        }
    }
}
