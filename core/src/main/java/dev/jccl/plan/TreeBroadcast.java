package dev.jccl.plan;

/**
 * Broadcast down a {@link BinomialTree binomial tree}: ⌈log2 size⌉ steps of the whole message, against the chain's
 * {@code chunks + size − 2} steps of one chunk each. The root copies SEND into RECV (skipped in place) and sends from
 * SEND.
 */
final class TreeBroadcast {
    private TreeBroadcast() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        BinomialTree tree = new BinomialTree(r.size(), r.root(), false);
        b.steps(tree.rounds());
        Region all = Region.recv(0, n);
        if (r.rank() == r.root()) b.copy(0, all.in(BufferRole.SEND), all);
        tree.broadcast(b, 0, r.rank(), all, BufferRole.SEND);
    }
}
