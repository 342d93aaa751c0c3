package dev.jccl.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which ranks share a host: hosts are numbered in the order of their lowest rank, and the ranks of a host by rank order
 * (their local index). Hierarchical schedules need every host to have the same number of ranks ({@link #uniform()}), so
 * that local index i of every host can form a ring across hosts.
 */
public final class HostGroups {
    private final int[] hostOf;
    private final int[] localIndex;
    private final List<int[]> ranksOfHost;

    private HostGroups(int[] hostOf) {
        this.hostOf = hostOf;
        this.localIndex = new int[hostOf.length];
        this.ranksOfHost = new ArrayList<>();
        for (int r = 0; r < hostOf.length; r++) {
            while (ranksOfHost.size() <= hostOf[r]) ranksOfHost.add(new int[0]);
            int[] old = ranksOfHost.get(hostOf[r]);
            int[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = r;
            localIndex[r] = old.length;
            ranksOfHost.set(hostOf[r], grown);
        }
    }

    /** {@code hosts} hosts of {@code perHost} ranks each, placed host by host (rank r on host r / perHost). */
    public static HostGroups evenly(int hosts, int perHost) {
        int[] hostOf = new int[hosts * perHost];
        for (int r = 0; r < hostOf.length; r++) hostOf[r] = r / perHost;
        return new HostGroups(hostOf);
    }

    /** Groups ranks by {@code hostKeyOfRank} (any equal keys share a host), index = rank. */
    public static HostGroups of(List<?> hostKeyOfRank) {
        Map<Object, Integer> numbers = new LinkedHashMap<>();
        int[] hostOf = new int[hostKeyOfRank.size()];
        for (int r = 0; r < hostOf.length; r++) {
            hostOf[r] = numbers.computeIfAbsent(hostKeyOfRank.get(r), k -> numbers.size());
        }
        return new HostGroups(hostOf);
    }

    public int ranks() {
        return hostOf.length;
    }

    public int hosts() {
        return ranksOfHost.size();
    }

    /** True when every host has the same number of ranks. */
    public boolean uniform() {
        for (int[] g : ranksOfHost) {
            if (g.length != ranksOfHost.getFirst().length) return false;
        }
        return true;
    }

    /** Ranks per host; meaningful when {@link #uniform()}. */
    public int localSize() {
        return ranksOfHost.getFirst().length;
    }

    /** The most ranks any host has. */
    public int maxLocalSize() {
        int most = 0;
        for (int[] g : ranksOfHost) most = Math.max(most, g.length);
        return most;
    }

    public int hostOf(int rank) {
        return hostOf[rank];
    }

    public int localIndex(int rank) {
        return localIndex[rank];
    }

    /** The ranks on {@code host}, by local index. */
    public int[] ranksOn(int host) {
        return ranksOfHost.get(host).clone();
    }

    /** The rank with local index {@code index} on host {@code host}. */
    public int rankAt(int host, int index) {
        return ranksOfHost.get(host)[index];
    }

    /**
     * A short description for one-line reports, whatever the rank count: {@code 32 hosts of 16 consecutive ranks} where
     * that is the layout, else the first hosts' ranks and how many hosts there are in all ({@link #toString()} lists
     * every rank, 30 KB at 4096 ranks).
     */
    public String summary() {
        if (uniform() && consecutive()) {
            return hosts() + " hosts of " + localSize() + " consecutive ranks";
        }
        if (hosts() <= SUMMARY_HOSTS) return toString();
        StringBuilder sb = new StringBuilder();
        for (int h = 0; h < SUMMARY_HOSTS; h++) {
            sb.append(Arrays.toString(ranksOfHost.get(h))).append(" | ");
        }
        return sb.append("… ").append(hosts()).append(" hosts in all").toString();
    }

    private static final int SUMMARY_HOSTS = 4;

    /** True when host h holds ranks h·L to h·L + L − 1, L its rank count (as {@link #evenly} lays them out). */
    private boolean consecutive() {
        for (int r = 0; r < hostOf.length; r++) {
            if (hostOf[r] != r / localSize()) return false;
        }
        return true;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int h = 0; h < hosts(); h++) sb.append(h == 0 ? "" : " | ").append(Arrays.toString(ranksOfHost.get(h)));
        return sb.toString();
    }
}
