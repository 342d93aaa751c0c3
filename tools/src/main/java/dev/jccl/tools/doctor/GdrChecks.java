package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;

/**
 * B1–B3: whether GPU Direct RDMA has a kernel path (the nvidia_peermem module, or DMA-BUF) and whether the installed
 * NCCL will find it. B1 and B2 depend on B3's answer, so B3 runs first.
 */
final class GdrChecks {
    static final String NV_MEM = "/sys/kernel/mm/memory_peers/nv_mem/version";
    static final String NV_MEM_NC = "/sys/kernel/mm/memory_peers/nv_mem_nc/version";
    static final String NVIDIA_PEERMEM_CLIENT = "/sys/kernel/mm/memory_peers/nvidia-peermem/version";
    static final String PEERMEM_MODULE_VERSION = "/sys/module/nvidia_peermem/version";

    private static final String MODPROBE_FIX = "sudo modprobe nvidia-peermem (again after each boot; to persist: "
            + "echo nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf); with the "
            + "GPU Operator: driver.rdma.enabled=true";

    private final HostFacts facts;
    private CheckResult dmabuf;

    GdrChecks(HostFacts facts) {
        this.facts = facts;
    }

    /** The three results in catalogue order. */
    List<CheckResult> run() {
        CheckResult b3 = dmabufSupport();
        CheckResult b1 = peermemModule(b3);
        CheckResult b2 = peermemNcclProbe(b3);
        return List.of(b1, b2, b3);
    }

    private String notApplicable() {
        if (!facts.hasGpu()) return facts.noGpuReason();
        if (!facts.hasRdma()) return facts.noRdmaReason() + ": GPU Direct RDMA needs an RDMA NIC";
        return null;
    }

    /** B3 {@code gdr-dmabuf-support}. */
    CheckResult dmabufSupport() {
        if (dmabuf != null) return dmabuf;
        Findings f = new Findings(Check.GDR_DMABUF_SUPPORT);
        String skip = notApplicable();
        if (skip != null) return dmabuf = f.skip(skip);

        List<String> failing = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        Version kernel = facts.kernelVersion();
        f.evidence("/proc/sys/kernel/osrelease", facts.kernelRelease());
        if (kernel == null) unknown.add("kernel version unknown");
        else if (kernel.below("5.12")) {
            failing.add("kernel " + facts.kernelRelease() + " is older than 5.12 (no RDMA dma-buf import)");
        }

        HostFacts.NvidiaDriver driver = facts.nvidiaDriver();
        if (driver == null || driver.versionLine() == null) {
            unknown.add("driver flavor unknown (/proc/driver/nvidia/version absent)");
        } else {
            f.evidence("/proc/driver/nvidia/version", driver.versionLine());
            if (!driver.openFlavor()) {
                failing.add("the NVIDIA driver " + driver.version()
                        + " is the proprietary flavor; DMA-BUF needs the open kernel modules");
            } else {
                Version v = Version.parse(driver.version());
                // CUDA 11.7 (the first with DMA_BUF_SUPPORTED) came with driver 515.43.04 [U: mapping].
                if (v != null && v.below("515.43.04")) {
                    failing.add("driver " + driver.version() + " predates R515 (CUDA 11.7)");
                }
            }
        }

        HostFacts.Verbs verbs = facts.verbs();
        if (verbs == null) {
            failing.add("no libibverbs.so.1 in " + String.join(", ", facts.libraryDirs()));
        } else {
            f.evidence(verbs.path(), verbs.realName());
            if (verbs.rdmaCore() == null) unknown.add("rdma-core version unknown (" + verbs.realName() + ")");
            else if (verbs.rdmaCore().below("34")) {
                failing.add("rdma-core " + verbs.rdmaCore() + " is older than 34 (no ibv_reg_dmabuf_mr)");
            }
        }
        f.evidence(
                "CUDA DMA_BUF_SUPPORTED / NIC ibv_reg_dmabuf_mr",
                "not probed (needs the CUDA driver and verbs; "
                        + "NCCL_DEBUG=INFO shows \"DMA-BUF is available\" when both agree)");

        String dmabufEnable = facts.env("NCCL_DMABUF_ENABLE");
        f.evidenceIfPresent("env NCCL_DMABUF_ENABLE", dmabufEnable);
        if ("0".equals(dmabufEnable)) failing.add("NCCL_DMABUF_ENABLE=0 turns it off");
        Version oldest = facts.oldestNccl();
        if (facts.hasNccl()) f.evidence("NCCL", facts.ncclDescription());
        if (oldest != null && oldest.below("2.13")) {
            failing.add("NCCL " + oldest + " is older than 2.13 (no DMA-BUF support)");
        }

        boolean peermemLive = facts.peerMemory().live();
        if (!failing.isEmpty()) {
            String reason = failing.getFirst();
            String[] fix = {
                "a kernel ≥ 5.12 and the open kernel-module flavor of the NVIDIA driver (Turing or newer GPUs)",
                "rdma-core ≥ 34 (or a recent MOFED/DOCA-OFED)",
                "unset NCCL_DMABUF_ENABLE=0; NCCL ≥ 2.13"
            };
            if (peermemLive) {
                return dmabuf = f.warn(
                        "DMA-BUF GPU Direct RDMA unavailable: " + reason + ". GPU Direct RDMA still works through "
                                + facts.peerMemory().moduleName() + ", but NVIDIA recommends DMA-BUF over it.",
                        fix);
            }
            return dmabuf = f.fail("DMA-BUF GPU Direct RDMA unavailable: " + reason + ".", fix);
        }
        if (!unknown.isEmpty()) {
            return dmabuf = f.warn(
                    "DMA-BUF GPU Direct RDMA cannot be confirmed: " + String.join("; ", unknown) + ".",
                    "check with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: \"DMA-BUF is available\"");
        }
        return dmabuf = f.ok("DMA-BUF GPU Direct RDMA possible: kernel " + facts.kernelRelease() + ", open driver "
                + driver.version() + ", rdma-core " + verbs.rdmaCore()
                + (oldest == null ? "" : ", NCCL " + oldest) + " (GPU and NIC support not probed).");
    }

