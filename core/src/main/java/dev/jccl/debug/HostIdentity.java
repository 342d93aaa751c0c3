package dev.jccl.debug;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Which host this process is on, for deciding which ranks share memory. Like NCCL: the host name plus
 * {@code /proc/sys/kernel/random/boot_id}, so two containers with the same host name on different machines still
 * differ; {@code JCCL_HOSTID} overrides it (tests use it to make network namespaces on one machine count as different
 * hosts).
 */
public final class HostIdentity {
    private HostIdentity() {}

    public static String hostName() {
        String env = System.getenv("HOSTNAME");
        try {
            String h = InetAddress.getLocalHost().getHostName();
            if (h != null && !h.isBlank()) return h;
        } catch (IOException e) {
            // fall through: a container without a resolvable host name is common
        }
        return env != null ? env : "localhost";
    }

    /** The host id: {@code override} if given, else a short hash of host name + boot id. */
    public static String hostId(String override) {
        if (override != null && !override.isBlank()) return override;
        String bootId = "";
        try {
            bootId =
                    Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
        } catch (IOException | SecurityException e) {
            // not Linux, or /proc not mounted: host name alone
        }
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest((hostName() + "|" + bootId).getBytes(StandardCharsets.UTF_8));
            return hostName() + "-" + HexFormat.of().formatHex(h, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is required of every JDK", e);
        }
    }
}
