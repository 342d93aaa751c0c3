package dev.jccl.ucx;

import dev.jccl.debug.Log;
import dev.jccl.topology.IbHcaFilter;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPluginException;
import dev.jccl.transport.NetTransport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * {@code JCCL_NET=UCX}: Jccl's frames over UCX, through JUCX. Which devices UCX may use is decided here, unless
 * {@code UCX_NET_DEVICES} is set: the RDMA ports that {@code JCCL_IB_HCA} / {@code NCCL_IB_HCA} name (NCCL's syntax:
 * {@code mlx5_0:1,mlx5_1}; every port when unset), plus the network interface Jccl's sockets would use, so that where
 * there is no RDMA, UCX's tcp transport stays on the interface the user chose (loopback in the tests).
 */
public final class UcxPlugin implements NetPlugin {
    private static final Path INFINIBAND = Path.of("/sys/class/infiniband");

    /** The tcp transport's largest eager fragment where Jccl sets it (see {@link #overTcp}). */
    static final String TCP_FRAGMENT = "512k";

    /** A UCX setting Jccl makes over tcp: the user's variable that takes its place, UCX's key, and Jccl's value. */
    private record TcpSetting(String variable, String key, String value) {}

    /** What {@link #overTcp} may set, in the order the debug line names them. */
    private static final List<TcpSetting> TCP_SETTINGS = List.of(
            new TcpSetting("UCX_RNDV_THRESH", "RNDV_THRESH", "inf"),
            new TcpSetting("UCX_TCP_RX_SEG_SIZE", "RX_SEG_SIZE", TCP_FRAGMENT));

    @Override
    public String name() {
        return "UCX";
    }

    @Override
    public String probe() throws NetPluginException {
        UcxLibrary.Version v = UcxLibrary.version();
        List<String> rdma = rdmaPorts(null);
        return "UCX " + v + " (" + UcxLibrary.LIBRARY + "), JUCX 1.12.1, "
                + (rdma.isEmpty() ? "no RDMA devices (UCX would use tcp)" : "RDMA ports " + String.join(",", rdma));
    }

    @Override
    public NetTransport open(Settings settings, Log log) throws NetPluginException {
        UcxLibrary.Version version = UcxLibrary.version();
        String devices = System.getenv("UCX_NET_DEVICES");
        String devicesSource = "UCX_NET_DEVICES";
        boolean tcpOnly = false;
        if (devices == null || devices.isBlank()) {
            List<String> rdma = rdmaPorts(settings.ibHca());
            tcpOnly = rdma.isEmpty();
            List<String> chosen = new ArrayList<>(rdma);
            if (settings.interfaceName() != null) chosen.add(settings.interfaceName());
            devices = String.join(",", chosen);
            devicesSource =
                    settings.ibHca() != null ? "JCCL_IB_HCA + socket interface" : "RDMA ports + socket interface";
        }
        // Memory registered with PCIe relaxed ordering where the device allows it: without it, RDMA
        // to and from memory behind an SR-IOV function in a VM (and GPU memory) is much slower.
        // "try" asks for it and falls back; UCX_IB_PCI_RELAXED_ORDERING set by the user wins. Without an RDMA port
        // no transport knows the key, and UCX's debug output would call it an invalid setting.
        boolean relaxed = !tcpOnly && System.getenv("UCX_IB_PCI_RELAXED_ORDERING") == null;
        Map<String, String> overTcp = overTcp(tcpOnly, System::getenv);
        UcpContext context;
        try {
            context = newContext(devices, relaxed, overTcp);
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            if (!relaxed) {
                throw new NetPluginException(
                        "UCX " + version + " could not start (" + e + "); " + UcxLibrary.INSTALL, e);
            }
            // a UCX built without its InfiniBand component does not know the variable
            try {
                context = newContext(devices, false, overTcp);
                relaxed = false;
            } catch (UnsatisfiedLinkError | RuntimeException e2) {
                throw new NetPluginException(
                        "UCX " + version + " could not start (" + e2 + "); " + UcxLibrary.INSTALL, e2);
            }
        }
        try {
            UcpWorker worker = context.newWorker(new UcpWorkerParams().requestThreadSafety());
            String description = "UCX " + version + ", devices " + (devices.isEmpty() ? "(all)" : devices) + " ("
                    + devicesSource + ")" + (relaxed ? ", PCIe relaxed ordering where supported" : "")
                    + (overTcp.isEmpty() ? "" : ", no RDMA port: UCX runs over tcp with " + describe(overTcp));
            return new UcxTransport(
                    context, worker, description, devices.isEmpty() ? "all" : devices, settings.chunkBytes(), log);
        } catch (RuntimeException e) {
            context.close();
            throw new NetPluginException("UCX " + version + " could not make a worker: " + e.getMessage(), e);
        }
    }

