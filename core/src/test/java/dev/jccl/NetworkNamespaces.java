package dev.jccl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Pretend hosts on one machine: N network namespaces, each with one veth interface {@code jv<i>} at 10.77.0.(i+1)/24,
 * whose other ends sit on a bridge in a further "switch" namespace. Ranks started with {@link #command} run inside host
 * i and see only its lo and its veth; nothing here touches the machine's own interfaces or addresses. Needs root (or
 * CAP_NET_ADMIN) and the bridge and veth drivers; where they are missing, {@link #create} skips the calling test with a
 * message that says so.
 */
public final class NetworkNamespaces implements AutoCloseable {
    private final String prefix;
    private final int hosts;
    private final List<String> created = new ArrayList<>();

    private NetworkNamespaces(String prefix, int hosts) {
        this.prefix = prefix;
        this.hosts = hosts;
    }

    /** Makes {@code hosts} namespaces joined by a bridge, or skips the test where that cannot be done here. */
    public static NetworkNamespaces create(int hosts) {
        String prefix = "jccl-t" + ProcessHandle.current().pid() % 100000 + "-"
                + ThreadLocalRandom.current().nextInt(1000);
        NetworkNamespaces n = new NetworkNamespaces(prefix, hosts);
        try {
            n.build();
            return n;
        } catch (IOException | RuntimeException e) {
            n.close();
            Assumptions.abort(
                    "network namespaces cannot be made here (needs root or CAP_NET_ADMIN, iproute2, veth and bridge): "
                            + e.getMessage());
            throw new AssertionError("unreachable");
        }
    }

    private void build() throws IOException {
        String sw = prefix + "-sw";
        ip("netns", "add", sw);
        created.add(sw);
        ip("-n", sw, "link", "add", "br0", "type", "bridge");
        ip("-n", sw, "link", "set", "br0", "up");
        for (int i = 0; i < hosts; i++) {
            String ns = namespace(i);
            ip("netns", "add", ns);
            created.add(ns);
            // Created straight inside the namespaces, so no name is ever used in the machine's own.
            ip("link", "add", iface(i), "netns", ns, "type", "veth", "peer", "name", "sw" + i, "netns", sw);
            ip("-n", sw, "link", "set", "sw" + i, "master", "br0");
            ip("-n", sw, "link", "set", "sw" + i, "up");
            run(List.of("ip", "netns", "exec", ns, "sh", "-c", "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6"));
            ip("-n", ns, "addr", "add", address(i) + "/24", "dev", iface(i));
            ip("-n", ns, "link", "set", iface(i), "up");
            ip("-n", ns, "link", "set", "lo", "up");
        }
    }

    public int hosts() {
        return hosts;
    }

    public String namespace(int host) {
        return prefix + "-h" + host;
    }

    /** The veth inside host {@code host}; JCCL_SOCKET_IFNAME=jv picks it there. */
    public static String iface(int host) {
        return "jv" + host;
    }

    public static String address(int host) {
        return "10.77.0." + (host + 1);
    }

    /** {@code command} as run inside host {@code host}. */
    public List<String> command(int host, List<String> command) {
        List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        out.addAll(command);
        return out;
    }

    /** Takes host {@code host}'s veth down, as a pulled cable would: no FIN, no RST, packets just stop. */
    public void cutLink(int host) throws IOException {
        ip("-n", namespace(host), "link", "set", iface(host), "down");
    }

    /**
     * Takes host {@code host}'s port off the switch, as a failed switch port or a wrong VLAN would: its interface stays
     * up (ranks there can still bind to it), but nothing it sends reaches the other hosts.
     */
    public void cutAtSwitch(int host) throws IOException {
        ip("-n", prefix + "-sw", "link", "set", "sw" + host, "nomaster");
    }

    @Override
    public void close() {
        for (String ns : created.reversed()) {
            try {
                ip("netns", "del", ns);
            } catch (IOException | RuntimeException e) {
                System.err.println("could not delete network namespace " + ns + ": " + e.getMessage());
            }
        }
        created.clear();
    }

    private static void ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("ip");
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " did not finish in 20 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): " + out);
        }
    }
}
