package dev.jccl.tools;

import dev.jccl.UniqueId;

import java.util.HashMap;
import java.util.Map;

/**
 * The variables {@code jccl run} gives each rank it starts; with these {@code Jccl.fromEnvironment()}
 * joins the job. All ranks are on this host, so local rank and size equal rank and size.
 */
final class RankEnvironment {
    static final String RANK = "JCCL_RANK";
    static final String WORLD_SIZE = "JCCL_WORLD_SIZE";
    static final String LOCAL_RANK = "JCCL_LOCAL_RANK";
    static final String LOCAL_SIZE = "JCCL_LOCAL_SIZE";
    static final String ID = "JCCL_ID";
    static final String SOCKET_IFNAME = "JCCL_SOCKET_IFNAME";
    /** A root address would compete with JCCL_ID; the launcher's id is the one that holds. */
    static final String ROOT = "JCCL_ROOT";

    private RankEnvironment() {}

    /**
     * {@code base} plus the rank's variables.
     *
     * @param ifname the interface filter every rank must use, or null to leave {@code base}'s as it is
     */
    static Map<String, String> forRank(Map<String, String> base, int rank, int size, UniqueId id, String ifname) {
        Map<String, String> env = new HashMap<>(base);
        env.remove(ROOT);
        env.put(RANK, Integer.toString(rank));
        env.put(WORLD_SIZE, Integer.toString(size));
        env.put(LOCAL_RANK, Integer.toString(rank));
        env.put(LOCAL_SIZE, Integer.toString(size));
        env.put(ID, id.toString());
        if (ifname != null) env.put(SOCKET_IFNAME, ifname);
        return env;
    }
}
