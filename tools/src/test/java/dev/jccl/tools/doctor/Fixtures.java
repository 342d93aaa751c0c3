package dev.jccl.tools.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The fixture trees of src/test/resources/doctor (see the README there) and small edits to copies of them. Trees are
 * read from the source directory, not from target/test-classes: resource copying follows symbolic links, and the trees'
 * sysfs links are what the checks resolve.
 */
final class Fixtures {
    static final String HEALTHY = "healthy-node";
    static final String BROKEN = "broken-node";
    static final String ROCE = "roce-node";
    static final String VM = "vm-guest";
    static final String PLAIN = "plain-container";

    private Fixtures() {}

    /** The tree in the source directory (read-only use). */
    static Path source(String name) {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        for (Path candidate :
                List.of(base.resolve("src/test/resources/doctor"), base.resolve("tools/src/test/resources/doctor"))) {
            if (Files.isDirectory(candidate.resolve(name))) return candidate.resolve(name);
        }
        throw new IllegalStateException(
                "fixture tree " + name + " not found under " + base + "/src/test/resources/doctor");
    }

    /** A copy of the tree under {@code tempDir}, links kept as links, for a test to edit. */
    static Path copy(String name, Path tempDir) {
        Path from = source(name);
        Path to = tempDir.resolve(name);
        io(() -> {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Path target = to.resolve(from.relativize(file).toString());
                    if (attrs.isSymbolicLink()) Files.createSymbolicLink(target, Files.readSymbolicLink(file));
                    else Files.copy(file, target);
                    return FileVisitResult.CONTINUE;
                }
            });
        });
        return to;
    }

    /** {@link #copy} with variables set in its {@code _doctor/env} ({@link #env}). */
    static Path copyWithEnv(String name, Path tempDir, String... pairs) {
        Path root = copy(name, tempDir);
        env(root, pairs);
        return root;
    }

    /** {@link #copy} with one file written at a host path ({@link #write}). */
    static Path copyWithFile(String name, Path tempDir, String hostPath, String content) {
        Path root = copy(name, tempDir);
        write(root, hostPath, content);
        return root;
    }

    /** Every check's result on the tree, by id, in report order. */
    static Map<String, CheckResult> examine(Path root) {
        Map<String, CheckResult> byId = new LinkedHashMap<>();
        for (CheckResult r : Doctor.examine(Host.replay(root))) byId.put(r.id(), r);
        return byId;
    }

    /** Results on the unedited trees, computed once: results are immutable. */
    private static final Map<String, Map<String, CheckResult>> PRISTINE =
            new java.util.concurrent.ConcurrentHashMap<>();

    static Map<String, CheckResult> examine(String tree) {
        return PRISTINE.computeIfAbsent(tree, t -> java.util.Collections.unmodifiableMap(examine(source(t))));
    }

    /** Sets variables in {@code _doctor/env}: pairs of name, value; a null value removes the variable. */
    static void env(Path root, String... pairs) {
        Path file = root.resolve("_doctor/env");
        Map<String, String> env = new LinkedHashMap<>();
        io(() -> {
            if (Files.exists(file)) {
                for (String line : Files.readAllLines(file)) {
                    if (line.contains("=")) {
                        env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
                    }
                }
            }
            for (int i = 0; i < pairs.length; i += 2) {
                if (pairs[i + 1] == null) env.remove(pairs[i]);
                else env.put(pairs[i], pairs[i + 1]);
            }
            List<String> lines = new ArrayList<>();
            env.forEach((k, v) -> lines.add(k + "=" + v));
            Files.createDirectories(file.getParent());
            Files.write(file, lines);
        });
    }

    /**
     * Writes a file (parents created) at a host path such as {@code /proc/self/limits}; links in the path are followed.
     */
    static void write(Path root, String hostPath, String content) {
        Path p = local(root, hostPath);
        io(() -> {
            Files.createDirectories(p.getParent());
            Files.writeString(p, content, StandardCharsets.UTF_8);
        });
    }

    /** Removes a file, link or directory tree at a host path (a link itself, not its target). */
    static void delete(Path root, String hostPath) {
        Path p = local(root, hostPath);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            fail("fixture edit: " + hostPath + " does not exist in " + root);
        }
        io(() -> {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                try (Stream<Path> all = Files.walk(p)) {
                    for (Path q : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
                }
            } else {
                Files.delete(p);
            }
        });
    }

    /** Creates a symbolic link at a host path. */
    static void link(Path root, String hostPath, String target) {
        Path p = local(root, hostPath);
        io(() -> {
            Files.createDirectories(p.getParent());
            Files.deleteIfExists(p);
            Files.createSymbolicLink(p, Path.of(target));
        });
    }

    /** Where a host path lies in the tree; links of the tree are followed for the directory part. */
    static Path local(Path root, String hostPath) {
        HostFiles files = new HostFiles(root, null);
        String parent = files.canonical(HostFiles.parentOf(hostPath));
        return files.local(HostFiles.join(parent, HostFiles.nameOf(hostPath)));
    }

    /**
     * Examines the fixture tree {@code tree} and asserts that check {@code id} gives {@code verdict} with every one of
     * {@code summary} in its summary; returns the result for further assertions.
     */
    static CheckResult expect(String tree, String id, Verdict verdict, String... summary) {
        return expect(examine(tree), id, verdict, summary);
    }

    /** {@link #expect(String, String, Verdict, String...)} on an edited copy of a fixture tree. */
    static CheckResult expect(Path tree, String id, Verdict verdict, String... summary) {
        return expect(examine(tree), id, verdict, summary);
    }

    /** {@link #expect(String, String, Verdict, String...)} on results already at hand. */
    static CheckResult expect(Map<String, CheckResult> results, String id, Verdict verdict, String... summary) {
        CheckResult r = assertVerdict(results, id, verdict);
        assertSummary(r, summary);
        return r;
    }

    /** Asserts a check's verdict, showing the whole result when it differs. */
    static CheckResult assertVerdict(Map<String, CheckResult> results, String id, Verdict expected) {
        CheckResult r = results.get(id);
        if (r == null) fail("no result for " + id);
        assertEquals(expected, r.verdict(), () -> id + " gave " + describe(r));
        return r;
    }

    /** Asserts that the summary contains every fragment. */
    static void assertSummary(CheckResult r, String... fragments) {
        for (String f : fragments) {
            assertTrue(r.summary().contains(f), () -> "summary lacks '" + f + "': " + describe(r));
        }
    }

    /** Asserts that some fix contains the fragment. */
    static void assertFix(CheckResult r, String fragment) {
        assertTrue(
                r.fix().stream().anyMatch(x -> x.contains(fragment)),
                () -> "no fix contains '" + fragment + "': " + describe(r));
    }

    /** Asserts that evidence from {@code source} exists and its value contains {@code fragment}. */
    static void assertEvidence(CheckResult r, String source, String fragment) {
        assertTrue(
                r.evidence().stream()
                        .anyMatch(e -> e.source().equals(source) && e.value().contains(fragment)),
                () -> "no evidence " + source + " containing '" + fragment + "': " + describe(r));
    }

    static String describe(CheckResult r) {
        StringBuilder s = new StringBuilder(r.verdict().word()).append(" — ").append(r.summary());
        for (Evidence e : r.evidence()) {
            s.append("\n    evidence ").append(e.source()).append(": ").append(e.value());
        }
        for (String f : r.fix()) s.append("\n    fix ").append(f);
        return s.toString();
    }

    /** A file-system edit of a tree. */
    private interface Edit {
        void run() throws IOException;
    }

    /** Runs an edit; an I/O error fails the test (unchecked). */
    private static void io(Edit edit) {
        try {
            edit.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
