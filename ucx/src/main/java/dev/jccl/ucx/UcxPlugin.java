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
import java.util.List;
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
        // "try" asks for it and falls back; UCX_IB_PCI_RELAXED_ORDERING set by the user wins.
        boolean relaxed = System.getenv("UCX_IB_PCI_RELAXED_ORDERING") == null;
        boolean eager = eagerOnly(tcpOnly, System.getenv("UCX_RNDV_THRESH"));
        UcpContext context;
        try {
            context = newContext(devices, relaxed, eager);
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            if (!relaxed) {
                throw new NetPluginException(
                        "UCX " + version + " could not start (" + e + "); " + UcxLibrary.INSTALL, e);
            }
            // a UCX built without its InfiniBand component does not know the variable
            try {
                context = newContext(devices, false, eager);
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
                    + (eager ? ", eager messages (no RDMA port: UCX runs over tcp)" : "");
            return new UcxTransport(
                    context, worker, description, devices.isEmpty() ? "all" : devices, settings.chunkBytes(), log);
        } catch (RuntimeException e) {
            context.close();
            throw new NetPluginException("UCX " + version + " could not make a worker: " + e.getMessage(), e);
        }
    }

    private static UcpContext newContext(String devices, boolean relaxedOrdering, boolean eager) {
        UcpParams params =
                new UcpParams().requestTagFeature().requestWakeupFeature().setMtWorkersShared(true);
        if (!devices.isEmpty()) params.setConfig("NET_DEVICES", devices);
        if (relaxedOrdering) params.setConfig("IB_PCI_RELAXED_ORDERING", "try");
        if (eager) params.setConfig("RNDV_THRESH", "inf");
        return new UcpContext(params);
    }

    /**
     * Whether every message goes eagerly, without UCX's rendezvous: where Jccl chose the devices and found no RDMA port
     * among them, so that UCX moves the bytes over its tcp transport, and {@code UCX_RNDV_THRESH} is not set
     * ({@code userThreshold}). Over tcp the rendezvous has no zero copy to offer and costs a round trip per piece: a
     * 2-rank 64 MiB AllReduce over loopback (JCCL_SHM_DISABLE=1) took 29-63 ms eager against 37-78 with the rendezvous,
     * and 1 MiB 365-980 µs against 489-786 (interleaved, 2026-11-28). With an RDMA port the rendezvous is the zero-copy
     * path, and stays.
     */
    static boolean eagerOnly(boolean tcpOnly, String userThreshold) {
        return tcpOnly && (userThreshold == null || userThreshold.isBlank());
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
