package dev.jccl.tools.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the checks read from the live host, kept so that {@code --capture} can write the same tree (and nothing else)
 * for a later replay with {@code --root}.
 *
 * <p>Entries are keyed by host path without links in it; links are entries of their own. A file whose content was not
 * needed (only its existence) is written empty.
 */
final class AccessLog {
    private sealed interface Entry permits Dir, Link, Content, Partial, Placeholder {}

    private record Dir() implements Entry {}

    private record Link(String target) implements Entry {}

    private record Content(String text) implements Entry {}

    /** Only some lines of a large or partly private file: {@code kept} indexes into {@code lines}. */
    private record Partial(List<String> lines, TreeSet<Integer> kept) implements Entry {}

    private record Placeholder() implements Entry {}

    private final Map<String, Entry> entries = new TreeMap<>();

    void dir(String path) {
        entries.putIfAbsent(path, new Dir());
    }

    void link(String path, String target) {
        entries.put(path, new Link(target));
    }

    void file(String path, String text) {
        entries.put(path, new Content(text));
    }

    void lines(String path, List<String> all, List<Integer> keptIndexes) {
        Entry e = entries.get(path);
        if (e instanceof Content) return;
        Partial p = e instanceof Partial q ? q : new Partial(List.copyOf(all), new TreeSet<>());
        p.kept().addAll(keptIndexes);
        entries.put(path, p);
    }

    void placeholder(String path) {
        entries.putIfAbsent(path, new Placeholder());
    }

    /** Number of files and links recorded. */
    int size() {
        return (int) entries.values().stream().filter(e -> !(e instanceof Dir)).count();
    }

    /** Writes the recorded tree under {@code dir}: directories, then links, then files. */
    void writeTo(Path dir) throws IOException {
        List<Map.Entry<String, Entry>> links = new ArrayList<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Path p = local(dir, e.getKey());
            switch (e.getValue()) {
                case Dir d -> Files.createDirectories(p);
                case Link l -> links.add(e);
                default -> Files.createDirectories(p.getParent());
            }
        }
        for (Map.Entry<String, Entry> e : links) {
            Path p = local(dir, e.getKey());
            Files.createDirectories(p.getParent());
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.createSymbolicLink(p, Path.of(((Link) e.getValue()).target()));
            }
        }
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            Path p = local(dir, e.getKey());
            String text = switch (e.getValue()) {
                case Content c -> c.text();
                case Partial part -> {
                    StringBuilder s = new StringBuilder();
                    for (int i : part.kept()) s.append(part.lines().get(i)).append('\n');
                    yield s.toString();
                }
                case Placeholder ph -> "";
                default -> null;
            };
            // A path recorded both as a directory's child and as a directory stays a directory.
            if (text == null || Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(p)) continue;
            Files.writeString(p, text, StandardCharsets.UTF_8);
        }
    }

    private static Path local(Path dir, String hostPath) {
        return dir.resolve(hostPath.substring(1));
    }
}
