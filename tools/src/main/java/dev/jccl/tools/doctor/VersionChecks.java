package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** I1–I2: driver user space against the kernel module, and NCCL releases with gaps that matter here. */
record VersionChecks(HostFacts facts) {
    private static final Pattern LIBCUDA = Pattern.compile("^libcuda\\.so\\.(\\d+\\.\\d+(?:\\.\\d+)?)$");

    /** I1 {@code driver-kernel-user-match}. */
    CheckResult driverMatch() {
        Findings f = new Findings(Check.DRIVER_KERNEL_USER_MATCH);
        HostFacts.NvidiaDriver driver = facts.nvidiaDriver();
        if (driver == null) {
            return f.skip("no NVIDIA driver loaded (/proc/driver/nvidia/version and /sys/module/nvidia absent)");
        }
        String kernel = driver.moduleVersion() != null ? driver.moduleVersion() : driver.version();
        f.evidence("/sys/module/nvidia/version", driver.moduleVersion());
        f.evidenceIfPresent("/proc/driver/nvidia/version", driver.versionLine());
        f.evidenceIfPresent("env CUDA_VERSION", facts.env("CUDA_VERSION"));
        List<String> candidates = new ArrayList<>(facts.findLibraries("libcuda.so*"));
        for (String cuda : facts.files().list("/usr/local", "cuda*")) {
            for (String name : facts.files().list("/usr/local/" + cuda + "/compat", "libcuda.so*")) {
                candidates.add("/usr/local/" + cuda + "/compat/" + name);
            }
        }
        Set<String> ldPath = new LinkedHashSet<>();
        String ld = facts.env("LD_LIBRARY_PATH");
        if (ld != null) {
            for (String d : ld.split(":")) {
                if (!d.isBlank()) ldPath.add(d.strip().replaceAll("/+$", ""));
            }
        }
        Set<String> seen = new LinkedHashSet<>();
        String matched = null;
        for (String path : candidates) {
            String real = facts.files().realPath(path);
            if (real == null || !seen.add(real)) continue;
            Matcher m = LIBCUDA.matcher(HostFiles.nameOf(real));
            if (!m.matches()) continue;
            String version = m.group(1);
            boolean compat = real.contains("/compat/");
            f.evidence(path, HostFiles.nameOf(real) + (compat ? " (CUDA forward-compatibility package)" : ""));
            if (compat) {
                if (ldPath.contains(HostFiles.parentOf(path)) || ldPath.contains(HostFiles.parentOf(real))) {
                    f.problem(
                            Verdict.WARN,
                            "CUDA forward compatibility is in use: libcuda " + version + " from "
                                    + HostFiles.parentOf(path) + " is on LD_LIBRARY_PATH with kernel module " + kernel
                                    + " (NCCL may misjudge the driver version)",
                            "use it only where the application needs a newer CUDA than the driver supports");
                }
            } else if (kernel != null && !version.equals(kernel)) {
                f.problem(
                        Verdict.FAIL,
                        "Kernel module " + kernel + " but the image provides libcuda.so." + version + " (" + path
                                + ") — CUDA will fail to initialize",
                        "let the container runtime inject the host's driver libraries (do not bake "
                                + "libcuda into the image)",
                        "align the driver packages so that user space and kernel module come from one release");
            } else {
                matched = HostFiles.nameOf(real);
            }
        }
        HostFacts.PeerMemory pm = facts.peerMemory();
        if (pm.nvidiaPeermem()
                && pm.peermemVersion() != null
                && kernel != null
                && !pm.peermemVersion().equals(kernel)) {
            f.evidence("/sys/module/nvidia_peermem/version", pm.peermemVersion());
            f.problem(
                    Verdict.WARN,
                    "nvidia_peermem " + pm.peermemVersion() + " is not from the loaded driver " + kernel,
                    "reinstall the driver so that nvidia_peermem is rebuilt for " + kernel);
        }
        if (seen.isEmpty()) {
            return f.conclude("No libcuda.so in " + String.join(", ", facts.libraryDirs())
                    + " to compare with kernel module " + kernel + " (a container runtime injects it at start).");
        }
        return f.conclude((matched == null ? "libcuda" : matched) + " matches the kernel module " + kernel + ".");
    }

