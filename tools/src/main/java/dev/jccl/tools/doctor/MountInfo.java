package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Lines of {@code /proc/self/mountinfo}: {@code id parent maj:min root mountpoint options [optional…] - fstype source
 * superoptions}.
 */
final class MountInfo {
    static final String PATH = "/proc/self/mountinfo";

    /** One mount; {@code line} is the text it came from, for evidence. */
    record Mount(String mountPoint, String fsType, String superOptions, String line) {
        /** Value of one option ({@code size}) from the file system's options, or null. */
        String option(String name) {
            for (String o : superOptions.split(",")) {
                if (o.startsWith(name + "=")) return o.substring(name.length() + 1);
            }
            return null;
        }
    }

    private MountInfo() {}

    /** Lines of mountinfo whose mount point is one of {@code mountPoints} (a capture keeps only those). */
    static List<Mount> mountsAt(HostFiles files, String... mountPoints) {
        List<Mount> out = new ArrayList<>();
        for (String line : files.linesMatching(PATH, l -> {
            Mount m = parse(l);
            if (m == null) return false;
            for (String p : mountPoints) {
                if (m.mountPoint().equals(p)) return true;
            }
            return false;
        })) {
            out.add(parse(line));
        }
        return out;
    }

    /** The mount now visible at {@code mountPoint}: the last one listed there (later mounts stack on top). */
    static Mount visibleAt(HostFiles files, String mountPoint) {
        List<Mount> all = mountsAt(files, mountPoint);
        return all.isEmpty() ? null : all.getLast();
    }

    static Mount parse(String line) {
        String[] f = line.trim().split(" ");
        int dash = -1;
        for (int i = 6; i < f.length; i++) {
            if (f[i].equals("-")) {
                dash = i;
                break;
            }
        }
        if (f.length < 7 || dash < 0 || dash + 2 >= f.length) return null;
        String superOptions = dash + 3 < f.length ? f[dash + 3] : "";
        return new Mount(unescape(f[4]), f[dash + 1], superOptions, line.trim());
    }

    /**
     * Bytes of a tmpfs {@code size=} option: {@code 65536k}, {@code 64m}, {@code 1g}, bytes, or a percentage of
     * {@code memTotalBytes}. -1 if it cannot be read.
     */
    static long sizeBytes(String size, long memTotalBytes) {
        if (size == null || size.isEmpty()) return -1;
        String s = size.toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("%")) {
                return memTotalBytes < 0 ? -1 : memTotalBytes * Long.parseLong(s.substring(0, s.length() - 1)) / 100;
            }
            long unit = switch (s.charAt(s.length() - 1)) {
                case 'k' -> 1L << 10;
                case 'm' -> 1L << 20;
                case 'g' -> 1L << 30;
                case 't' -> 1L << 40;
                default -> 1;
            };
            String digits = unit == 1 ? s : s.substring(0, s.length() - 1);
            return Long.parseLong(digits) * unit;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** mountinfo writes space, tab, newline and backslash in paths as octal escapes ({@code \040}). */
    private static String unescape(String s) {
        if (!s.contains("\\")) return s;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                try {
                    out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                    continue;
                } catch (NumberFormatException e) {
                    // not an escape: keep the backslash
                }
            }
            out.append(c);
        }
        return out.toString();
    }
}
