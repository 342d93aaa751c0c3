package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * A RoCE port's GID table from sysfs ({@code ports/N/gids/I}, {@code gid_attrs/types/I}, {@code gid_attrs/ndevs/I}) and
 * the index NCCL ≥ 2.21 picks by itself.
 *
 * <p>NCCL's rule (connect.cc {@code ncclIbGetGidIndex}, described in docs/doctor-checks.md C6): start at index 0 and
 * walk the table; take a candidate whose address family differs from the current one's when it is the wanted family
 * ({@code NCCL_IB_ADDR_FAMILY}, default IPv4) and inside {@code NCCL_IB_ADDR_RANGE}; otherwise take a valid candidate
 * of the wanted family and range when the current one is invalid or of another RoCE version, and the candidate has the
 * wanted version ({@code NCCL_IB_ROCE_VERSION_NUM}, default 2). Valid means neither all zero nor link-local.
 */
final class GidTable {
    /**
     * One entry; {@code version} is 1, 2, or -1 when its type cannot be read (unpopulated entries fail with EINVAL).
     */
    record Gid(int index, byte[] raw, String text, int version, String ndev) {
        boolean zero() {
            for (byte b : raw) {
                if (b != 0) return false;
            }
            return true;
        }

        /** fe80::/64. */
        boolean linkLocal() {
            if ((raw[0] & 0xff) != 0xfe || (raw[1] & 0xff) != 0x80) return false;
            for (int i = 2; i < 8; i++) {
                if (raw[i] != 0) return false;
            }
            return true;
        }

        boolean valid() {
            return !zero() && !linkLocal();
        }

        /** 4 for an IPv4-mapped GID (::ffff:a.b.c.d), else 6. */
        int family() {
            for (int i = 0; i < 10; i++) {
                if (raw[i] != 0) return 6;
            }
            return (raw[10] & 0xff) == 0xff && (raw[11] & 0xff) == 0xff ? 4 : 6;
        }

        /** The address in usual notation: {@code 10.0.0.5} or IPv6. */
        String address() {
            if (family() == 4) {
                return (raw[12] & 0xff) + "." + (raw[13] & 0xff) + "." + (raw[14] & 0xff) + "." + (raw[15] & 0xff);
            }
            return text;
        }

        String typeText() {
            return version == 2 ? "RoCE v2" : version == 1 ? "RoCE v1" : "type unreadable";
        }

        String describe() {
            if (zero()) return "empty";
            return address() + " " + typeText() + (ndev == null ? "" : " on " + ndev)
                    + (linkLocal() ? " (link-local)" : "");
        }
    }

    /** The user's wishes for the automatic choice. */
    record Wanted(int family, int roceVersion, byte[] rangePrefix, int rangeBits) {
        static Wanted fromEnvironment(HostFacts facts) {
            int family = "AF_INET6".equalsIgnoreCase(facts.env("NCCL_IB_ADDR_FAMILY")) ? 6 : 4;
            int version = 2;
            String v = facts.env("NCCL_IB_ROCE_VERSION_NUM");
            if (v != null) {
                try {
                    version = Integer.parseInt(v);
                } catch (NumberFormatException e) {
                    version = 2;
                }
            }
            byte[] prefix = null;
            int bits = 0;
            String range = facts.env("NCCL_IB_ADDR_RANGE");
            if (range != null && range.contains("/")) {
                try {
                    prefix = java.net.InetAddress.ofLiteral(range.substring(0, range.indexOf('/')))
                            .getAddress();
                    bits = Integer.parseInt(range.substring(range.indexOf('/') + 1));
                } catch (IllegalArgumentException e) {
                    prefix = null;
                }
            }
            return new Wanted(family, version, prefix, bits);
        }

        boolean inRange(Gid g) {
            if (rangePrefix == null) return true;
            byte[] address = g.family() == 4 ? java.util.Arrays.copyOfRange(g.raw(), 12, 16) : g.raw();
            if (address.length != rangePrefix.length) return false;
            for (int bit = 0; bit < rangeBits; bit++) {
                int mask = 0x80 >> (bit % 8);
                if ((address[bit / 8] & mask) != (rangePrefix[bit / 8] & mask)) return false;
            }
            return true;
        }

