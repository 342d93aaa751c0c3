package dev.jccl.topology;

import dev.jccl.Config;
import dev.jccl.bootstrap.PeerInfo;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether the ranks of a host share its CPUs ("oversubscribed"): more of them than CPUs, as MPI launchers count it. It
 * decides how a waiting rank waits (yield rather than spin) and which algorithms the tuner prefers, so it is decided
 * from the peer table, which every rank has, and not from what one process sees: ranks on different hosts (or with
 * different CPU quotas) must still plan every operation the same way.
 *
 * <p>For a host: if any of its ranks has {@code JCCL_OVERSUBSCRIBED=1} its ranks share CPUs; else if any has {@code 0}
 * they do not; else they do when they outnumber the CPUs the least-endowed of them may use. What a process may use is
 * the JVM's {@code availableProcessors()}: its affinity mask, and a container's CPU quota (cgroup {@code cpu.max})
 * rounded up.
 */
public final class CpuSharing {
    private CpuSharing() {}

    /**
     * What the peer table says of one host: its ranks, the CPUs the least-endowed of them may use, and whether any of
     * them set {@code JCCL_OVERSUBSCRIBED} to 1 or 0.
     */
    private record Census(int ranks, int cpus, boolean toldYes, boolean toldNo) {
        static Census of(List<PeerInfo> peers, String hostId) {
            int ranks = 0;
            int cpus = Integer.MAX_VALUE;
            boolean yes = false;
            boolean no = false;
            for (PeerInfo p : peers) {
                if (!p.hostId().equals(hostId)) continue;
                ranks++;
                cpus = Math.min(cpus, p.cpus());
                yes |= p.oversubscription() == Config.Oversubscription.YES;
                no |= p.oversubscription() == Config.Oversubscription.NO;
            }
            return new Census(ranks, cpus, yes, no);
        }

        boolean sharesCpus() {
            if (toldYes) return true;
            if (toldNo) return false;
            return ranks > cpus;
        }
    }

    /** True if the ranks of {@code hostId} in {@code peers} share CPUs. */
    public static boolean oversubscribed(List<PeerInfo> peers, String hostId) {
        return Census.of(peers, hostId).sharesCpus();
    }

    /** True if the ranks of some host share CPUs: what the tuner assumes, the same on every rank. */
    public static boolean anyHost(List<PeerInfo> peers) {
        for (PeerInfo p : peers) {
            if (oversubscribed(peers, p.hostId())) return true;
        }
        return false;
    }

    /**
     * How many ranks share each CPU on the most crowded host whose ranks share CPUs: its ranks over the CPUs the
     * least-endowed of them may use, at least 1 (also where {@code JCCL_OVERSUBSCRIBED=1} says they share fewer ranks
     * than CPUs); 1 where no host's ranks share CPUs. The tuner divides what a rank's CPU does by it, the same on every
     * rank.
     */
    public static double ranksPerCpu(List<PeerInfo> peers) {
        double most = 1;
        Set<String> seen = new HashSet<>();
        for (PeerInfo p : peers) {
            if (!seen.add(p.hostId())) continue;
            Census host = Census.of(peers, p.hostId());
            if (host.sharesCpus()) most = Math.max(most, ranksPerCpu(host.ranks(), host.cpus()));
        }
        return most;
    }

    /**
     * {@code ranks} over {@code cpus}, at least 1: how many ranks share each CPU where they outnumber them, as the
     * tuner takes it (and as tools that know a host's ranks and CPUs, not a peer table, reckon it).
     */
    public static double ranksPerCpu(int ranks, int cpus) {
        return Math.max(1.0, (double) ranks / Math.max(1, cpus));
    }

    /** For debug lines and tools: {@code "ranks share CPUs (4 ranks of this host, 2 CPUs): waiting ranks yield"}. */
    public static String describe(List<PeerInfo> peers, String hostId) {
        Census host = Census.of(peers, hostId);
        String forced = null;
        for (PeerInfo p : peers) {
            if (!p.hostId().equals(hostId)) continue;
            if (p.oversubscription() != Config.Oversubscription.AUTO && forced == null) {
                forced = "JCCL_OVERSUBSCRIBED=" + (p.oversubscription() == Config.Oversubscription.YES ? "1" : "0")
                        + " on rank " + p.rank();
            }
        }
        String why = forced != null ? forced : host.ranks() + " rank(s) of this host, " + host.cpus() + " CPU(s)";
        return host.sharesCpus()
                ? "ranks share CPUs (" + why + "): waiting ranks yield"
                : "a CPU per rank (" + why + "): waiting ranks spin";
    }
}
