package dev.jccl.tools.doctor;

import dev.jccl.topology.IbHcaFilter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What many checks need to know about the host, read once (docs/doctor-checks.md §0.4): kernel, NVIDIA driver and GPUs,
 * PCI functions, RDMA devices and ports, NCCL copies, libraries, container / VM flags, capabilities, interfaces. Each
 * getter reads on first use, so a check that does not apply reads nothing it does not need (and a capture holds no more
 * than that).
 */
final class HostFacts {
    static final String NVIDIA_VENDOR = "0x10de";
    static final String MELLANOX_VENDOR = "0x15b3";
    /** CapEff bits (linux/capability.h). */
    static final int CAP_IPC_LOCK = 14;

    static final int CAP_SYS_NICE = 23;

    /** Where libraries are looked for, before LD_LIBRARY_PATH (§0.4, C3). */
    static final List<String> LIBRARY_DIRS = List.of(
            "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/local/lib");

    private static final Pattern BDF = Pattern.compile("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
    private static final Pattern LEADING_NUMBER = Pattern.compile("^(\\d+)");
    private static final Pattern DRIVER_VERSION = Pattern.compile("\\s(\\d+\\.\\d+(?:\\.\\d+)?)\\s");

    /** A GPU this process can see: an entry of /proc/driver/nvidia/gpus. */
    record Gpu(String busId, String model, String uuid, String minor) {}

    /** A PCI function from /sys/bus/pci/devices; {@code sysPath} is its real path under /sys/devices. */
    record PciFunction(String bdf, String sysPath, String vendor, String device, String pciClass, String driver) {}

    /** The loaded NVIDIA kernel module: the first line of /proc/driver/nvidia/version, parsed. */
    record NvidiaDriver(String versionLine, String version, boolean openFlavor, String moduleVersion) {
        String flavor() {
            return openFlavor ? "open" : "proprietary";
        }
    }

    /** An RDMA port from /sys/class/infiniband/DEV/ports/N. */
    record RdmaPort(
            String device,
            int number,
            String state,
            String physState,
            String linkLayer,
            String rate,
            String lid,
            String smLid) {
        String path() {
            return "/sys/class/infiniband/" + device + "/ports/" + number;
        }

        String label() {
            return device + ":" + number;
        }

        boolean active() {
            return state != null && state.startsWith("4");
        }

        boolean linkUp() {
            return physState != null && physState.startsWith("5");
        }

        boolean infiniBand() {
            return "InfiniBand".equals(linkLayer);
        }

        boolean ethernet() {
            return "Ethernet".equals(linkLayer);
        }
    }

    /**
     * An RDMA device from /sys/class/infiniband.
     *
     * @param pciPath real path of its PCI function, or null for a software device (rxe, siw)
     * @param driver the PCI function's kernel driver ({@code mlx5_core}), or null
     * @param physfn whether {@code device/physfn} exists: a VF whose PF this OS also sees
     */
    record RdmaDevice(
            String name,
            String pciPath,
            String bdf,
            String vendor,
            String deviceId,
            String hcaType,
            String driver,
            boolean physfn,
            List<RdmaPort> ports) {}

    /** One copy of NCCL found, with its version if the name tells it. */
    record NcclCopy(Version version, String source) {}

    /** libibverbs.so.1 and the rdma-core release its real file name encodes. */
    record Verbs(String path, String realName, Version rdmaCore) {}

    /** Container / Kubernetes / VM indicators (check context-runtime). */
    record Runtime(String container, boolean kubernetes, String mpiJobRole, boolean vm, List<Evidence> evidence) {
        boolean inContainer() {
            return container != null;
        }
    }

    private final Host host;
    private final HostFiles files;
    private final Map<String, Object> memo = new LinkedHashMap<>();

    HostFacts(Host host) {
        this.host = host;
        this.files = host.files();
    }

    /** The value computed once for {@code key} (null is remembered too). */
    @SuppressWarnings("unchecked")
    private <T> T memo(String key, Supplier<T> compute) {
        if (!memo.containsKey(key)) memo.put(key, compute.get());
        return (T) memo.get(key);
    }

    Host host() {
        return host;
    }

    HostFiles files() {
        return files;
    }

    // ------------------------------------------------------------------ environment

    /** A variable's value, trimmed, or null when unset or blank. */
    String env(String name) {
        String v = host.env().get(name);
        return v == null || v.isBlank() ? null : v.trim();
    }

    /** Whether the variable is set to exactly {@code value} (case-insensitive). */
    boolean envIs(String name, String value) {
        String v = env(name);
        return v != null && v.equalsIgnoreCase(value);
    }

    Map<String, String> environment() {
        return host.env();
    }

    /**
     * Ranks on this host, from the launcher's variables; null when no launcher says. Slurm's per-node list
     * ({@code 4(x2),3}) gives the largest count.
     */
    LocalRanks localRanks() {
        for (String name : List.of(
                "JCCL_LOCAL_SIZE",
                "OMPI_COMM_WORLD_LOCAL_SIZE",
                "LOCAL_WORLD_SIZE",
                "SLURM_STEP_TASKS_PER_NODE",
                "SLURM_NTASKS_PER_NODE")) {
            String v = env(name);
            if (v == null) continue;
            int max = -1;
            for (String part : v.split(",")) {
                Matcher m = LEADING_NUMBER.matcher(part.trim());
                if (m.find()) max = Math.max(max, Integer.parseInt(m.group(1)));
            }
            if (max > 0) return new LocalRanks(max, "env " + name, v);
        }
        return null;
    }

    /** @param value the variable's text, for evidence */
    record LocalRanks(int count, String source, String value) {}

    // ------------------------------------------------------------------ kernel, arch

    String kernelRelease() {
        return files.read("/proc/sys/kernel/osrelease");
    }

    Version kernelVersion() {
        return Version.parse(kernelRelease());
    }

    String arch() {
        String a = files.read("/proc/sys/kernel/arch");
        return a != null ? a : host.sources().fallbackArch();
    }

    /** CapEff of this process, or -1 if /proc/self/status does not say. */
    long capEff() {
        return memo("capEff", () -> {
            String line = files.lineStartingWith("/proc/self/status", "CapEff:");
            if (line == null) return -1L;
            try {
                return Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
            } catch (NumberFormatException e) {
                return -1L;
            }
        });
    }

    /** Whether the capability is effective; null when CapEff is unknown. */
    Boolean hasCapability(int bit) {
        long cap = capEff();
        return cap < 0 ? null : (cap & (1L << bit)) != 0;
    }

    // ------------------------------------------------------------------ NVIDIA

    NvidiaDriver nvidiaDriver() {
        return memo("driver", () -> {
            List<String> lines = files.lines("/proc/driver/nvidia/version");
            String moduleVersion = files.read("/sys/module/nvidia/version");
            if (lines.isEmpty() && moduleVersion == null) return null;
            String line = lines.isEmpty() ? null : lines.getFirst().strip();
            String version = moduleVersion;
            if (line != null) {
                Matcher m = DRIVER_VERSION.matcher(line + " ");
                if (m.find()) version = m.group(1);
            }
            boolean open = line != null && line.contains("Open Kernel Module");
            return new NvidiaDriver(line, version, open, moduleVersion);
        });
    }

    /** GPUs visible to this process (a container sees only those it was given). */
    List<Gpu> visibleGpus() {
        return memo("gpus", () -> {
            List<Gpu> gpus = new ArrayList<>();
            for (String dir : files.list("/proc/driver/nvidia/gpus")) {
                Map<String, String> info = new LinkedHashMap<>();
                for (String line : files.lines("/proc/driver/nvidia/gpus/" + dir + "/information")) {
                    int colon = line.indexOf(':');
                    if (colon > 0) {
                        info.put(
                                line.substring(0, colon).trim(),
                                line.substring(colon + 1).trim());
                    }
                }
                String bus = info.getOrDefault("Bus Location", dir).toLowerCase(Locale.ROOT);
                gpus.add(new Gpu(bus, info.get("Model"), info.get("GPU UUID"), info.get("Device Minor")));
            }
            gpus.sort((a, b) -> a.busId().compareTo(b.busId()));
            return gpus;
        });
    }

    /** NVIDIA GPUs on the PCI bus: host-wide, since sysfs is not namespaced. */
    List<PciFunction> pciGpus() {
        List<PciFunction> out = new ArrayList<>();
        for (PciFunction f : pciFunctions()) {
            if (NVIDIA_VENDOR.equals(f.vendor())
                    && f.pciClass() != null
                    && (f.pciClass().startsWith("0x0302") || f.pciClass().startsWith("0x0300"))) {
                out.add(f);
            }
        }
        return out;
    }

    /** Whether any NVIDIA GPU is visible or on the bus. */
    boolean hasGpu() {
        return !visibleGpus().isEmpty() || !pciGpus().isEmpty();
    }

    /** Bus ids of the GPUs this process uses: the visible ones, else (no driver view) those on the bus. */
    List<String> gpuBusIds() {
        List<String> ids = new ArrayList<>();
        for (Gpu g : visibleGpus()) ids.add(g.busId());
        if (ids.isEmpty()) {
            for (PciFunction f : pciGpus()) ids.add(f.bdf());
        }
        return ids;
    }

    /** Why GPU checks do not apply, for skip summaries. */
    String noGpuReason() {
        return "no NVIDIA GPU (none in /proc/driver/nvidia/gpus, none on the PCI bus)";
    }

    // ------------------------------------------------------------------ PCI

    /** Vendor, class and device id of every PCI function; driver and path only for NVIDIA and Mellanox ones. */
    List<PciFunction> pciFunctions() {
        return memo("pci", () -> {
            List<PciFunction> out = new ArrayList<>();
            for (String bdf : files.list("/sys/bus/pci/devices")) {
                String base = "/sys/bus/pci/devices/" + bdf;
                String vendor = files.read(base + "/vendor");
                if (!NVIDIA_VENDOR.equals(vendor) && !MELLANOX_VENDOR.equals(vendor)) {
                    out.add(new PciFunction(bdf, null, vendor, null, null, null));
                    continue;
                }
                String driverLink = files.readLink(base + "/driver");
                out.add(new PciFunction(
                        bdf,
                        files.realPath(base),
                        vendor,
                        files.read(base + "/device"),
                        files.read(base + "/class"),
                        driverLink == null ? null : HostFiles.nameOf(driverLink)));
            }
            return out;
        });
    }

    PciFunction pciFunction(String bdf) {
        for (PciFunction f : pciFunctions()) {
            if (f.bdf().equalsIgnoreCase(bdf)) return f;
        }
        return null;
    }

    /** Real path of a PCI function's directory, or null. */
    String pciPath(String bdf) {
        return files.realPath("/sys/bus/pci/devices/" + bdf);
    }

    List<PciFunction> mellanoxFunctions() {
        List<PciFunction> out = new ArrayList<>();
        for (PciFunction f : pciFunctions()) {
            if (MELLANOX_VENDOR.equals(f.vendor())) out.add(f);
        }
        return out;
    }

    // ------------------------------------------------------------------ RDMA

    List<RdmaDevice> rdmaDevices() {
        return memo("rdma", () -> {
            List<RdmaDevice> out = new ArrayList<>();
            for (String name : files.list("/sys/class/infiniband")) out.add(readRdmaDevice(name));
            return out;
        });
    }

    private RdmaDevice readRdmaDevice(String name) {
        String base = "/sys/class/infiniband/" + name;
        String real = files.realPath(base);
        // Real sysfs puts a PCI device's RDMA devices at <pci function>/infiniband/<name>: the
        // function's path is what comes before. (Reading it so first, rather than through the
        // "device" link, keeps captured trees free of the link loop device/infiniband/<name>/device.)
        String pciPath = null;
        if (real != null) {
            int at = real.lastIndexOf("/infiniband/");
            if (at > 0 && BDF.matcher(HostFiles.nameOf(real.substring(0, at))).matches()) {
                pciPath = real.substring(0, at);
            }
        }
        if (pciPath == null) {
            // Other kernels and container runtimes give /sys/class/infiniband/<name> as a directory of
            // its own (or a link elsewhere) whose "device" link points into the PCI tree.
            String device = files.realPath(base + "/device");
            if (device != null && BDF.matcher(HostFiles.nameOf(device)).matches()) pciPath = device;
        }
        String bdf = pciPath == null ? null : HostFiles.nameOf(pciPath);
        String driverLink = pciPath == null ? null : files.readLink(pciPath + "/driver");
        List<RdmaPort> ports = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        for (String p : files.list(base + "/ports")) {
            try {
                numbers.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                // not a port
            }
        }
        numbers.sort(null);
        for (int n : numbers) {
            String pb = base + "/ports/" + n;
            ports.add(new RdmaPort(
                    name,
                    n,
                    files.read(pb + "/state"),
                    files.read(pb + "/phys_state"),
                    files.read(pb + "/link_layer"),
                    files.read(pb + "/rate"),
                    files.read(pb + "/lid"),
                    files.read(pb + "/sm_lid")));
        }
        return new RdmaDevice(
                name,
                pciPath,
                bdf,
                pciPath == null ? null : files.read(pciPath + "/vendor"),
                pciPath == null ? null : files.read(pciPath + "/device"),
                files.read(base + "/hca_type"),
                driverLink == null ? null : HostFiles.nameOf(driverLink),
                pciPath != null && files.exists(pciPath + "/physfn"),
                ports);
    }

    boolean hasRdma() {
        return !rdmaDevices().isEmpty();
    }

    String noRdmaReason() {
        return "no RDMA device in /sys/class/infiniband";
    }

    List<RdmaPort> allPorts() {
        List<RdmaPort> out = new ArrayList<>();
        for (RdmaDevice d : rdmaDevices()) out.addAll(d.ports());
        return out;
    }

    /** The NCCL_IB_HCA filter, or null when unset. */
    IbHcaFilter ncclHcaFilter() {
        String v = env("NCCL_IB_HCA");
        return v == null ? null : IbHcaFilter.parse(v);
    }

    /**
     * Ports NCCL would consider: those NCCL_IB_HCA selects, or all of them when it is unset or selects none
     * (rdma-hca-filter reports that case; the other checks then look at every port).
     */
    List<RdmaPort> selectedPorts() {
        IbHcaFilter filter = ncclHcaFilter();
        if (filter == null) return allPorts();
        List<RdmaPort> selected = new ArrayList<>();
        for (RdmaPort p : allPorts()) {
            if (filter.selects(p.device(), p.number())) selected.add(p);
        }
        return selected.isEmpty() ? allPorts() : selected;
    }

    RdmaDevice rdmaDevice(String name) {
        for (RdmaDevice d : rdmaDevices()) {
            if (d.name().equals(name)) return d;
        }
        return null;
    }

    /** Devices that have at least one selected port, in device order. */
    List<RdmaDevice> selectedDevices() {
        Set<String> names = new LinkedHashSet<>();
        for (RdmaPort p : selectedPorts()) names.add(p.device());
        List<RdmaDevice> out = new ArrayList<>();
        for (String n : names) out.add(rdmaDevice(n));
        return out;
    }

    // ------------------------------------------------------------------ libraries

    /** Library directories: the usual ones, then LD_LIBRARY_PATH's. */
    List<String> libraryDirs() {
        Set<String> dirs = new LinkedHashSet<>(LIBRARY_DIRS);
        String ld = env("LD_LIBRARY_PATH");
        if (ld != null) {
            for (String d : ld.split(":")) {
                if (!d.isBlank()) dirs.add(d.strip());
            }
        }
        return new ArrayList<>(dirs);
    }

    /** Paths of files matching {@code glob} in the library directories. */
    List<String> findLibraries(String glob) {
        List<String> found = new ArrayList<>();
        for (String dir : libraryDirs()) {
            for (String name : files.list(dir, glob)) found.add(HostFiles.join(dir, name));
        }
        return found;
    }

    /** libibverbs.so.1, the first one found, or null. */
    Verbs verbs() {
        return memo("verbs", () -> {
            for (String path : findLibraries("libibverbs.so.1*")) {
                String real = files.realPath(path);
                if (real == null) continue; // a dangling link is no library
                String name = HostFiles.nameOf(real);
                // libibverbs.so.1.<abi>.<rdma-core version>.0 (rdma-core CMake); MOFED uses other names.
                Matcher m = Pattern.compile("^libibverbs\\.so\\.1\\.\\d+\\.(\\d+)\\.\\d+$")
                        .matcher(name);
                return new Verbs(path, name, m.matches() ? Version.parse(m.group(1)) : null);
            }
            return null;
        });
    }

    // ------------------------------------------------------------------ NCCL

    /**
     * Every NCCL found: {@code NCCL_VERSION} (set by nvidia/cuda images), libnccl.so.2.X.Y in the library directories,
     * pip wheels {@code nvidia_nccl_cu*-VER.dist-info}.
     */
    List<NcclCopy> ncclCopies() {
        return memo("nccl", () -> {
            List<NcclCopy> out = new ArrayList<>();
            String envVersion = env("NCCL_VERSION");
            if (envVersion != null) out.add(new NcclCopy(Version.parse(envVersion), "env NCCL_VERSION=" + envVersion));
            Set<String> seenFiles = new LinkedHashSet<>();
            for (String path : findLibraries("libnccl.so.2*")) {
                String real = files.realPath(path);
                if (real == null || !seenFiles.add(real)) continue;
                Matcher m =
                        Pattern.compile("^libnccl\\.so\\.(2\\.\\d+\\.\\d+)$").matcher(HostFiles.nameOf(real));
                out.add(new NcclCopy(m.matches() ? Version.parse(m.group(1)) : null, real));
            }
            for (String site : pythonPackageDirs()) {
                for (String name : files.list(site, "nvidia_nccl_cu*.dist-info")) {
                    Matcher m = Pattern.compile("-(\\d+\\.\\d+\\.\\d+)").matcher(name);
                    out.add(new NcclCopy(m.find() ? Version.parse(m.group(1)) : null, HostFiles.join(site, name)));
                }
            }
            return out;
        });
    }

    private List<String> pythonPackageDirs() {
        List<String> out = new ArrayList<>();
        for (String base : List.of("/usr/lib", "/usr/local/lib", "/opt/conda/lib")) {
            for (String python : files.list(base, "python3*")) {
                for (String sub : List.of("site-packages", "dist-packages")) {
                    String dir = base + "/" + python + "/" + sub;
                    if (files.isDirectory(dir)) out.add(dir);
                }
            }
        }
        return out;
    }

    /** Distinct NCCL versions found, oldest first (copies whose version is unknown are left out). */
    List<Version> ncclVersions() {
        TreeSet<Version> versions = new TreeSet<>();
        for (NcclCopy c : ncclCopies()) {
            if (c.version() != null) versions.add(c.version());
        }
        return new ArrayList<>(versions);
    }

    boolean hasNccl() {
        return !ncclCopies().isEmpty();
    }

    /** The oldest NCCL found: the one whose gaps matter most. Null if none or none has a version. */
    Version oldestNccl() {
        List<Version> v = ncclVersions();
        return v.isEmpty() ? null : v.getFirst();
    }

    /** The newest NCCL found, or null. */
    Version newestNccl() {
        List<Version> v = ncclVersions();
        return v.isEmpty() ? null : v.getLast();
    }

    String ncclDescription() {
        if (!hasNccl()) return "no NCCL found";
        List<String> parts = new ArrayList<>();
        for (NcclCopy c : ncclCopies()) {
            parts.add((c.version() == null ? "version unknown" : c.version()) + " (" + c.source() + ")");
        }
        return "NCCL " + String.join(", ", parts);
    }

    // ------------------------------------------------------------------ peer memory

    /** What is loaded for GPU Direct RDMA through peer memory (check gdr-peermem-module). */
    record PeerMemory(
            boolean nvidiaPeermem,
            String peermemVersion,
            String initstate,
            boolean nvPeerMem,
            String nvPeerMemVersion,
            boolean memoryPeersDir,
            List<String> clients) {
        /** nvidia_peermem live (or present without initstate, as in old kernels), or legacy nv_peer_mem. */
        boolean live() {
            return (nvidiaPeermem && (initstate == null || initstate.equals("live"))) || nvPeerMem;
        }

        String moduleName() {
            return nvidiaPeermem ? "nvidia_peermem" : nvPeerMem ? "nv_peer_mem" : null;
        }

        String moduleVersion() {
            return nvidiaPeermem ? peermemVersion : nvPeerMemVersion;
        }
    }

    PeerMemory peerMemory() {
        return memo("peermem", () -> {
            boolean peermem = files.isDirectory("/sys/module/nvidia_peermem");
            boolean legacy = files.isDirectory("/sys/module/nv_peer_mem");
            boolean peersDir = files.isDirectory("/sys/kernel/mm/memory_peers");
            return new PeerMemory(
                    peermem,
                    peermem ? files.read("/sys/module/nvidia_peermem/version") : null,
                    peermem ? files.read("/sys/module/nvidia_peermem/initstate") : null,
                    legacy,
                    legacy ? files.read("/sys/module/nv_peer_mem/version") : null,
                    peersDir,
                    peersDir ? files.list("/sys/kernel/mm/memory_peers") : List.of());
        });
    }

    // ------------------------------------------------------------------ runtime context

    /** Container, Kubernetes, MPI Operator and VM indicators; several weak ones are combined. */
    Runtime runtime() {
        return memo("runtime", this::readRuntime);
    }

    private Runtime readRuntime() {
        List<Evidence> ev = new ArrayList<>();
        String container = null;
        if (files.exists("/.dockerenv")) {
            container = "docker";
            ev.add(new Evidence("/.dockerenv", "exists"));
        }
        if (files.exists("/run/.containerenv")) {
            if (container == null) container = "podman";
            ev.add(new Evidence("/run/.containerenv", "exists"));
        }
        String containerVar = env("container");
        if (containerVar != null) {
            if (container == null) container = containerVar;
            ev.add(new Evidence("env container", containerVar));
        }
        for (String line : files.linesMatching(
                "/proc/1/cgroup",
                l -> l.contains("docker")
                        || l.contains("kubepods")
                        || l.contains("containerd")
                        || l.contains("crio")
                        || l.contains("libpod"))) {
            if (container == null) {
                container = line.contains("kubepods") ? "kubernetes pod" : "cgroup " + HostFiles.nameOf(line);
            }
            ev.add(new Evidence("/proc/1/cgroup", line));
            break;
        }
        MountInfo.Mount rootMount = MountInfo.visibleAt(files, "/");
        if (rootMount != null && rootMount.fsType().equals("overlay")) {
            if (container == null) container = "overlay root";
            ev.add(new Evidence(MountInfo.PATH, "/ is " + rootMount.fsType()));
        }
        boolean kubernetes = false;
        String k8sHost = env("KUBERNETES_SERVICE_HOST");
        if (k8sHost != null) {
            kubernetes = true;
            ev.add(new Evidence("env KUBERNETES_SERVICE_HOST", k8sHost));
        }
        String namespace = files.read("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
        if (namespace != null) {
            kubernetes = true;
            ev.add(new Evidence("/var/run/secrets/kubernetes.io/serviceaccount/namespace", namespace));
        }
        String role = env("K_MPI_JOB_ROLE");
        if (role != null) ev.add(new Evidence("env K_MPI_JOB_ROLE", role));
        else if (env("OMPI_MCA_orte_default_hostfile") != null) {
            role = "MPI job";
            ev.add(new Evidence("env OMPI_MCA_orte_default_hostfile", env("OMPI_MCA_orte_default_hostfile")));
        }
        boolean vm = false;
        String flags = files.lineStartingWith("/proc/cpuinfo", "flags");
        if (flags != null && List.of(flags.split("[\\s:]+")).contains("hypervisor")) {
            vm = true;
            ev.add(new Evidence("/proc/cpuinfo", "flags include hypervisor"));
        }
        String vendor = files.read("/sys/class/dmi/id/sys_vendor");
        String product = files.read("/sys/class/dmi/id/product_name");
        if (isVirtualMachineDmi(vendor, product)) {
            vm = true;
            ev.add(new Evidence("/sys/class/dmi/id/sys_vendor", vendor + " / " + product));
        }
        String hypervisor = files.read("/sys/hypervisor/type");
        if (hypervisor != null) {
            vm = true;
            ev.add(new Evidence("/sys/hypervisor/type", hypervisor));
        }
        return new Runtime(container, kubernetes, role, vm, ev);
    }

    /** DMI strings of common hypervisors and clouds [U: vendor strings]. */
    static boolean isVirtualMachineDmi(String vendor, String product) {
        String v = vendor == null ? "" : vendor;
        String p = product == null ? "" : product;
        return v.contains("QEMU")
                || p.contains("KVM")
                || p.contains("QEMU")
                || v.contains("Amazon EC2")
                || v.contains("Google")
                || v.contains("VMware")
                || v.contains("Xen")
                || v.contains("innotek")
                || v.contains("OpenStack")
                || v.contains("Parallels")
                || (v.contains("Microsoft Corporation") && p.contains("Virtual Machine"));
    }

    // ------------------------------------------------------------------ network

    List<NetInterface> interfaces() {
        return host.sources().interfaces();
    }

    /** {@code device}, {@code virtual} (veth, bridge, …) or {@code not in /sys/class/net}, for evidence. */
    String interfaceKind(String name) {
        String real = files.realPath("/sys/class/net/" + name);
        if (real == null) return "not in /sys/class/net";
        return real.startsWith("/sys/devices/virtual/") ? "virtual" : "device";
    }

    /** Whether /sys/class/net/NAME is a device (not under /sys/devices/virtual): a physical NIC or VF. */
    boolean isPhysicalInterface(String name) {
        String real = files.realPath("/sys/class/net/" + name);
        return real != null && !real.startsWith("/sys/devices/virtual/");
    }

    // ------------------------------------------------------------------ small helpers

    /** {@code 0-3,8,10-11} as a set of CPU numbers; empty when unreadable. */
    static Set<Integer> cpuList(String text) {
        Set<Integer> cpus = new TreeSet<>();
        if (text == null) return cpus;
        for (String part : text.trim().split(",")) {
            if (part.isBlank()) continue;
            try {
                int dash = part.indexOf('-');
                if (dash < 0) {
                    cpus.add(Integer.parseInt(part.trim()));
                } else {
                    int from = Integer.parseInt(part.substring(0, dash).trim());
                    int to = Integer.parseInt(part.substring(dash + 1).trim());
                    for (int c = from; c <= to && c - from < 65536; c++) cpus.add(c);
                }
            } catch (NumberFormatException e) {
                return new TreeSet<>();
            }
        }
        return cpus;
    }

    /** Bytes in binary units, e.g. {@code 64 MiB}, {@code 23.5 GiB}. */
    static String bytes(long n) {
        if (n < 0) return "unknown";
        if (n >= 1L << 30) return trim(n / (double) (1L << 30)) + " GiB";
        if (n >= 1L << 20) return trim(n / (double) (1L << 20)) + " MiB";
        if (n >= 1L << 10) return trim(n / (double) (1L << 10)) + " KiB";
        return n + " B";
    }

    private static String trim(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
