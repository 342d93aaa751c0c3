package dev.jccl.runtime;

import dev.jccl.plan.HostGroups;
import dev.jccl.plan.OpRequest;
import dev.jccl.plan.Planner;
import dev.jccl.plan.Schedule;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The schedules a communicator planned lately, by request. A schedule is plain data that depends only on its request,
 * and programs repeat a few shapes of call (a training step's buckets, a benchmark's one size), so planning each again
 * would only allocate: for an 8-byte AllReduce over TCP, planning cost about as much as the rest of the call's own
 * work.
 *
 * <p>Used by the thread that runs the communicator's operations, one at a time; the lock only keeps a caller thread and
 * the progress thread, which take turns, from seeing a half-updated map.
 */
final class ScheduleCache {
    /** Few shapes are live at once; a bigger cache would hold on to the steps of big schedules. */
    private static final int ENTRIES = 16;

    private final HostGroups hosts;
    private final Map<OpRequest, Schedule> recent = new LinkedHashMap<>(ENTRIES * 2, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<OpRequest, Schedule> eldest) {
            return size() > ENTRIES;
        }
    };

    ScheduleCache(HostGroups hosts) {
        this.hosts = hosts;
    }

    /** The schedule for {@code request}, planned now or taken from the cache. */
    synchronized Schedule plan(OpRequest request) {
        Schedule s = recent.get(request);
        if (s == null) {
            s = Planner.plan(request, hosts);
            recent.put(request, s);
        }
        return s;
    }
}
