package dev.jccl.tools.doctor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reads a host's files under a root prefix: {@code /} for this host, a captured tree for a replay.
 *
 * <p>Paths are written as on the host ({@code /sys/class/net/eth0/mtu}). Symbolic links are followed by this class, one
 * component at a time, with absolute targets taken relative to the root: a captured sysfs tree then resolves its links
 * exactly as the real one does, and never escapes into the machine that replays it. {@code /proc/self} is the one link
 * left alone: on the live host the kernel resolves it to this process, and a capture stores it as a plain directory.
 *
 * <p>Every method answers "absent" (null, false, an empty list) instead of throwing: a missing or unreadable file is a
 * fact the checks reason about, not an error. When an {@link AccessLog} is given, everything read is recorded in it so
 * that {@code --capture} copies exactly that.
 */
final class HostFiles {
    private static final int MAX_LINK_HOPS = 40;
    private static final int READ_CHUNK = 1 << 16;

    private final Path root;
    private final AccessLog log;

    /** @param log where to record what is read, or null */
    HostFiles(Path root, AccessLog log) {
        this.root = root.toAbsolutePath().normalize();
        this.log = log;
    }

    Path root() {
        return root;
    }

    /** Whether this reads the machine it runs on (root {@code /}), not a captured tree. */
    boolean isLiveRoot() {
        return root.getParent() == null;
    }

    /** The file's text without trailing white space, or null if it is absent or cannot be read. */
    String read(String path) {
        String canonical = canonical(path);
        byte[] bytes = readBytes(canonical);
        if (bytes == null) return null;
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (log != null) log.file(canonical, text);
        return text.stripTrailing();
    }

    /** The file's lines, or an empty list. */
    List<String> lines(String path) {
        String text = read(path);
        return text == null || text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    /**
     * The lines of the file that {@code keep} accepts. A capture stores only those lines: used for large files
     * (/proc/kallsyms) and for files of which only a part concerns the checks.
     */
    List<String> linesMatching(String path, Predicate<String> keep) {
        String canonical = canonical(path);
        byte[] bytes = readBytes(canonical);
        if (bytes == null) return List.of();
        String[] all = new String(bytes, StandardCharsets.UTF_8).split("\n");
        List<String> kept = new ArrayList<>();
        List<Integer> keptIndexes = new ArrayList<>();
        for (int i = 0; i < all.length; i++) {
            if (keep.test(all[i])) {
                kept.add(all[i]);
                keptIndexes.add(i);
            }
        }
        if (log != null) log.lines(canonical, Arrays.asList(all), keptIndexes);
        return kept;
    }

    /**
     * The white-space separated words of the file that {@code keep} accepts; a capture stores only those words. For
     * /proc/cmdline, of which the checks need the IOMMU options and nothing else.
     */
    List<String> wordsMatching(String path, Predicate<String> keep) {
        String canonical = canonical(path);
        byte[] bytes = readBytes(canonical);
        if (bytes == null) return List.of();
        List<String> kept = new ArrayList<>();
        for (String word : new String(bytes, StandardCharsets.UTF_8).trim().split("\\s+")) {
            if (!word.isEmpty() && keep.test(word)) kept.add(word);
        }
        if (log != null) log.file(canonical, String.join(" ", kept) + "\n");
        return kept;
    }

    /** The first line of the file that starts with {@code prefix}, or null. */
    String lineStartingWith(String path, String prefix) {
        List<String> found = linesMatching(path, l -> l.startsWith(prefix));
        return found.isEmpty() ? null : found.getFirst();
    }

    boolean exists(String path) {
        String canonical = canonical(path);
        Path p = local(canonical);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return false;
        if (log != null) {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) log.dir(canonical);
            else log.placeholder(canonical);
        }
        return true;
    }

    boolean isDirectory(String path) {
        String canonical = canonical(path);
        boolean dir = Files.isDirectory(local(canonical), LinkOption.NOFOLLOW_LINKS);
        if (dir && log != null) log.dir(canonical);
        return dir;
    }

    /** Names in the directory, sorted; empty if it is absent. */
    List<String> list(String dir) {
        return list(dir, "*");
    }

