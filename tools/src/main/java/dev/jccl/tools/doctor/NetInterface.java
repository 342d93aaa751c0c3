package dev.jccl.tools.doctor;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A network interface as the checks need it: name, state flags and addresses.
 *
 * <p>Its text form is one line of {@code _doctor/ifaddrs}, {@code name FLAGS [addr/prefix]}, FLAGS being a comma list
 * of UP, RUNNING, LOOPBACK or {@code -}; an interface with several addresses takes several lines, one without any takes
 * one line with none.
 *
 * @param up IFF_UP: configured up by an administrator
 * @param running IFF_RUNNING: up and with carrier, the state NCCL ≥ 2.28.3 and Jccl require
 */
record NetInterface(String name, boolean up, boolean running, boolean loopback, List<Address> addresses) {

    /** One address with its prefix length; IPv6 addresses carry no scope. */
    record Address(InetAddress address, int prefix) {
        boolean isIpv4() {
            return address instanceof Inet4Address;
        }

        boolean isLinkLocal() {
            return address.isLinkLocalAddress();
        }

        @Override
        public String toString() {
            return address.getHostAddress() + "/" + prefix;
        }
    }

    NetInterface {
        addresses = List.copyOf(addresses);
    }

    /** The address NCCL and Jccl would use here: IPv4 first, else a global IPv6 one; null if none. */
    Address usableAddress() {
        Address best = null;
        for (Address a : addresses) {
            if (a.address() instanceof Inet6Address && a.isLinkLocal()) continue;
            if (best == null || (a.isIpv4() && !best.isIpv4())) best = a;
        }
        return best;
    }

    String flagsText() {
        List<String> flags = new ArrayList<>();
        if (up) flags.add("UP");
        if (running) flags.add("RUNNING");
        if (loopback) flags.add("LOOPBACK");
        return flags.isEmpty() ? "-" : String.join(",", flags);
    }

    /** E.g. {@code eth0 UP,RUNNING 10.0.0.5/24 fd00::5/64}. */
    String describe() {
        StringBuilder s = new StringBuilder(name).append(' ').append(flagsText());
        for (Address a : addresses) s.append(' ').append(a);
        return s.toString();
    }

    /** Lines of {@code _doctor/ifaddrs} for these interfaces. */
    static List<String> format(List<NetInterface> interfaces) {
        List<String> lines = new ArrayList<>();
        for (NetInterface nif : interfaces) {
            if (nif.addresses().isEmpty()) lines.add(nif.name() + " " + nif.flagsText());
            for (Address a : nif.addresses()) lines.add(nif.name() + " " + nif.flagsText() + " " + a);
        }
        return lines;
    }

    /** Reads {@code _doctor/ifaddrs} lines; a malformed line is an IllegalArgumentException naming it. */
    static List<NetInterface> parse(List<String> lines) {
        Map<String, NetInterface> byName = new LinkedHashMap<>();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] f = line.split("\\s+");
            if (f.length < 2 || f.length > 3) {
                throw new IllegalArgumentException(
                        "_doctor/ifaddrs: '" + line + "' is not 'name FLAGS [address/prefix]'");
            }
            List<String> flags = f[1].equals("-") ? List.of() : List.of(f[1].split(","));
            NetInterface known = byName.get(f[0]);
            List<Address> addresses = new ArrayList<>(known == null ? List.of() : known.addresses());
            if (f.length == 3) addresses.add(parseAddress(f[2], line));
            byName.put(
                    f[0],
                    new NetInterface(
                            f[0],
                            flags.contains("UP"),
                            flags.contains("RUNNING"),
                            flags.contains("LOOPBACK"),
                            addresses));
        }
        return new ArrayList<>(byName.values());
    }

    private static Address parseAddress(String text, String line) {
        int slash = text.indexOf('/');
        try {
            InetAddress a = InetAddress.ofLiteral(slash < 0 ? text : text.substring(0, slash));
            int prefix =
                    slash < 0 ? (a instanceof Inet4Address ? 32 : 128) : Integer.parseInt(text.substring(slash + 1));
            return new Address(a, prefix);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "_doctor/ifaddrs: '" + line + "': " + text + " is not an address/prefix");
        }
    }
}
