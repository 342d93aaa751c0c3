package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How far apart two PCI functions are, in NCCL's words, judged from their real sysfs paths
 * ({@code /sys/devices/pci0000:38/0000:38:01.0/0000:39:00.0/0000:3a:00.0/0000:3b:00.0}).
 *
 * <p>The rules approximate NCCL's topology search [U: NCCL builds an XML graph and has more levels]: behind one PCIe
 * switch (each function at most one bridge below the common ancestor) is PIX; several switches is PXB; nothing shared
 * below the root complex is PHB; different root complexes are PHB on one NUMA node and SYS across nodes. A VM's flat
 * virtual bus (everything on {@code 0000:00:xx.x}) is therefore PHB.
 */
enum PciDistance {
    LOC,
    PIX,
    PXB,
    PHB,
    SYS;

    private static final Pattern BDF = Pattern.compile("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");

    /** Whether the two share a PCIe switch (what ACS redirection gets in the way of). */
    boolean sharesSwitch() {
        return this == PIX || this == PXB;
    }

    /**
     * The distance between two functions given their real paths and NUMA nodes (-1 = unknown, counted as "same node").
     */
    static PciDistance between(String pathA, int numaA, String pathB, int numaB) {
        List<String> a = chain(pathA);
        List<String> b = chain(pathB);
        String rootA = root(pathA);
        String rootB = root(pathB);
        if (a.isEmpty() || b.isEmpty() || rootA == null || !rootA.equals(rootB)) {
            return numaA >= 0 && numaB >= 0 && numaA != numaB ? SYS : PHB;
        }
        if (a.equals(b)) return LOC;
        // Bridges above each endpoint, and how many of them the two have in common.
        List<String> aboveA = a.subList(0, a.size() - 1);
        List<String> aboveB = b.subList(0, b.size() - 1);
        int common = 0;
        while (common < aboveA.size()
                && common < aboveB.size()
                && aboveA.get(common).equals(aboveB.get(common))) {
            common++;
        }
        if (common == 0) return PHB;
        int bridgesA = aboveA.size() - common;
        int bridgesB = aboveB.size() - common;
        return bridgesA <= 1 && bridgesB <= 1 ? PIX : PXB;
    }

    /** NCCL_NET_GDR_LEVEL's value: a name, or the legacy integers 0–4; null if unreadable. */
    static PciDistance parseLevel(String text) {
        if (text == null) return null;
        String t = text.trim().toUpperCase(Locale.ROOT);
        try {
            int i = Integer.parseInt(t);
            return i >= 0 && i < values().length ? values()[i] : null;
        } catch (NumberFormatException e) {
            for (PciDistance d : values()) {
                if (d.name().equals(t)) return d;
            }
            return null;
        }
    }

    /** The PCI functions on the path from the root complex down, e.g. [0000:38:01.0, …, 0000:3b:00.0]. */
    static List<String> chain(String path) {
        List<String> out = new ArrayList<>();
        if (path == null) return out;
        for (String part : path.split("/")) {
            if (BDF.matcher(part).matches()) out.add(part);
        }
        return out;
    }

    /** The root complex ({@code pci0000:38}) a path hangs from, or null. */
    static String root(String path) {
        if (path == null) return null;
        for (String part : path.split("/")) {
            if (part.startsWith("pci") && part.contains(":")) return part;
        }
        return null;
    }
}
