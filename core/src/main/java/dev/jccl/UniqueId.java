package dev.jccl;

import dev.jccl.topology.InterfaceSelector;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.channels.ServerSocketChannel;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Identifies one communicator before it exists: the address where rank 0 will serve the rendezvous, and a 128-bit
 * secret every rank must prove it knows. Create it once (usually on rank 0 or in the launcher), hand its
 * {@link #toString()} to every rank, and {@link #parse} it there.
 *
 * <p>The text form is {@code jccl1:<host>:<port>:<32 hex digits>}; treat it like a password.
 */
public final class UniqueId {
    private static final String PREFIX = "jccl1:";
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Listeners bound by {@link #create} in this process, so that rank 0 here takes the port over without a race. */
    private static final Map<String, ServerSocketChannel> RESERVED = new ConcurrentHashMap<>();

    private final InetSocketAddress root;
    private final byte[] secret;

    private UniqueId(InetSocketAddress root, byte[] secret) {
        this.root = root;
        this.secret = secret.clone();
    }

    /** A new id whose root listens on the interface {@link Config#fromEnvironment()} selects. */
    public static UniqueId create() {
        return create(Config.fromEnvironment());
    }

    /**
     * A new id on the interface {@code config} selects. The port is bound now and held in this process until rank 0 of
     * the communicator takes it over (or the process exits).
     */
    public static UniqueId create(Config config) {
        InetAddress address = InterfaceSelector.select(config.socketIfname()).address();
        try {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(address, 0), 1024);
            InetSocketAddress bound = (InetSocketAddress) server.getLocalAddress();
            byte[] secret = new byte[16];
            RANDOM.nextBytes(secret);
            UniqueId id = new UniqueId(bound, secret);
            RESERVED.put(id.toString(), server);
            return id;
        } catch (IOException e) {
            throw new JcclException(
                    "cannot open a rendezvous port on " + address.getHostAddress() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A new id for a rank 0 that runs in another process (a launcher's child, a test's worker JVM), which binds the
     * port itself some time later. The port comes from below the kernel's ephemeral range
     * ({@code /proc/sys/net/ipv4/ip_local_port_range}), so that no outgoing connection and no listener on port 0 in
     * between can take it: a port from {@link #create} is ephemeral, and a loaded host handed one such port to another
     * process's connection in the second it stood free, so rank 0 failed with "Address already in use". The port is
     * checked free here and released. Where the ephemeral range starts too low to leave room, this falls back to an
     * ephemeral port.
     */
    public static UniqueId createForAnotherProcess(Config config) {
        InetAddress address = InterfaceSelector.select(config.socketIfname()).address();
        byte[] secret = new byte[16];
        RANDOM.nextBytes(secret);
        int ephemeralStart = EphemeralPorts.firstEphemeralPort();
        int low = EphemeralPorts.FIRST_CANDIDATE;
        for (int attempt = 0; attempt < 64 && ephemeralStart - low >= 1000; attempt++) {
            int port = low + RANDOM.nextInt(ephemeralStart - low);
            if (EphemeralPorts.isFree(address, port)) {
                return new UniqueId(new InetSocketAddress(address, port), secret);
            }
        }
        UniqueId id = create(config);
        ServerSocketChannel reserved = id.takeReservedListener();
        try {
            reserved.close();
        } catch (IOException e) {
            throw new JcclException("cannot release the rendezvous port " + id.root + ": " + e.getMessage(), e);
        }
        return id;
    }

    /** An id for a root address chosen by someone else (a launcher's {@code JCCL_ROOT}), with a given secret. */
    public static UniqueId of(InetSocketAddress root, byte[] secret) {
        if (secret.length != 16) throw new IllegalArgumentException("secret must be 16 bytes, got " + secret.length);
        return new UniqueId(root, secret);
    }

    /** Parses the text form; the error says what part is wrong. */
    public static UniqueId parse(String text) {
        if (text == null || !text.startsWith(PREFIX)) {
            throw new IllegalArgumentException(
                    "not a Jccl unique id (expected jccl1:<host>:<port>:<32 hex digits>): " + redact(text));
        }
        String rest = text.substring(PREFIX.length());
        int lastColon = rest.lastIndexOf(':');
        int portColon = lastColon < 0 ? -1 : rest.lastIndexOf(':', lastColon - 1);
        if (portColon < 0) throw new IllegalArgumentException("unique id lacks host, port or secret: " + redact(text));
        String host = rest.substring(0, portColon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(rest.substring(portColon + 1, lastColon));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("unique id has a bad port: " + redact(text));
        }
        if (port < 1 || port > 65535) throw new IllegalArgumentException("unique id port out of range: " + port);
        String hex = rest.substring(lastColon + 1);
        if (hex.length() != 32) {
            throw new IllegalArgumentException("unique id secret must be 32 hex digits, got " + hex.length());
        }
        byte[] secret;
        try {
            secret = HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unique id secret is not hex");
        }
        try {
            return new UniqueId(new InetSocketAddress(InetAddress.getByName(host), port), secret);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unique id host '" + host + "' does not resolve: " + e.getMessage());
        }
    }

    private static String redact(String text) {
        if (text == null) return "null";
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    /** Where rank 0 serves the rendezvous. */
    public InetSocketAddress rootAddress() {
        return root;
    }

    /** A copy of the 128-bit secret. */
    public byte[] secret() {
        return secret.clone();
    }

    /**
     * The listener {@link #create} bound for this id in this process, handed over once (null if the id was made
     * elsewhere or already taken): rank 0 serves on it instead of binding anew.
     */
    public ServerSocketChannel takeReservedListener() {
        return RESERVED.remove(toString());
    }

    @Override
    public String toString() {
        String host = root.getAddress().getHostAddress();
        if (host.contains(":")) host = "[" + host + "]";
        return PREFIX + host + ":" + root.getPort() + ":" + HexFormat.of().formatHex(secret);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UniqueId u && u.root.equals(root) && Arrays.equals(u.secret, secret);
    }

    @Override
    public int hashCode() {
        return root.hashCode() * 31 + Arrays.hashCode(secret);
    }
}
