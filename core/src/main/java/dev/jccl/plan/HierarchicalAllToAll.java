package dev.jccl.plan;

/**
 * AllToAll in two levels, for communicators that span hosts: each host's leader (its first rank) gathers its ranks'
 * whole inputs over shared memory, trades one packed run with every other leader, and hands each of its ranks its
 * result. The flat forms pay the network on every step that crosses: pairwise takes P − 1 steps, P − L of them across,
 * with all L ranks of a host sending P² messages in all; Bruck takes ⌈log2 P⌉ steps, nearly all across, each moving
 * about half of every rank's blocks. Here only leaders cross, in H − 1 steps of one message each (H² messages across in
 * all), and each block crosses the network once, as in pairwise: what it wins is latency, for small blocks on many
 * ranks per host.
 *
 * <p>With L ranks on this host, L' on host h', n elements a block, the leader's steps are:
 *
 * <ol>
 *   <li>Step 0: each other local rank sends its whole SEND (P blocks) to the leader, into SCRATCH; the leader's own
 *       input stays in SEND, which it reads until the last step and never writes before it.
 *   <li>Step 1, local copies: the blocks between ranks of this host are packed into this host's part of the inbox, as
 *       if this host had sent them to itself.
 *   <li>Step k = 1 … H − 1: the leader packs the run for host (h + k) mod H (for each local rank in
 *       {@link HostGroups#ranksOn} order, its blocks for that host's ranks in the same order: L × L' blocks) into the
 *       outbox, sends it to that host's leader and receives the run of host (h − k) mod H, packed by its leader the
 *       same way, into that host's part of the inbox. Each pair of leaders meets once, in the same step on both sides.
 *   <li>Step H: the inbox holds every block meant for this host; the leader copies each local rank's P blocks, ordered
 *       by source rank, into one contiguous run and sends it (its own straight into RECV).
 * </ol>
 *
 * Every transfer is one contiguous region, so hosts of any sizes and ranks in any order (interleaved across hosts) need
 * nothing special; runs are cut into chunks by {@link ScheduleBuilder#sendAll}, which the receiver cuts alike. In place
 * (SEND is RECV) a rank reads its SEND no later than step H − 1 and writes its RECV only in step H, so nothing is lost.
 *
 * <p>What it costs: H + 1 steps; the leader's port carries (L − 1)·P blocks in and as many out over shared memory, and
 * its CPU copies every block of its host twice (packing, then ordering the results), about 2·L·P blocks. The other
 * order of the trade is possible (each rank sends a run per destination host, so the leader need not pack): one copy
 * fewer, H times the gathering messages; this form keeps the messages few, since small blocks are what it is for. A
 * leader's SCRATCH holds the gathered inputs ((L − 1)·P blocks, reused in the last step to stage the results), the
 * inbox (L·P blocks) and one outbox (L × the largest other host's L' blocks); the other ranks need none.
 */
