package dev.jccl.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * AllGather in three phases, for communicators that span hosts: each host's ranks send their blocks to the host's
 * leader (its first rank) over shared memory; the leaders pass whole hosts' blocks around a ring of H leaders, H − 1
 * network steps; then each leader broadcasts the gathered result down a binomial tree inside its host. The flat ring
 * takes P − 1 steps, each as slow as its slowest hop, which crosses the network wherever a host ends; here only H − 1
 * steps cross. Each host's blocks still cross every host boundary once, as in the ring.
 *
 * <p>Hosts may hold any number of ranks, in any order: a host's blocks travel one run after another, in the order
 * {@link HostGroups#ranksOn} gives (consecutive ranks' blocks together), and each is cut into chunks with
 * {@link ScheduleBuilder#sendAll}, which the receiving leader cuts alike.
 *
 * <p>In place (SEND is RECV's block r) a rank's SEND is sent at the first step and never written before; the broadcast
 * then writes every block of RECV, block r with the values it already holds.
 */
final class HierarchicalAllGather {
    private HierarchicalAllGather() {}

    static void build(ScheduleBuilder b, OpRequest r, HostGroups g) {
        long n = r.count();
        int me = r.rank();
        int hosts = g.hosts();
        int host = g.hostOf(me);
        int leader = g.rankAt(host, 0);
        int[] locals = g.ranksOn(host);
        int ringSteps = hosts - 1;
        b.steps(1 + ringSteps);

        // Step 0: the host's blocks come to its leader.
        if (me == leader) {
            b.copy(0, Region.send(0, n), block(me, n));
            for (int q : locals) {
                if (q != me) b.receiveAll(0, q, block(q, n), null);
            }
        } else {
            b.sendAll(0, leader, Region.send(0, n));
        }

        // Steps 1 to H − 1: round j passes host (h − j)'s blocks to the next leader, takes host (h − j − 1)'s.
        if (me == leader) {
            int next = g.rankAt((host + 1) % hosts, 0);
            int prev = g.rankAt((host + hosts - 1) % hosts, 0);
            for (int j = 0; j < ringSteps; j++) {
                for (Region run : blocksOf(g, Math.floorMod(host - j, hosts), n)) b.sendAll(1 + j, next, run);
                for (Region run : blocksOf(g, Math.floorMod(host - j - 1, hosts), n)) {
                    b.receiveAll(1 + j, prev, run, null);
                }
            }
        }

        // Then everything, P blocks, down the host's tree from its leader, in place on RECV.
        Schedule inside =
                SubGroup.plan(r, Collective.BROADCAST, n * r.size(), locals.length, g.localIndex(me), 0, null, true);
        SubGroup.append(b, 1 + ringSteps, inside, locals, region -> region.in(BufferRole.RECV));
    }

    /**
     * A host's blocks of the result as few regions as its ranks allow: one per run of consecutive ranks, so that hosts
     * of consecutive ranks (what launchers give) pass one message a round, not one a rank: the simulator showed the
     * difference (8 × 64 ranks, 4 B a rank: 1444 µs with a message per block, most of it 64 messages' overhead a
     * round).
     */
    static List<Region> blocksOf(HostGroups g, int host, long n) {
        int[] ranks = g.ranksOn(host);
        List<Region> runs = new ArrayList<>();
        int start = 0;
        for (int i = 1; i <= ranks.length; i++) {
            if (i == ranks.length || ranks[i] != ranks[i - 1] + 1) {
                runs.add(Region.recv(ranks[start] * n, (i - start) * n));
                start = i;
            }
        }
        return runs;
    }

    /** Rank q's block of the result. */
    private static Region block(int q, long n) {
        return Region.recv(q * n, n);
    }
}
