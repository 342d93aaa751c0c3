package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.cuda.CudaStatus;
import dev.jccl.reduce.ReduceKernels;
import dev.jccl.topology.InterfaceSelector;
import dev.jccl.topology.InterfaceSelector.Candidate;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPluginException;
import dev.jccl.transport.NetPlugins;
import dev.jccl.transport.shm.ShmTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code jccl info} reports about this host and environment, gathered once and rendered as text or JSON by
 * {@link InfoCommand}.
 *
 * @param ifnameFilter the interface filter in effect, or null for automatic selection
 * @param ifnameSource where the filter came from ({@code default} or a variable's name)
 * @param selected the interface a rank here would listen on, or null if none matches
 * @param selectionError why none was selected, or null
 * @param config rows of {@link Config#describe()}: name, value, source
 * @param warnings unknown {@code JCCL_*} variables, each with the closest real name
 * @param cpus the CPUs this process may use (affinity mask, CPU quota), which decide how ranks wait
 * @param waiting how ranks of this host wait for each other, as {@code JCCL_OVERSUBSCRIBED} and {@code cpus} say
 * @param kernels which reduce kernels this JVM runs (the Vector API's or the scalar ones)
 */
record HostReport(
        String jcclVersion,
        String javaVersion,
        String javaVendor,
        String javaHome,
        String hostName,
        String ifnameFilter,
        String ifnameSource,
        Candidate selected,
        String selectionError,
        List<Candidate> candidates,
        List<TransportStatus> transports,
        List<String[]> config,
        List<String> warnings,
        int cpus,
        String waiting,
        String kernels) {

    /** One transport and whether this process could use it. */
    record TransportStatus(String name, boolean available, String detail) {}

    /** Fully qualified name of the ucx module's provider; present only when that module is on the classpath. */

    /** Gathers the report; a malformed variable in {@code env} is an IllegalArgumentException naming it. */
    static HostReport gather(Map<String, String> env) {
        Config config = Config.fromEnvironment(env);
        List<Candidate> candidates = InterfaceSelector.candidates();
        Candidate selected = null;
        String selectionError = null;
        try {
            selected = InterfaceSelector.select(config.socketIfname(), candidates);
        } catch (IllegalArgumentException | IllegalStateException e) {
            selectionError = e.getMessage();
        }
        List<String[]> rows = config.describe();
        String ifnameSource = "default";
        for (String[] row : rows) {
            if (row[0].equals("socketIfname")) ifnameSource = row[2];
        }
        List<String> warnings = new ArrayList<>();
        for (String w : Config.unknownVariables(env)) warnings.add("unknown variable " + w);
        int cpus = Runtime.getRuntime().availableProcessors();
        return new HostReport(
                Jccl.version(),
                Runtime.version().toString(),
                System.getProperty("java.vendor"),
                System.getProperty("java.home"),
                readHostName(),
                config.socketIfname(),
                ifnameSource,
                selected,
                selectionError,
                candidates,
                probeTransports(config, rows, env),
                rows,
                warnings,
                cpus,
                waiting(config.oversubscription(), cpus),
                describeKernels());
    }

    private static String waiting(Config.Oversubscription setting, int cpus) {
        return switch (setting) {
            case YES -> "ranks share CPUs (JCCL_OVERSUBSCRIBED=1): waiting ranks yield";
            case NO -> "a CPU per rank (JCCL_OVERSUBSCRIBED=0): waiting ranks spin";
            case AUTO ->
                "up to " + cpus + " ranks of a host spin while they wait; more "
                        + "share the CPUs and yield (JCCL_OVERSUBSCRIBED=auto)";
        };
    }

    private static String describeKernels() {
        String here = ReduceKernels.describe();
        return ReduceKernels.vectorKernels() ? here : here + "; jccl perf runs its ranks with the Vector API";
    }

    static List<TransportStatus> probeTransports(Config config, List<String[]> rows) {
        return probeTransports(config, rows, System.getenv());
    }

    /** The transports, and GPU buffers ({@code cuda}: CUDA and NCCL found as {@code env} says). */
    static List<TransportStatus> probeTransports(Config config, List<String[]> rows, Map<String, String> env) {
        String disabledBy = "builder";
        for (String[] row : rows) {
            if (row[0].equals("shmDisable")) disabledBy = row[2] + "=1";
        }
        return List.of(
                new TransportStatus("tcp", true, "available"),
                new TransportStatus(
                        "shm",
                        !config.shmDisable() && ShmTransport.usableHere(),
                        ShmTransport.describeAvailability(config.shmDisable(), disabledBy)),
                ucx(config),
                cuda(env));
    }

    /** Whether GPU buffers can be used here, and which path they would take (NCCL or staged) and why. */
    static TransportStatus cuda(Map<String, String> env) {
        try {
            CudaStatus s = CudaStatus.probe(env);
            return new TransportStatus("cuda", s.available(), s.detail());
        } catch (LinkageError e) {
            return new TransportStatus("cuda", false, "the CUDA module failed to load: " + e);
        }
    }

    /** Whether the UCX plugin is here and can run, what it would use, and whether JCCL_NET selects it. */
    static TransportStatus ucx(Config config) {
        java.util.Optional<NetPlugin> plugin = NetPlugins.named("UCX");
        if (plugin.isEmpty()) return new TransportStatus("ucx", false, "jccl-ucx module not on the class path");
        try {
            String what = plugin.get().probe();
            String net = config.net() == null ? "" : config.net().trim();
            boolean selected = net.equalsIgnoreCase("UCX") || net.equalsIgnoreCase("IB");
            return new TransportStatus(
                    "ucx",
                    true,
                    what
                            + (selected
                                    ? "; selected by JCCL_NET=" + net + " between hosts"
                                    : "; not selected (TCP is the default between hosts; JCCL_NET=UCX selects it)"));
        } catch (NetPluginException e) {
            return new TransportStatus("ucx", false, e.getMessage());
        } catch (LinkageError e) {
            return new TransportStatus("ucx", false, "the UCX plugin failed to load: " + e);
        }
    }

    /** The kernel's host name; unlike InetAddress.getLocalHost() it needs no name resolution. */
    static String readHostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException | UnsupportedOperationException e) {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (IOException e2) {
                return "(unknown: " + e2.getMessage() + ")";
            }
        }
    }
}