    /** B1 {@code gdr-peermem-module}. */
    CheckResult peermemModule(CheckResult b3) {
        Findings f = new Findings(Check.GDR_PEERMEM_MODULE);
        String skip = notApplicable();
        if (skip != null) return f.skip(skip);
        HostFacts.PeerMemory pm = facts.peerMemory();
        String nvidiaVersion = nvidiaModuleVersion();
        f.evidence(PEERMEM_MODULE_VERSION, pm.nvidiaPeermem() ? pm.peermemVersion() : null);
        if (pm.nvidiaPeermem()) {
            f.evidence("/sys/module/nvidia_peermem/initstate", pm.initstate());
            f.fileIfPresent(facts.files(), "/sys/module/nvidia_peermem/parameters/peerdirect_support");
            f.fileIfPresent(facts.files(), "/sys/module/nvidia_peermem/parameters/persistent_api_support");
        }
        if (pm.nvPeerMem()) f.evidence("/sys/module/nv_peer_mem/version", pm.nvPeerMemVersion());
        f.evidence("/sys/kernel/mm/memory_peers", pm.memoryPeersDir() ? String.join(" ", pm.clients()) : null);
        f.evidence("/sys/module/nvidia/version", nvidiaVersion);

        if (pm.nvidiaPeermem() && pm.nvPeerMem()) {
            return f.warn(
                    "Both nv_peer_mem and nvidia_peermem are loaded; only one may be used.",
                    "unload the legacy one: sudo rmmod nv_peer_mem (and remove it from the modules loaded at boot)");
        }
        if (pm.live()) {
            String version = pm.moduleVersion();
            if (pm.nvidiaPeermem() && version != null && nvidiaVersion != null && !version.equals(nvidiaVersion)) {
                return f.warn(
                        "nvidia_peermem " + version + " does not match the nvidia module " + nvidiaVersion
                                + " (a stale DKMS build?).",
                        "rebuild or reinstall the driver packages so that both come from " + nvidiaVersion
                                + "; then sudo rmmod nvidia_peermem && sudo modprobe nvidia-peermem");
            }
            return f.ok(pm.moduleName() + (version == null ? "" : " " + version) + " is loaded"
                    + (nvidiaVersion != null && nvidiaVersion.equals(version)
                            ? " (same version as the nvidia module)."
                            : "."));
        }
        List<String> kallsyms = facts.files()
                .linesMatching(
                        "/proc/kallsyms",
                        l -> l.endsWith(" ib_register_peer_memory_client")
                                || l.contains(" ib_register_peer_memory_client\t"));
        boolean kallsymsReadable = facts.files().exists("/proc/kallsyms");
        if (kallsymsReadable) {
            f.evidence(
                    "/proc/kallsyms ib_register_peer_memory_client", kallsyms.isEmpty() ? "not exported" : "exported");
        }
        String noPeerApi = kallsymsReadable && kallsyms.isEmpty()
                ? "This kernel exports no ib_register_peer_memory_client, so modprobe would "
                        + "fail with \"Invalid argument\": "
                        + "install MLNX_OFED/DOCA-OFED, or use DMA-BUF (gdr-dmabuf-support)."
                : "If modprobe fails with \"Invalid argument\", the kernel lacks the MOFED peer-memory API: install "
                        + "MLNX_OFED/DOCA-OFED, or use DMA-BUF (gdr-dmabuf-support).";
        return switch (b3.verdict()) {
            case OK -> f.ok("No peermem module; not needed: the DMA-BUF path is available (gdr-dmabuf-support).");
            case WARN ->
                f.warn(
                        "No nvidia_peermem module, and DMA-BUF cannot be confirmed either (" + b3.summary() + ")",
                        MODPROBE_FIX,
                        noPeerApi);
            default ->
                f.fail(
                        "No GPU Direct RDMA kernel path: nvidia_peermem is not loaded and DMA-BUF is not usable ("
                                + stripPrefix(b3.summary()) + "). Network traffic will be copied through host memory.",
                        MODPROBE_FIX,
                        noPeerApi);
        };
    }

