package dev.jccl;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the kernel's ephemeral ports start, and whether a port below them is free: for {@link UniqueId}. */
final class EphemeralPorts {
    /** The lowest port {@link UniqueId#createForAnotherProcess} picks: above the common services' ports. */
    static final int FIRST_CANDIDATE = 20000;
    /** Linux's default start of the range, used where the kernel's setting cannot be read. */
    private static final int LINUX_DEFAULT_START = 32768;

    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private EphemeralPorts() {}

    /** The first port the kernel hands out for port 0 binds and outgoing connections. */
    static int firstEphemeralPort() {
        try {
            // Not Files.readString: on JDK 25 it returned "3" for this procfs file, one character of "32768\t60999".
            return parseRangeStart(String.join(" ", Files.readAllLines(RANGE)));
        } catch (IOException | RuntimeException e) {
            return LINUX_DEFAULT_START;
        }
    }

    /** The first number of an {@code ip_local_port_range} text ("32768\t60999"). */
    static int parseRangeStart(String text) {
        String[] parts = text.trim().split("\\s+");
        int start = Integer.parseInt(parts[0]);
        if (start < 1 || start > 65535) throw new IllegalArgumentException("port out of range: " + start);
        return start;
    }

    /** True if a listener can bind {@code port} on {@code address} now (it is released at once). */
    static boolean isFree(InetAddress address, int port) {
        try (ServerSocketChannel probe = ServerSocketChannel.open()) {
            probe.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            probe.bind(new InetSocketAddress(address, port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
