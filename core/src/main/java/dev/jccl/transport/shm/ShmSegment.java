package dev.jccl.transport.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * One file in the shared-memory directory, mapped read-write into this process.
 *
 * <p>Why the pages are written before they are mapped: a tmpfs file grows sparsely, and touching a page of a mapping
 * that the filesystem cannot back is a SIGBUS, which kills the JVM. Writing the file through {@code write(2)} first
 * makes tmpfs allocate every page or fail with ENOSPC, an ordinary {@link IOException}; after that, the mapping can
 * never fault for lack of space. Every page is then touched once in this process, so that no operation pays for page
 * faults (Open MPI loses half its bandwidth at 64 MiB to faulting fresh memory on every call).
 */
final class ShmSegment implements AutoCloseable {
    private static final int ZERO_BLOCK = 1 << 20;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(ZERO_BLOCK);

    private final Path path;
    private final Arena arena;
    private final MemorySegment memory;
    private boolean unlinked;
    /** Keeps the page-touching loads from being optimised away. */
    @SuppressWarnings("unused")
    private long touched;

    private ShmSegment(Path path, Arena arena, MemorySegment memory) {
        this.path = path;
        this.arena = arena;
        this.memory = memory;
    }

    /**
     * Creates {@code path} (mode 0600; it must not exist), allocates all {@code bytes} of it and maps it. Fails with
     * {@link ShmSpaceException} when the filesystem lacks the room, leaving no file behind.
     */
    static ShmSegment create(Path path, long bytes) throws IOException {
        long usable = usableBytes(path.getParent());
        if (usable >= 0 && usable < bytes) throw new ShmSpaceException(path.getParent(), bytes, usable, null);
        try (FileChannel ch = FileChannel.open(
                path,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            try {
                allocate(ch, bytes);
            } catch (IOException e) {
                Files.deleteIfExists(path);
                if (isNoSpace(e)) {
                    throw new ShmSpaceException(path.getParent(), bytes, usableBytes(path.getParent()), e);
                }
                throw e;
            }
            return map(path, ch, bytes, true);
        } catch (IOException | RuntimeException e) {
            if (!(e instanceof FileAlreadyExistsException)) Files.deleteIfExists(path);
            throw e;
        }
    }

    /**
     * Maps {@code path} if it exists and has reached {@code bytes}; null if it is not there yet (its creator may still
     * be writing it). The caller checks the contents are ready.
     */
    static ShmSegment tryOpen(Path path, long bytes) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (ch) {
            if (ch.size() < bytes) return null;
            return map(path, ch, bytes, false);
        }
    }

    private static ShmSegment map(Path path, FileChannel ch, long bytes, boolean created) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment memory = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
            ShmSegment s = new ShmSegment(path, arena, memory);
            s.touchPages(created);
            return s;
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static void allocate(FileChannel ch, long bytes) throws IOException {
        long position = 0;
        while (position < bytes) {
            ByteBuffer zeros = ZEROS.duplicate();
            zeros.limit((int) Math.min(ZERO_BLOCK, bytes - position));
            position += ch.write(zeros, position);
        }
    }

    /** Maps every page into this process's page tables now rather than on first use. */
    private void touchPages(boolean writable) {
        long sum = 0;
        for (long at = 0; at < memory.byteSize(); at += ShmLayout.PAGE) {
            byte b = memory.get(ValueLayout.JAVA_BYTE, at);
            // The creator owns every byte, so it can write: that makes the page writable in its page tables too.
            if (writable) memory.set(ValueLayout.JAVA_BYTE, at, b);
            sum += b;
        }
        touched = sum;
    }

    private static boolean isNoSpace(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("No space left") || m.contains("ENOSPC") || m.contains("Disk quota");
    }

    /** Free bytes of the filesystem holding {@code dir}, or -1 when it cannot be asked. */
    static long usableBytes(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | SecurityException e) {
            return -1;
        }
    }

    MemorySegment memory() {
        return memory;
    }

    Path path() {
        return path;
    }

    /** Removes the file name; the mapping stays valid, and the memory is freed once every process has unmapped it. */
    void unlink() {
        if (unlinked) return;
        unlinked = true;
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // the reaper of a later communicator removes it
        }
    }

    boolean isUnlinked() {
        return unlinked;
    }

    /** Unmaps. Another thread still touching the memory gets an IllegalStateException, never a crash. */
    @Override
    public void close() {
        arena.close();
    }
}
