package dev.jccl.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Segment files: their mode, their names, and the removal of those left by dead processes. */
@Timeout(60)
class ShmDirectoryTest {

    @Test
    void aSegmentIsPrivateToItsUserAndNeverMadeTwice(@TempDir Path dir) throws IOException {
        Path p = dir.resolve("jccl-test-segment");
        try (ShmSegment s = ShmSegment.create(p, 3 * 4096)) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
            assertEquals(3 * 4096, Files.size(p));
            assertThrows(FileAlreadyExistsException.class, () -> ShmSegment.create(p, 4096));
            assertTrue(Files.exists(p), "a refused second creation leaves the first file alone");
            s.unlink();
            assertFalse(Files.exists(p));
            s.memory().set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 42); // the mapping outlives the name
        }
    }

    @Test
    void segmentsOfDeadProcessesAreRemovedAndOthersKept(@TempDir Path dir) throws Exception {
        long ns = ShmDirectory.pidNamespace();
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long dead = p.pid();
        String ours = "jccl-" + ns + "-" + ProcessHandle.current().pid() + "-00000000000000aa-r0";
        String deadOnes = "jccl-" + ns + "-" + dead + "-00000000000000aa-r1";
        String deadPair = "jccl-" + ns + "-" + dead + "-00000000000000aa-p0-1";
        String otherNamespace = "jccl-" + (ns + 1) + "-" + dead + "-00000000000000aa-r2";
        String notOurs = "something-else";
        for (String n : List.of(ours, deadOnes, deadPair, otherNamespace, notOurs)) Files.createFile(dir.resolve(n));
        List<String> removed = new ShmDirectory(dir).reap();
        assertEquals(
                List.of(deadOnes, deadPair).stream().sorted().toList(),
                removed.stream().sorted().toList());
        assertTrue(Files.exists(dir.resolve(ours)));
        assertTrue(
                Files.exists(dir.resolve(otherNamespace)),
                "a pid of another namespace says nothing about our processes");
        assertTrue(Files.exists(dir.resolve(notOurs)));
    }

    @Test
    void aMissingDirectoryIsExplained(@TempDir Path dir) {
        String why = new ShmDirectory(dir.resolve("nope")).unavailableReason();
        assertNotNull(why);
        assertTrue(why.contains("does not exist"), why);
        assertNull(new ShmDirectory(dir).unavailableReason());
    }
}