    /** I2 {@code nccl-version-gaps}. */
    CheckResult ncclGaps() {
        Findings f = new Findings(Check.NCCL_VERSION_GAPS);
        if (!facts.hasNccl()) {
            return f.skip(
                    "no NCCL found (NCCL_VERSION, libnccl.so.2.* in the library directories, nvidia_nccl_cu* wheels)");
        }
        for (HostFacts.NcclCopy c : facts.ncclCopies()) {
            f.evidence(c.source(), c.version() == null ? "version unknown" : c.version());
        }

        // The host conditions under which each gap matters (docs/doctor-checks.md I2, "Relevance").
        HostFacts.PeerMemory pm = facts.peerMemory();
        boolean noPeermemPath = facts.hasGpu() && facts.hasRdma() && !pm.live();
        boolean rocePort = facts.hasRdma() && facts.selectedPorts().stream().anyMatch(HostFacts.RdmaPort::ethernet);
        boolean peermemWithoutMemoryPeers = facts.hasGpu() && facts.hasRdma() && pm.live() && !pm.memoryPeersDir();
        // With DMA-BUF usable, NCCL ≥ 2.13 has GPU Direct RDMA without finding peermem (as gdr-peermem-nccl-probe
        // judges).
        boolean dmabufOk = facts.hasGpu()
                && facts.hasRdma()
                && new GdrChecks(facts).dmabufSupport().verdict() == Verdict.OK;
        boolean noSysNice = facts.hasGpu()
                && facts.runtime().inContainer()
                && Boolean.FALSE.equals(facts.hasCapability(HostFacts.CAP_SYS_NICE))
                && !facts.envIs("NCCL_CUMEM_HOST_ENABLE", "0");
        String downInterface = null;
        for (NetInterface nif : facts.interfaces()) {
            if (!nif.running() && !nif.loopback() && nif.usableAddress() != null) {
                downInterface = nif.name();
                break;
            }
        }
        String upgrade = "upgrade NCCL (package libnccl2, or pip nvidia-nccl-cu12 / nvidia-nccl-cu13)";
        for (Version v : facts.ncclVersions()) {
            if (v.below("2.13") && noPeermemPath) {
                f.problem(
                        Verdict.FAIL,
                        "NCCL " + v + " has no DMA-BUF support (< 2.13) and no peermem module is loaded: no GPU "
                                + "Direct RDMA",
                        upgrade);
            }
            if (v.below("2.21") && rocePort) {
                f.problem(
                        Verdict.FAIL,
                        "NCCL " + v + " uses RoCE GID index 0 unless NCCL_IB_GID_INDEX says otherwise (< 2.21; "
                                + "see roce-gid-v2)",
                        upgrade);
            }
            if (v.below("2.23.4") && peermemWithoutMemoryPeers && !(dmabufOk && v.atLeast("2.13"))) {
                f.problem(
                        Verdict.FAIL,
                        "NCCL " + v + " found (" + sourceOf(v) + "): on this kernel it will not detect "
                                + pm.moduleName() + " (needs ≥ 2.23.4; see gdr-peermem-nccl-probe)",
                        upgrade);
            }
            boolean cumemDefault = v.atLeast("2.24") && v.below("2.26.5");
            boolean cumemAsked = v.atLeast("2.23") && v.below("2.24") && facts.envIs("NCCL_CUMEM_HOST_ENABLE", "1");
            if ((cumemDefault || cumemAsked) && noSysNice) {
                f.problem(
                        Verdict.FAIL,
                        "NCCL " + v + " allocates host memory with cuMem, which needs CAP_SYS_NICE in a container, "
                                + "and falls back to /dev/shm only from 2.26.5 (see container-caps-sysfs)",
                        upgrade + " to ≥ 2.26.5",
                        "or NCCL_CUMEM_HOST_ENABLE=0, or --cap-add SYS_NICE");
            }
            if (v.below("2.28.3") && downInterface != null) {
                f.problem(
                        Verdict.FAIL,
                        "NCCL " + v + " ignores link state when it picks its socket interface (< 2.28.3), and "
                                + downInterface + " has an address but is not RUNNING (see net-socket-ifname)",
                        upgrade + " to ≥ 2.28.3",
                        "or set NCCL_SOCKET_IFNAME==<the right interface>");
            }
        }
        List<String> files = new ArrayList<>();
        for (HostFacts.NcclCopy c : facts.ncclCopies()) {
            if (!c.source().startsWith("env ")) files.add(c.source());
        }
        if (facts.ncclVersions().size() > 1 || files.size() > 1) {
            f.problem(
                    Verdict.WARN,
                    "several NCCL copies (" + facts.ncclDescription().replaceFirst("^NCCL ", "") + "): which one loads "
                            + "depends on LD_LIBRARY_PATH and import order",
                    "remove the copies the application does not use");
        }
        boolean unknown = facts.ncclCopies().stream().anyMatch(c -> c.version() == null);
        if (unknown && (noPeermemPath || rocePort || peermemWithoutMemoryPeers || noSysNice || downInterface != null)) {
            f.problem(
                    Verdict.WARN,
                    "an NCCL of unknown version is present while a version-dependent condition holds here",
                    "find its version with NCCL_DEBUG=VERSION");
        }
        return f.conclude(facts.ncclDescription() + ": none of the known version gaps applies on this host.");
    }

    private String sourceOf(Version v) {
        List<String> sources = new ArrayList<>();
        for (HostFacts.NcclCopy c : facts.ncclCopies()) {
            if (v.equals(c.version())) sources.add(c.source());
        }
        return String.join(", ", sources);
    }
}
