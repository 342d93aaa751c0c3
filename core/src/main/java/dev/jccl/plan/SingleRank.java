package dev.jccl.plan;

import dev.jccl.ReduceOp;

/**
 * Any collective on a communicator of one rank: SEND is the result, so one step copies it to RECV (skipped in place)
 * and, for AVG, divides by the size, 1 — harmless, and it keeps the shape of the larger schedules.
 */
final class SingleRank {
    private SingleRank() {}

    static void build(ScheduleBuilder b, OpRequest r) {
        long n = r.count();
        b.copy(0, Region.send(0, n), Region.recv(0, n));
        if (r.op() == ReduceOp.AVG) {
            b.divide(0, Region.recv(0, n));
        }
    }
}
