package dev.jccl.tools.doctor;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The live host's non-file sources: the environment the command was given, the JVM's view of the network interfaces,
 * open(2) of device nodes, statvfs of /dev/shm. Everything it answers is remembered, so that {@link Capture} can write
 * the stand-in files a replay reads.
 */
final class LiveSources implements HostSources {
    /** IFF_UP in /sys/class/net/*&#47;flags. */
    private static final int IFF_UP = 0x1;

    private final Map<String, String> environment;
    private final HostFiles files;
    private final Map<String, DeviceAccess> devicesOpened = new LinkedHashMap<>();
    private List<NetInterface> interfaces;

    LiveSources(Map<String, String> environment, HostFiles files) {
        this.environment = Map.copyOf(environment);
        this.files = files;
    }

    @Override
    public Map<String, String> environment() {
        return environment;
    }

    @Override
    public List<NetInterface> interfaces() {
        if (interfaces == null) interfaces = listInterfaces();
        return interfaces;
    }

    /**
     * Java's list holds the interfaces with an address; /sys/class/net adds those without one. Java's isUp() is IFF_UP
     * and IFF_RUNNING together, so IFF_UP alone comes from sysfs.
     */
    private List<NetInterface> listInterfaces() {
        List<NetInterface> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                boolean running = nif.isUp();
                boolean up = running || sysfsUp(nif.getName());
                List<NetInterface.Address> addresses = new ArrayList<>();
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    addresses.add(new NetInterface.Address(withoutScope(ia.getAddress()), ia.getNetworkPrefixLength()));
                }
                out.add(new NetInterface(nif.getName(), up, running, nif.isLoopback(), addresses));
                seen.add(nif.getName());
            }
        } catch (SocketException e) {
            // No interface list: the checks then see none and say so.
        }
        for (String name : files.list("/sys/class/net")) {
            if (seen.contains(name)) continue;
            String operstate = files.read("/sys/class/net/" + name + "/operstate");
            boolean running = "up".equals(operstate) || "unknown".equals(operstate);
            out.add(new NetInterface(name, sysfsUp(name), running && sysfsUp(name), name.equals("lo"), List.of()));
        }
        return out;
    }

    private boolean sysfsUp(String name) {
        String flags = files.read("/sys/class/net/" + name + "/flags");
        if (flags == null) return false;
        try {
            return (Integer.decode(flags) & IFF_UP) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static InetAddress withoutScope(InetAddress a) {
        if (!(a instanceof Inet6Address)) return a;
        try {
            return InetAddress.getByAddress(a.getAddress());
        } catch (UnknownHostException e) {
            return a;
        }
    }

    /** open(O_RDWR), closed at once: the only way to see what a container's device cgroup allows. */
    @Override
    public DeviceAccess openDevice(String devicePath) {
        Path p = Path.of(devicePath);
        DeviceAccess access;
        if (!Files.exists(p)) {
            access = DeviceAccess.ABSENT;
        } else if (opens(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            access = DeviceAccess.RW;
        } else if (opens(p, StandardOpenOption.READ)) {
            access = DeviceAccess.RO;
        } else {
            access = DeviceAccess.NONE;
        }
        devicesOpened.put(devicePath, access);
        return access;
    }

    private static boolean opens(Path p, StandardOpenOption... options) {
        try {
            FileChannel.open(p, options).close();
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public ShmCapacity shmCapacity() {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm)) return ShmCapacity.unknown("/dev/shm does not exist");
        try {
            return new ShmCapacity(Files.getFileStore(shm).getTotalSpace(), "statvfs(/dev/shm)", "total size");
        } catch (IOException e) {
            return ShmCapacity.unknown("statvfs(/dev/shm) failed: " + e.getMessage());
        }
    }

    @Override
    public String fallbackArch() {
        return System.getProperty("os.arch");
    }

    /** Device nodes opened so far and what that gave: the lines of {@code _doctor/devperm}. */
    Map<String, DeviceAccess> devicesOpened() {
        return Collections.unmodifiableMap(devicesOpened);
    }
}
