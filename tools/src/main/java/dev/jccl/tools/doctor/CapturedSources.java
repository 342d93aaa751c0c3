package dev.jccl.tools.doctor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A replayed host's non-file sources, read from the stand-in files under {@code ROOT/_doctor/} (see
 * docs/doctor-checks.md §0.2): {@code env}, {@code ifaddrs}, {@code devperm}; /dev/shm's size comes from the
 * {@code size=} option in {@code ROOT/proc/self/mountinfo}. A missing stand-in file means "nothing": no variables, no
 * interfaces, device nodes openable where they exist.
 */
final class CapturedSources implements HostSources {
    static final String DIR = "_doctor";
    static final String ENV = DIR + "/env";
    static final String IFADDRS = DIR + "/ifaddrs";
    static final String DEVPERM = DIR + "/devperm";

    private final HostFiles files;
    private final Map<String, String> environment;
    private final List<NetInterface> interfaces;
    private final Map<String, DeviceAccess> devperm;

    /** Reads the stand-in files now; a malformed one is an IllegalArgumentException that names it. */
    CapturedSources(HostFiles files) {
        this.files = files;
        this.environment = readEnvironment(files.root().resolve(ENV));
        this.interfaces = NetInterface.parse(readLines(files.root().resolve(IFADDRS)));
        this.devperm = readDevperm(files.root().resolve(DEVPERM));
    }

    @Override
    public Map<String, String> environment() {
        return environment;
    }

    @Override
    public List<NetInterface> interfaces() {
        return interfaces;
    }

    @Override
    public DeviceAccess openDevice(String devicePath) {
        DeviceAccess listed = devperm.get(devicePath);
        if (listed != null) return listed;
        return files.exists(devicePath) ? DeviceAccess.RW : DeviceAccess.ABSENT;
    }

    /** The visible /dev/shm mount's {@code size=}; tmpfs without one is half of MemTotal, as the kernel does. */
    @Override
    public ShmCapacity shmCapacity() {
        MountInfo.Mount m = MountInfo.visibleAt(files, "/dev/shm");
        if (m == null) return ShmCapacity.unknown("no /dev/shm line in " + MountInfo.PATH);
        long memTotal = memTotalBytes(files);
        String size = m.option("size");
        if (size == null) {
            if (!m.fsType().equals("tmpfs") || memTotal < 0) {
                return ShmCapacity.unknown("no size= option on /dev/shm (" + m.fsType() + ")");
            }
            return new ShmCapacity(memTotal / 2, MountInfo.PATH, "tmpfs without size=: half of MemTotal");
        }
        long bytes = MountInfo.sizeBytes(size, memTotal);
        return bytes < 0
                ? ShmCapacity.unknown("size=" + size + " cannot be read")
                : new ShmCapacity(bytes, MountInfo.PATH, "size=" + size);
    }

    @Override
    public String fallbackArch() {
        return null;
    }

    static long memTotalBytes(HostFiles files) {
        String line = files.lineStartingWith("/proc/meminfo", "MemTotal:");
        if (line == null) return -1;
        try {
            return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Map<String, String> readEnvironment(Path file) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : readLines(file)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException(ENV + ": '" + line + "' is not KEY=VALUE");
            env.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return env;
    }

    private static Map<String, DeviceAccess> readDevperm(Path file) {
        Map<String, DeviceAccess> out = new LinkedHashMap<>();
        for (String line : readLines(file)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            String[] f = l.split("\\s+");
            if (f.length != 2) throw new IllegalArgumentException(DEVPERM + ": '" + l + "' is not 'path rw|ro|none'");
            out.put(f[0], DeviceAccess.ofWord(f[1]));
        }
        return out;
    }

    private static List<String> readLines(Path file) {
        if (!Files.isRegularFile(file)) return List.of();
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
