package dev.jccl.topology;

import java.util.ArrayList;
import java.util.List;

/**
 * NCCL_IB_HCA's grammar: {@code [^][=]<hca>[:<port>[:<rail>[:<plane>]]],…}. Names are prefixes unless the list starts
 * with {@code =}; {@code ^} selects every port that no entry names. So {@code mlx5_1} also selects mlx5_10…mlx5_19, and
 * {@code =mlx5_1} only mlx5_1. The doctor checks a filter against the ports there are; the UCX plugin turns it into
 * UCX_NET_DEVICES.
 *
 * @param text the variable's value, for messages
 * @param exclude the list started with {@code ^}
 * @param exact the list (after any {@code ^}) started with {@code =}
 */
public record IbHcaFilter(String text, boolean exclude, boolean exact, List<Entry> entries) {

    /** One entry; {@code port} is -1 when the entry names no port. */
    public record Entry(String name, int port) {
        public boolean matches(String device, int portNumber, boolean exact) {
            boolean nameMatches = exact ? device.equals(name) : device.startsWith(name);
            return nameMatches && (port < 0 || port == portNumber);
        }

        @Override
        public String toString() {
            return port < 0 ? name : name + ":" + port;
        }
    }

    public static IbHcaFilter parse(String text) {
        String s = text.trim();
        boolean exclude = s.startsWith("^");
        if (exclude) s = s.substring(1);
        boolean exact = s.startsWith("=");
        if (exact) s = s.substring(1);
        List<Entry> entries = new ArrayList<>();
        for (String part : s.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) continue;
            String[] f = p.split(":");
            int port = -1;
            if (f.length > 1) {
                try {
                    port = Integer.parseInt(f[1].trim());
                } catch (NumberFormatException e) {
                    port = -1;
                }
            }
            entries.add(new Entry(f[0].trim(), port));
        }
        return new IbHcaFilter(text.trim(), exclude, exact, List.copyOf(entries));
    }

    /** Whether NCCL would use this device's port. */
    public boolean selects(String device, int port) {
        boolean named = false;
        for (Entry e : entries) {
            if (e.matches(device, port, exact)) {
                named = true;
                break;
            }
        }
        return named != exclude;
    }

    /** Devices among {@code devices} whose name an entry matches (ports aside). */
    public List<String> devicesMatching(Entry entry, List<String> devices) {
        List<String> out = new ArrayList<>();
        for (String d : devices) {
            if (exact ? d.equals(entry.name()) : d.startsWith(entry.name())) out.add(d);
        }
        return out;
    }
}
