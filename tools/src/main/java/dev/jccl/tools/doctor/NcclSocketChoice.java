package dev.jccl.tools.doctor;

import dev.jccl.topology.InterfaceSelector;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The interface NCCL's bootstrap and socket transport pick (docs/doctor-checks.md §0.5): NCCL_SOCKET_IFNAME when it is
 * longer than one character (prefixes, {@code ^} to exclude, {@code =} for exact names: the rules Jccl's
 * InterfaceSelector implements); otherwise {@code ib*}, then the interface on NCCL_COMM_ID's subnet, then anything but
 * {@code docker*} and {@code lo} (and {@code virbr*} since 2.28.3), then {@code docker*}, then {@code lo}, then
 * {@code virbr*}. From 2.28.3 only RUNNING interfaces count; before, any with an address could be chosen.
 */
final class NcclSocketChoice {
    /** The chosen interface and address, and the rule that chose it. */
    record Choice(NetInterface nif, NetInterface.Address address, String rule) {}

    private NcclSocketChoice() {}

    /**
     * @param nccl the NCCL release to imitate, or null for the newest behaviour
     * @return the choice, or null when nothing qualifies
     */
    static Choice choose(List<NetInterface> interfaces, String ifname, String family, String commId, Version nccl) {
        boolean runningOnly = nccl == null || nccl.atLeast("2.28.3");
        List<Choice> candidates = new ArrayList<>();
        for (NetInterface nif : interfaces) {
            if (runningOnly && !(nif.up() && nif.running())) continue;
            NetInterface.Address a = addressOf(nif, family);
            if (a != null) candidates.add(new Choice(nif, a, null));
        }
        if (ifname != null && ifname.trim().length() > 1) {
            for (Choice c : candidates) {
                if (InterfaceSelector.matches(ifname, c.nif().name())) {
                    return new Choice(c.nif(), c.address(), "as NCCL_SOCKET_IFNAME=" + ifname + " asks");
                }
            }
            return null;
        }
        for (Choice c : candidates) {
            if (c.nif().name().startsWith("ib")) return rule(c, "ib* interfaces come first");
        }
        InetAddress root = commIdAddress(commId);
        if (root != null) {
            for (Choice c : candidates) {
                if (sameSubnet(c.address(), root)) return rule(c, "the interface on NCCL_COMM_ID's subnet");
            }
        }
        for (Choice c : candidates) {
            String n = c.nif().name();
            if (!n.startsWith("docker") && !n.startsWith("lo") && (!runningOnly || !n.startsWith("virbr"))) {
                return rule(
                        c,
                        "the first interface that is not lo" + (runningOnly ? ", docker* or virbr*" : " or docker*"));
            }
        }
        for (Choice c : candidates) {
            if (c.nif().name().startsWith("docker")) return rule(c, "docker*, as nothing else qualifies");
        }
        for (Choice c : candidates) {
            if (c.nif().name().startsWith("lo")) return rule(c, "lo, as nothing else qualifies");
        }
        for (Choice c : candidates) {
            if (c.nif().name().startsWith("virbr")) return rule(c, "virbr*, as nothing else qualifies");
        }
        return null;
    }

    private static Choice rule(Choice c, String rule) {
        return new Choice(c.nif(), c.address(), rule);
    }

    /** The interface's address of NCCL_SOCKET_FAMILY (either when unset, IPv4 first); no IPv6 link-local. */
    static NetInterface.Address addressOf(NetInterface nif, String family) {
        if (family == null || family.isBlank()) return nif.usableAddress();
        boolean v4 = family.trim().equalsIgnoreCase("AF_INET");
        for (NetInterface.Address a : nif.addresses()) {
            if (a.isIpv4() == v4 && !(a.isLinkLocal() && !a.isIpv4())) return a;
        }
        return null;
    }

    /**
     * NCCL_COMM_ID's host when it is an address literal ({@code 10.0.0.1:port}, {@code [fd00::1]:port}); no name
     * lookups.
     */
    static InetAddress commIdAddress(String commId) {
        if (commId == null || commId.isBlank()) return null;
        String host = commId.trim();
        if (host.startsWith("[")) host = host.substring(1, Math.max(1, host.indexOf(']')));
        else if (host.indexOf(':') == host.lastIndexOf(':') && host.contains(":")) {
            host = host.substring(0, host.indexOf(':'));
        }
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static boolean sameSubnet(NetInterface.Address a, InetAddress other) {
        byte[] x = a.address().getAddress();
        byte[] y = other.getAddress();
        if (x.length != y.length) return false;
        for (int bit = 0; bit < a.prefix(); bit++) {
            int mask = 0x80 >> (bit % 8);
            if ((x[bit / 8] & mask) != (y[bit / 8] & mask)) return false;
        }
        return true;
    }

    /** Whether the address is in Docker's default bridge network 172.17.0.0/16 [U: the daemon can change it]. */
    static boolean dockerDefaultBridge(NetInterface.Address a) {
        byte[] b = a.address().getAddress();
        return b.length == 4 && (b[0] & 0xff) == 172 && (b[1] & 0xff) == 17;
    }
}
