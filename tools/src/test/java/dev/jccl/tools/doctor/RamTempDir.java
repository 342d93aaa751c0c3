package dev.jccl.tools.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Temporary directories on /dev/shm where it is writable, else the usual ones: the tests copy fixture trees of a few
 * hundred small files dozens of times, which a RAM file system does about ten times faster than a disk. JUnit deletes
 * the directory after the test as usual.
 */
final class RamTempDir implements TempDirFactory {
    @Override
    public Path createTempDirectory(AnnotatedElementContext element, ExtensionContext extension) throws IOException {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) return Files.createTempDirectory(shm, "jccl-doctor-test-");
        return Files.createTempDirectory("jccl-doctor-test-");
    }
}