    private static UcpContext newContext(String devices, boolean relaxedOrdering, Map<String, String> overTcp) {
        UcpParams params =
                new UcpParams().requestTagFeature().requestWakeupFeature().setMtWorkersShared(true);
        if (!devices.isEmpty()) params.setConfig("NET_DEVICES", devices);
        if (relaxedOrdering) params.setConfig("IB_PCI_RELAXED_ORDERING", "try");
        overTcp.forEach(params::setConfig);
        return new UcpContext(params);
    }

    /**
     * UCX settings for where Jccl chose the devices and found no RDMA port among them, so that UCX moves the bytes over
     * its tcp transport; empty elsewhere ({@code tcpOnly} false). Each is left out where the user set its variable
     * ({@code env} reads the environment).
     *
     * <ul>
     *   <li>{@code RNDV_THRESH=inf}: every message eagerly. Over tcp the rendezvous has no zero copy to offer and costs
     *       a round trip per piece: a 2-rank 64 MiB AllReduce over loopback (JCCL_SHM_DISABLE=1) took 29-63 ms eager
     *       against 37-78 with the rendezvous, and 1 MiB 365-980 µs against 489-786 (interleaved, 2026-11-28). With an
     *       RDMA port the rendezvous is the zero-copy path, and stays.
     *   <li>{@code RX_SEG_SIZE=512k} (the tcp transport's {@code UCX_TCP_RX_SEG_SIZE}; UCX matches a key it does not
     *       know itself against each transport's own names, so the {@code TCP_} prefix must go: with it UCX warns
     *       "invalid configuration" and ignores it): the largest fragment an eager message is cut into, 64 KiB by
     *       default. Jccl's pieces are 1 MiB, so each went as 16 fragments, each a system call on either side and a
     *       copy out of UCX's receive buffer. With 512 KiB fragments the 64 MiB AllReduce took 25.0-26.6 ms in the VM's
     *       calm rounds against 29.8-36.3 at 64 KiB (Jccl's sockets 23.7-29.8; 6 interleaved rounds, 2026-11-28). UCX
     *       keeps one receive buffer of twice the size per peer that is sending.
     * </ul>
     */
    static Map<String, String> overTcp(boolean tcpOnly, UnaryOperator<String> env) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (!tcpOnly) return settings;
        for (TcpSetting t : TCP_SETTINGS) {
            String users = env.apply(t.variable());
            if (users == null || users.isBlank()) settings.put(t.key(), t.value());
        }
        return settings;
    }

    /**
     * What {@link #overTcp} chose, for the debug line, by the variables a user would set: {@code UCX_RNDV_THRESH=inf,
     * UCX_TCP_RX_SEG_SIZE=512k}.
     */
    static String describe(Map<String, String> overTcp) {
        List<String> out = new ArrayList<>();
        for (TcpSetting t : TCP_SETTINGS) {
            if (overTcp.containsKey(t.key())) out.add(t.variable() + "=" + overTcp.get(t.key()));
        }
        return String.join(", ", out);
    }

    /**
     * RDMA ports as UCX names them ({@code mlx5_0:1}): those {@code ibHca} selects in NCCL's syntax ({@code =} exact
     * names, {@code ^} exclusions, a name without a port means every port), or every port under /sys/class/infiniband
     * when it is null.
     */
    static List<String> rdmaPorts(String ibHca) {
        List<String> all = new ArrayList<>();
        if (Files.isDirectory(INFINIBAND)) {
            try (Stream<Path> devices = Files.list(INFINIBAND)) {
                for (Path d : devices.sorted().toList()) {
                    try (Stream<Path> ports = Files.list(d.resolve("ports"))) {
                        for (Path port : ports.sorted().toList()) all.add(d.getFileName() + ":" + port.getFileName());
                    } catch (IOException ignored) {
                        // a device without ports is of no use
                    }
                }
            } catch (IOException ignored) {
                // no RDMA here
            }
        }
        return select(all, ibHca);
    }

    /** NCCL_IB_HCA's filter (see {@link IbHcaFilter}) applied to {@code ports} ({@code device:port}). */
    static List<String> select(List<String> ports, String ibHca) {
        if (ibHca == null || ibHca.isBlank()) return ports;
        IbHcaFilter filter = IbHcaFilter.parse(ibHca);
        List<String> out = new ArrayList<>();
        for (String port : ports) {
            int colon = port.indexOf(':');
            int number;
            try {
                number = Integer.parseInt(port.substring(colon + 1));
            } catch (NumberFormatException e) {
                continue; // not a numbered port
            }
            if (filter.selects(port.substring(0, colon), number)) out.add(port);
        }
        return out;
    }
}