    /** B2 {@code gdr-peermem-nccl-probe}. */
    CheckResult peermemNcclProbe(CheckResult b3) {
        Findings f = new Findings(Check.GDR_PEERMEM_NCCL_PROBE);
        String skip = notApplicable();
        if (skip != null) return f.skip(skip);
        HostFacts.PeerMemory pm = facts.peerMemory();
        if (!pm.live()) {
            return f.skip("no peermem module is loaded (gdr-peermem-module), so there is nothing for NCCL to find");
        }
        if (!facts.hasNccl()) {
            return f.skip(
                    "no NCCL found (NCCL_VERSION, libnccl.so.2.*, nvidia_nccl_cu* wheels), so nothing here probes "
                            + "the peer-memory files NCCL looks for");
        }
        List<String> existing = new ArrayList<>();
        for (String path : List.of(NV_MEM, NV_MEM_NC, NVIDIA_PEERMEM_CLIENT, PEERMEM_MODULE_VERSION)) {
            boolean exists = facts.files().exists(path);
            f.evidence(path, exists ? "exists" : "absent");
            if (exists) existing.add(path);
        }
        f.evidence("NCCL", facts.ncclDescription());
        boolean unknownVersion = facts.ncclCopies().stream().anyMatch(c -> c.version() == null);
        for (Version v : facts.ncclVersions()) {
            List<String> probed = probePaths(v);
            boolean sees = probed.stream().anyMatch(existing::contains);
            boolean viaDmabuf = b3.verdict() == Verdict.OK && v.atLeast("2.13");
            if (!sees && !viaDmabuf) {
                return f.fail(
                        pm.moduleName() + (pm.moduleVersion() == null ? "" : " " + pm.moduleVersion())
                                + " is loaded, but "
                                + (pm.memoryPeersDir()
                                        ? "none of the files NCCL " + v + " checks exists"
                                        : "/sys/kernel/mm/memory_peers/ does not exist on kernel "
                                                + facts.kernelRelease())
                                + ". NCCL " + v + " only checks " + String.join(", ", probed)
                                + ", so it will print \"GPU Direct RDMA Disabled\" "
                                + "and stage traffic through host memory. NCCL 2.23.4+ also checks "
                                + PEERMEM_MODULE_VERSION + ".",
                        "upgrade NCCL to ≥ 2.23.4 (package libnccl2, or pip nvidia-nccl-cu12 / nvidia-nccl-cu13)",
                        "or make DMA-BUF usable (gdr-dmabuf-support) with NCCL ≥ 2.13",
                        "verify with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET: \"GPU Direct RDMA "
                                + "Enabled for HCA …\"");
            }
        }
        if (unknownVersion && !pm.memoryPeersDir()) {
            return f.warn(
                    "NCCL found but its version is unknown, and /sys/kernel/mm/memory_peers is absent: any NCCL older "
                            + "than 2.23.4 will not see " + pm.moduleName() + ".",
                    "use NCCL ≥ 2.23.4; NCCL_DEBUG=INFO shows \"GPU Direct RDMA Enabled for HCA …\" when it works");
        }
        return f.ok("NCCL will find " + pm.moduleName()
                + (existing.isEmpty() ? " through DMA-BUF" : " (" + existing.getFirst() + ")") + ".");
    }

    /** The files NCCL's peer-memory probe looks for, by release (docs/doctor-checks.md §0.5). */
    static List<String> probePaths(Version nccl) {
        if (nccl.compareTo(Version.of("2.9.6")) <= 0) return List.of(NV_MEM);
        if (nccl.below("2.22")) return List.of(NV_MEM, NVIDIA_PEERMEM_CLIENT);
        if (nccl.below("2.23.4")) return List.of(NV_MEM, NV_MEM_NC);
        return List.of(NV_MEM, NV_MEM_NC, PEERMEM_MODULE_VERSION);
    }

    private String nvidiaModuleVersion() {
        HostFacts.NvidiaDriver d = facts.nvidiaDriver();
        if (d == null) return null;
        return d.moduleVersion() != null ? d.moduleVersion() : d.version();
    }

    private static String stripPrefix(String b3Summary) {
        String s = b3Summary.replaceFirst("^DMA-BUF GPU Direct RDMA unavailable: ", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}