        /** Whether NCCL's automatic choice is happy with this entry. */
        boolean accepts(Gid g) {
            return g != null && g.valid() && g.family() == family && g.version() == roceVersion && inRange(g);
        }
    }

    private final TreeMap<Integer, Gid> entries;
    private final int length;

    private GidTable(TreeMap<Integer, Gid> entries, int length) {
        this.entries = entries;
        this.length = length;
    }

    /** Reads the table of a port ({@code /sys/class/infiniband/DEV/ports/N}). */
    static GidTable read(HostFiles files, String portPath) {
        TreeMap<Integer, Gid> entries = new TreeMap<>();
        int length = 0;
        for (String name : files.list(portPath + "/gids")) {
            int index;
            try {
                index = Integer.parseInt(name);
            } catch (NumberFormatException e) {
                continue;
            }
            length = Math.max(length, index + 1);
            byte[] raw = parse(files.read(portPath + "/gids/" + index));
            if (raw == null) continue;
            Gid g = new Gid(index, raw, format(raw), -1, null);
            if (!g.zero()) {
                String type = files.read(portPath + "/gid_attrs/types/" + index);
                int version = type == null ? -1 : type.contains("v2") ? 2 : type.contains("v1") ? 1 : -1;
                String ndev = files.read(portPath + "/gid_attrs/ndevs/" + index);
                g = new Gid(index, raw, g.text(), version, ndev == null || ndev.isBlank() ? null : ndev);
            }
            entries.put(index, g);
        }
        return new GidTable(entries, length);
    }

    /** The entry at {@code index}; an index past the table or unreadable is null. */
    Gid get(int index) {
        return entries.get(index);
    }

    List<Gid> nonEmpty() {
        List<Gid> out = new ArrayList<>();
        for (Gid g : entries.values()) {
            if (!g.zero()) out.add(g);
        }
        return out;
    }

    /** The index NCCL ≥ 2.21 chooses when NCCL_IB_GID_INDEX is unset or -1. */
    int autoIndex(Wanted w) {
        int chosen = 0;
        for (int candidate = 1; candidate < length; candidate++) {
            Gid cur = entries.get(chosen);
            Gid cand = entries.get(candidate);
            if (cand == null) continue;
            int curFamily = cur == null ? 6 : cur.family();
            if (cand.family() != curFamily && cand.family() == w.family() && w.inRange(cand)) {
                chosen = candidate;
                continue;
            }
            if (cand.family() != w.family() || !cand.valid() || !w.inRange(cand)) continue;
            int curVersion = cur == null ? -1 : cur.version();
            boolean curValid = cur != null && cur.valid();
            if ((curVersion != cand.version() || !curValid) && cand.version() == w.roceVersion()) chosen = candidate;
        }
        return chosen;
    }

    /** The first entry the automatic choice would accept, or null: there is no usable GID at all. */
    Gid firstAcceptable(Wanted w) {
        for (Gid g : entries.values()) {
            if (w.accepts(g)) return g;
        }
        return null;
    }

    /** Whether any valid RoCE v2 entry exists (for "v1 forced while v2 exists"). */
    boolean hasRoceV2() {
        for (Gid g : entries.values()) {
            if (g.valid() && g.version() == 2) return true;
        }
        return false;
    }

    /** {@code 0000:0000:0000:0000:0000:ffff:0a00:0005} → 16 bytes, or null. */
    static byte[] parse(String text) {
        if (text == null) return null;
        String hex = text.trim().replace(":", "");
        if (hex.length() != 32) return null;
        try {
            return HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static String format(byte[] raw) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) s.append(':');
            s.append(String.format("%02x%02x", raw[i] & 0xff, raw[i + 1] & 0xff));
        }
        return s.toString();
    }
}
