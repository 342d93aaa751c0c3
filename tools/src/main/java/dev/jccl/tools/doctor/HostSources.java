package dev.jccl.tools.doctor;

import java.util.List;
import java.util.Map;

/**
 * What the checks learn from something other than a file: the live host asks the JVM and the kernel
 * ({@link LiveSources}), a replay reads the stand-in files of §0.2 under {@code _doctor/} ({@link CapturedSources}).
 */
interface HostSources {
    /** The process environment (a capture holds only the variables the checks may need). */
    Map<String, String> environment();

    /** Network interfaces with their flags and addresses, in the order the system lists them. */
    List<NetInterface> interfaces();

    /** What opening {@code devicePath} read-write gives. */
    DeviceAccess openDevice(String devicePath);

    /** Size of /dev/shm. */
    ShmCapacity shmCapacity();

    /** CPU architecture when no file says it ({@code os.arch} live), or null. */
    String fallbackArch();
}