final class HierarchicalAllToAll {
    private HierarchicalAllToAll() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        long n = r.count();
        int size = r.size();
        int me = r.rank();
        int hosts = g.hosts();
        int host = g.hostOf(me);
        int leader = g.rankAt(host, 0);
        int lastStep = hosts;
        b.steps(lastStep + 1);
        if (me != leader) {
            b.sendAll(0, leader, Region.send(0, size * n));
            b.receiveAll(lastStep, leader, Region.recv(0, size * n), null);
            return;
        }
        new Leader(b, g, n, size, host).build(lastStep);
    }

    /** The leader's side: where each block lies in its SCRATCH, and the steps that move them. */
    private static final class Leader {
        private final ScheduleBuilder b;
        private final HostGroups g;
        private final long n;
        private final int size;
        private final int host;
        private final int[] locals;
        /** Where each host's run starts in the inbox; the inbox follows the gathered inputs. */
        private final long[] inboxAt;

        /** Elements of one rank's input (or result): P blocks. */
        private final long input;

        private final long outbox;

        Leader(ScheduleBuilder b, HostGroups g, long n, int size, int host) {
            this.b = b;
            this.g = g;
            this.n = n;
            this.size = size;
            this.host = host;
            this.locals = g.ranksOn(host);
            this.input = Math.multiplyExact(size, n);
            this.inboxAt = new long[g.hosts()];
            long at = Math.multiplyExact(locals.length - 1L, input); // after the gathered inputs
            int largestOther = 0;
            for (int h = 0; h < g.hosts(); h++) {
                inboxAt[h] = at;
                int others = g.ranksOn(h).length;
                at = Math.addExact(at, Math.multiplyExact(others * (long) locals.length, n));
                if (h != host) largestOther = Math.max(largestOther, others);
            }
            this.outbox = at;
            b.scratch(Math.addExact(outbox, Math.multiplyExact(largestOther * (long) locals.length, n)));
        }

        void build(int lastStep) {
            int hosts = g.hosts();
            // Step 0: the other local ranks' inputs, each whole, in local order.
            for (int i = 1; i < locals.length; i++) {
                b.receiveAll(0, locals[i], gathered(i), null);
            }
            // Step 1: this host's own blocks go straight to its part of the inbox.
            pack(1, host, inboxAt[host]);
            // Steps 1 … H − 1: one run out to the leader k hosts on, one in from the leader k hosts back.
            for (int k = 1; k < hosts; k++) {
                int to = (host + k) % hosts;
                int from = Math.floorMod(host - k, hosts);
                long out = pack(k, to, outbox);
                b.sendAll(k, g.rankAt(to, 0), Region.scratch(outbox, out));
                long in = (long) g.ranksOn(from).length * locals.length * n;
                b.receiveAll(k, g.rankAt(from, 0), Region.scratch(inboxAt[from], in), null);
            }
            // Step H: each local rank's result, by source rank; the gathered inputs are no longer needed, so the other
            // ranks' results are staged where they were.
            for (int j = 0; j < locals.length; j++) {
                Region result = j == 0 ? Region.recv(0, input) : gathered(j);
                Copies copies = new Copies(b, lastStep);
                for (int source = 0; source < size; source++) {
                    int from = g.hostOf(source);
                    long at = inboxAt[from] + ((long) g.localIndex(source) * locals.length + j) * n;
                    copies.add(Region.scratch(at, n), result.slice(source * n, n));
                }
                copies.flush();
                if (j > 0) b.sendAll(lastStep, locals[j], result);
            }
        }

        /**
         * Copies, in step {@code step}, the blocks this host's ranks send to host {@code to} into SCRATCH from
         * {@code at}: for each local rank in order, its blocks for {@code to}'s ranks in order. Returns the elements.
         */
        private long pack(int step, int to, long at) {
            int[] targets = g.ranksOn(to);
            Copies copies = new Copies(b, step);
            long packed = 0;
            for (int i = 0; i < locals.length; i++) {
                for (int target : targets) {
                    copies.add(input(i).slice(target * n, n), Region.scratch(at + packed, n));
                    packed += n;
                }
            }
            copies.flush();
            return packed;
        }

        /** Local rank i's whole input: the leader's own SEND, the others' as gathered in step 0. */
        private Region input(int i) {
            return i == 0 ? Region.send(0, input) : gathered(i);
        }

        /** Where local rank i's input is gathered (i ≥ 1), and where its result is staged in the last step. */
        private Region gathered(int i) {
            return Region.scratch((i - 1) * input, input);
        }
    }

    /**
     * A step's block copies, each joined to the one before where both ends continue it, so that a host of consecutive
     * ranks packs a local rank's blocks for it as one copy, not one per block.
     */
    private static final class Copies {
        private final ScheduleBuilder b;
        private final int step;
        private Region from;
        private Region to;

        Copies(ScheduleBuilder b, int step) {
            this.b = b;
            this.step = step;
        }

        void add(Region f, Region t) {
            if (from != null
                    && f.buffer() == from.buffer()
                    && t.buffer() == to.buffer()
                    && f.offset() == from.offset() + from.count()
                    && t.offset() == to.offset() + to.count()) {
                from = new Region(from.buffer(), from.offset(), from.count() + f.count());
                to = new Region(to.buffer(), to.offset(), to.count() + t.count());
                return;
            }
            flush();
            from = f;
            to = t;
        }

        void flush() {
            if (from != null) b.copy(step, from, to);
            from = null;
            to = null;
        }
    }
}