    /** Names in the directory that match the glob ({@code uverbs*}), sorted. */
    List<String> list(String dir, String glob) {
        String canonical = canonical(dir);
        Path p = local(canonical);
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) return List.of();
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(p, glob)) {
            for (Path e : entries) names.add(e.getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        names.sort(null);
        if (log != null) {
            log.dir(canonical);
            for (String name : names) recordEntry(join(canonical, name));
        }
        return names;
    }

    /** Target text of a symbolic link ({@code ../../devices/...}), or null if the path is not one. */
    String readLink(String path) {
        String parent = canonical(parentOf(path));
        String link = join(parent, nameOf(path));
        Path p = local(link);
        if (!Files.isSymbolicLink(p)) return null;
        try {
            String target = Files.readSymbolicLink(p).toString();
            if (log != null) log.link(link, target);
            return target;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** The path with every link resolved (relative to the root), or null if it does not exist. */
    String realPath(String path) {
        String canonical = canonical(path);
        if (!Files.exists(local(canonical), LinkOption.NOFOLLOW_LINKS)) return null;
        if (log != null && Files.isDirectory(local(canonical), LinkOption.NOFOLLOW_LINKS)) log.dir(canonical);
        return canonical;
    }

    /**
     * Resolves links component by component, relative to the root. The result need not exist; a loop of links gives the
     * path as far as it was resolved.
     */
    String canonical(String path) {
        Deque<String> pending = new ArrayDeque<>();
        for (String c : path.split("/")) {
            if (!c.isEmpty()) pending.addLast(c);
        }
        List<String> done = new ArrayList<>();
        int hops = 0;
        while (!pending.isEmpty()) {
            String c = pending.removeFirst();
            if (c.equals(".")) continue;
            if (c.equals("..")) {
                if (!done.isEmpty()) done.removeLast();
                continue;
            }
            String candidate = "/" + String.join("/", done) + (done.isEmpty() ? "" : "/") + c;
            Path p = local(candidate);
            if (!isProcSelf(candidate) && hops < MAX_LINK_HOPS && Files.isSymbolicLink(p)) {
                String target;
                try {
                    target = Files.readSymbolicLink(p).toString();
                } catch (IOException | UnsupportedOperationException e) {
                    done.add(c);
                    continue;
                }
                hops++;
                if (log != null) log.link(candidate, target);
                List<String> parts = new ArrayList<>();
                for (String t : target.split("/")) {
                    if (!t.isEmpty()) parts.add(t);
                }
                for (int i = parts.size() - 1; i >= 0; i--) pending.addFirst(parts.get(i));
                if (target.startsWith("/")) done.clear();
                continue;
            }
            done.add(c);
        }
        return "/" + String.join("/", done);
    }

    /** The real path on this machine of a host path that has no links left in it. */
    Path local(String canonical) {
        String relative = canonical.startsWith("/") ? canonical.substring(1) : canonical;
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    private byte[] readBytes(String canonical) {
        Path p = local(canonical);
        if (!Files.isRegularFile(p)) return null;
        // Large reads, not Files.readAllBytes: /proc and sysfs report size 0, readAllBytes then
        // reads one byte first, and sysctl files answer any read past offset 0 with end of file.
        try (InputStream in = Files.newInputStream(p)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[READ_CHUNK];
            int n;
            while ((n = in.read(buffer)) > 0) out.write(buffer, 0, n);
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            // sysfs answers EINVAL for some attributes (unpopulated GID types); /proc may deny.
            return null;
        }
    }

    /** Records one directory entry found by {@link #list}: a link with its target, a directory, or a file. */
    private void recordEntry(String path) {
        Path p = local(path);
        if (Files.isSymbolicLink(p)) {
            try {
                log.link(path, Files.readSymbolicLink(p).toString());
            } catch (IOException | UnsupportedOperationException e) {
                return;
            }
            // The target must exist in a capture too, or the link dangles there.
            String target = canonical(path);
            if (Files.isDirectory(local(target), LinkOption.NOFOLLOW_LINKS)) log.dir(target);
            else if (Files.exists(local(target), LinkOption.NOFOLLOW_LINKS)) {
                log.placeholder(target);
            }
        } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            log.dir(path);
        } else {
            log.placeholder(path);
        }
    }

    private static boolean isProcSelf(String path) {
        return path.equals("/proc/self") || path.equals("/proc/thread-self");
    }

    static String join(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
