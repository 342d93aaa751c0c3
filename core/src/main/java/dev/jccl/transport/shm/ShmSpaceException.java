package dev.jccl.transport.shm;

import java.io.IOException;
import java.nio.file.Path;

/** The shared-memory filesystem cannot hold a segment; the transport turns this into the error users see. */
final class ShmSpaceException extends IOException {
    final Path directory;
    final long needed;
    final long usable;

    ShmSpaceException(Path directory, long needed, long usable, IOException cause) {
        super(
                directory + " has " + (usable < 0 ? "an unknown amount of" : usable + " bytes") + " free, " + needed
                        + " bytes needed",
                cause);
        this.directory = directory;
        this.needed = needed;
        this.usable = usable;
    }
}
