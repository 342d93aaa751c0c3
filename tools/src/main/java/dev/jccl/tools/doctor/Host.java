package dev.jccl.tools.doctor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The host the doctor examines: its files under a root prefix and its other sources.
 *
 * @param files reads under the root
 * @param sources environment, interfaces, device opens, /dev/shm size
 * @param log what was read (live host with {@code --capture} only), or null
 */
record Host(HostFiles files, HostSources sources, AccessLog log) {

    /** This machine, reading {@code environment}; with {@code recording}, every access is logged for a capture. */
    static Host live(Map<String, String> environment, boolean recording) {
        AccessLog log = recording ? new AccessLog() : null;
        HostFiles files = new HostFiles(Path.of("/"), log);
        return new Host(files, new LiveSources(environment, files), log);
    }

    /**
     * A captured tree (§0.2 layout). A root that is not a directory is an IllegalArgumentException saying so; so is a
     * malformed stand-in file under {@code _doctor/}.
     */
    static Host replay(Path root) {
        if (!Files.exists(root)) throw new IllegalArgumentException("--root " + root + ": no such directory");
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("--root " + root + ": not a directory (give the folder that "
                    + "`jccl doctor --capture` wrote, unpacked if it was archived)");
        }
        HostFiles files = new HostFiles(root, null);
        return new Host(files, new CapturedSources(files), null);
    }

    boolean isLive() {
        return sources instanceof LiveSources;
    }

    Map<String, String> env() {
        return sources.environment();
    }
}
