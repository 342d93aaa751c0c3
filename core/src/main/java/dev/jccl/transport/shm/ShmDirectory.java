package dev.jccl.transport.shm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where shared-memory segments live and what they are called, and the removal of segments that crashed processes left
 * behind.
 *
 * <p>Names: {@code jccl-<pid namespace>-<pid>-<comm id>-r<rank>} for a rank page and {@code jccl-<pid
 * namespace>-<pid>-<comm id>-p<low>-<high>} for a pair segment, where the pid is the creating process's. Segments are
 * unlinked as soon as every process that needs them has mapped them, so a name outlives its job only if a process died
 * during set-up; the next communicator on the host removes it when its creator is gone. The pid namespace is part of
 * the name because containers that share /dev/shm but not their pid namespace would otherwise take each other's live
 * processes for dead ones.
 *
 * <p>The directory is /dev/shm; the system property {@code jccl.shm.dir} moves it (tests use a small tmpfs of their
 * own).
 */
final class ShmDirectory {
    static final String PREFIX = "jccl-";
    static final String DIR_PROPERTY = "jccl.shm.dir";

    private final Path dir;

    ShmDirectory(Path dir) {
        this.dir = dir;
    }

    static ShmDirectory standard() {
        return new ShmDirectory(Path.of(System.getProperty(DIR_PROPERTY, "/dev/shm")));
    }

    Path dir() {
        return dir;
    }

    /** Why segments cannot be made here, or null if they can. */
    String unavailableReason() {
        if (!Files.isDirectory(dir)) return dir + " does not exist (shared memory needs a tmpfs there, as Linux has)";
        if (!Files.isWritable(dir)) return dir + " is not writable by this user";
        return null;
    }

    /** {@code jccl-<pid namespace>-<pid>}: the start of every segment name this process creates. */
    static String processPrefix() {
        return PREFIX + pidNamespace() + "-" + ProcessHandle.current().pid();
    }

    Path rankPage(String ownerPrefix, long commId, int rank) {
        return dir.resolve(String.format("%s-%016x-r%d", ownerPrefix, commId, rank));
    }

    Path pairSegment(String creatorPrefix, long commId, int low, int high) {
        return dir.resolve(String.format("%s-%016x-p%d-%d", creatorPrefix, commId, low, high));
    }

    /** The inode number of this process's pid namespace, or 0 where /proc does not say. */
    static long pidNamespace() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString(); // pid:[4026531836]
            return Long.parseLong(link.replaceAll("[^0-9]", ""));
        } catch (IOException | UnsupportedOperationException | NumberFormatException | SecurityException e) {
            return 0;
        }
    }

    /**
     * Deletes segments whose creator, a process of this pid namespace, has exited; returns their names. Segments of
     * live processes, and of other namespaces, are left alone.
     */
    List<String> reap() {
        List<String> removed = new ArrayList<>();
        long namespace = pidNamespace();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                String[] parts = f.getFileName().toString().split("-");
                if (parts.length < 4) continue;
                long ns;
                long pid;
                try {
                    ns = Long.parseLong(parts[1]);
                    pid = Long.parseLong(parts[2]);
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ns != namespace || isAlive(pid)) continue;
                try {
                    if (Files.deleteIfExists(f)) removed.add(f.getFileName().toString());
                } catch (IOException e) {
                    // someone else's file, or gone already: leave it
                }
            }
        } catch (IOException | SecurityException e) {
            // an unreadable directory is reported when a segment is made there
        }
        return removed;
    }

    static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
