package dev.jccl.topology;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Chooses the network interface (and address) a rank listens on, the way NCCL does.
 *
 * <p>With a filter ({@code JCCL_SOCKET_IFNAME}/{@code NCCL_SOCKET_IFNAME}): comma-separated name prefixes; {@code ^} in
 * front excludes instead; {@code =} in front makes the names exact. Without one: {@code ib*} first, then anything that
 * is not {@code lo}, {@code docker*} or {@code virbr*}, then {@code docker*}, then {@code lo}. Only interfaces that are
 * up count. IPv4 addresses are preferred over IPv6; IPv6 link-local addresses are never used.
 */
public final class InterfaceSelector {

    /** An interface and the address on it that Jccl would use. */
    public record Candidate(String name, InetAddress address) {
        @Override
        public String toString() {
            return name + ":" + address.getHostAddress();
        }
    }

    private InterfaceSelector() {}

    /** Every up interface with a usable address, in the order the OS lists them. */
    public static List<Candidate> candidates() {
        List<Candidate> out = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp()) continue;
                InetAddress best = null;
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a instanceof Inet6Address && (a.isLinkLocalAddress() || ((Inet6Address) a).getScopeId() != 0)) {
                        continue;
                    }
                    if (best == null || (a instanceof Inet4Address && !(best instanceof Inet4Address))) best = a;
                }
                if (best != null) out.add(new Candidate(nif.getName(), best));
            }
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list network interfaces: " + e.getMessage(), e);
        }
        return out;
    }

    /** Picks from {@link #candidates()} with {@code filter} (null or blank for automatic). */
    public static Candidate select(String filter) {
        return select(filter, candidates());
    }

    /** Pure form of {@link #select(String)}, for tests. */
    public static Candidate select(String filter, List<Candidate> candidates) {
        if (filter != null && !filter.isBlank()) {
            for (Candidate c : candidates) {
                if (matches(filter, c.name())) return c;
            }
            throw new IllegalArgumentException("SOCKET_IFNAME='" + filter
                    + "' matches no usable interface; interfaces here: "
                    + (candidates.isEmpty() ? "(none)" : candidates)
                    + ". Set JCCL_SOCKET_IFNAME to one of them (a prefix, ^prefix to exclude, =name for exact).");
        }
        String[][] preference = {{"ib"}, null, {"docker"}, {"lo"}};
        for (String[] prefixes : preference) {
            for (Candidate c : candidates) {
                boolean special = c.name().startsWith("lo")
                        || c.name().startsWith("docker")
                        || c.name().startsWith("virbr");
                if (prefixes == null ? !special : c.name().startsWith(prefixes[0])) return c;
            }
        }
        for (Candidate c : candidates) {
            if (c.name().startsWith("virbr")) return c;
        }
        throw new IllegalStateException("no network interface is up with an address; Jccl needs at least loopback");
    }

    /** NCCL's matching rules for one interface name. */
    public static boolean matches(String filter, String name) {
        String f = filter.trim();
        boolean exclude = f.startsWith("^");
        if (exclude) f = f.substring(1);
        boolean exact = f.startsWith("=");
        if (exact) f = f.substring(1);
        boolean any = false;
        for (String part : f.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) continue;
            if (exact ? name.equals(p) : name.startsWith(p)) {
                any = true;
                break;
            }
        }
        return exclude != any;
    }
}
