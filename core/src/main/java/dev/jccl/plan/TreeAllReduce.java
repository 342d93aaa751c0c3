package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * AllReduce over two binomial trees, each carrying half the data: the first half is reduced to rank 0 up a
 * {@link BinomialTree} and broadcast back down it, the second half likewise over the mirrored tree rooted at the last
 * rank, in the same steps. 2·⌈log2 size⌉ steps; in each tree every inner node of one tree is a leaf of the other (for
 * an even number of ranks), so the two halves keep different links busy. This is the shape of NCCL's double binary tree
 * with binomial trees, and without its chunk pipelining: a latency algorithm for small and mid sizes, not a rival to
 * the ring's bandwidth on one host.
 *
 * <p>Partials live in RECV (an AllReduce writes all of RECV anyway); a leaf sends from SEND. The two halves are
 * disjoint, so a step may send one while it receives the other. AVG divides each half at its root before it goes down.
 */
final class TreeAllReduce {
    private TreeAllReduce() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        int size = r.size();
        long half = Math.ceilDiv(n, 2);
        Region first = Region.recv(0, half);
        Region second = Region.recv(half, n - half);
        BinomialTree up = new BinomialTree(size, 0, false);
        BinomialTree mirrored = new BinomialTree(size, size - 1, true);
        int rounds = up.rounds();
        b.steps(2 * rounds);
        up.reduce(b, 0, r.rank(), first, BufferRole.RECV);
        mirrored.reduce(b, 0, r.rank(), second, BufferRole.RECV);
        if (r.op() == ReduceOp.AVG) {
            if (r.rank() == 0) b.divide(rounds, first);
            if (r.rank() == size - 1) b.divide(rounds, second);
        }
        up.broadcast(b, rounds, r.rank(), first, BufferRole.RECV);
        mirrored.broadcast(b, rounds, r.rank(), second, BufferRole.RECV);
    }
}
