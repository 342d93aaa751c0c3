package dev.jccl.tools.doctor;

import dev.jccl.Config;
import dev.jccl.transport.shm.ShmTransport;
import java.util.List;

/** D1–D3: locked-memory limit, /dev/shm size (NCCL's and Jccl's), container capabilities and /sys. */
record LimitChecks(HostFacts facts) {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    /** Docker's and containerd's default /dev/shm. */
    private static final long CONTAINER_DEFAULT_SHM = 64 * MIB;

    /** D1 {@code memlock-limit}. */
    CheckResult memlock() {
        Findings f = new Findings(Check.MEMLOCK_LIMIT);
        if (!facts.hasRdma()) {
            return f.skip(facts.noRdmaReason()
                    + ": nothing registers (pins) memory here; Jccl's tcp and shm transports lock none");
        }
        String line = facts.files().lineStartingWith("/proc/self/limits", "Max locked memory");
        Boolean ipcLock = facts.hasCapability(HostFacts.CAP_IPC_LOCK);
        f.evidence(
                "/proc/self/limits",
                line == null ? null : line.replaceAll("\\s+", " ").trim());
        f.evidence(
                "/proc/self/status CapEff",
                facts.capEff() < 0
                        ? null
                        : String.format(
                                "%016x (CAP_IPC_LOCK %s)",
                                facts.capEff(), Boolean.TRUE.equals(ipcLock) ? "held" : "not held"));
        String[] fix = {
            "host: /etc/security/limits.conf: '* soft memlock unlimited' and '* hard "
                    + "memlock unlimited', then log in again or fix the job launcher",
            "Docker: --ulimit memlock=-1 (and/or --cap-add=IPC_LOCK); systemd services: LimitMEMLOCK=infinity",
            "Kubernetes: the container runtime's default limit, or the IPC_LOCK capability"
        };
        if (Boolean.TRUE.equals(ipcLock)) {
            return f.ok("CAP_IPC_LOCK is held: registration is not limited by RLIMIT_MEMLOCK.");
        }
        if (line == null) return f.warn("The locked-memory limit cannot be read (/proc/self/limits).", fix);
        String[] fields = line.substring("Max locked memory".length()).trim().split("\\s+");
        String soft = fields[0];
        if (soft.equals("unlimited")) return f.ok("Locked-memory limit is unlimited.");
        long bytes;
        try {
            bytes = Long.parseLong(soft);
        } catch (NumberFormatException e) {
            return f.warn("The locked-memory limit '" + soft + "' cannot be read.", fix);
        }
        String limit = HostFacts.bytes(bytes) + " (ulimit -l " + bytes / 1024 + ")";
        if (bytes <= 8 * MIB) {
            return f.fail(
                    "Locked-memory limit is " + limit
                            + " and CAP_IPC_LOCK is not held. RDMA memory registration will fail "
                            + "(\"ibv_reg_mr failed\").",
                    fix);
        }
        return f.warn("Locked-memory limit is " + limit + ": registrations beyond it will fail.", fix);
    }

    /** D2 {@code shm-size}: NCCL's buffers and Jccl's shm transport both live in /dev/shm. */
    CheckResult shmSize() {
        Findings f = new Findings(Check.SHM_SIZE);
        ShmCapacity cap = facts.host().sources().shmCapacity();
        MountInfo.Mount mount = MountInfo.visibleAt(facts.files(), "/dev/shm");
        f.evidence(cap.source(), cap.known() ? HostFacts.bytes(cap.bytes()) + " (" + cap.detail() + ")" : cap.detail());
        if (mount != null) f.evidence(MountInfo.PATH, mount.line());
        HostFacts.LocalRanks local = facts.localRanks();
        int gpus = facts.visibleGpus().size();
        if (local != null) f.evidence(local.source(), local.value());
        if (gpus > 0) f.evidence("/proc/driver/nvidia/gpus", gpus + " GPU" + (gpus == 1 ? "" : "s"));
        Config config = jcclConfig();
        if (config.shmDisable()) {
            f.evidence("Jccl", "shm transport disabled (JCCL_SHM_DISABLE/NCCL_SHM_DISABLE): local ranks use TCP");
        }
        if (local != null && local.count() <= 1 && gpus <= 1) {
            return f.skip("one rank on this host (" + local.source() + "=" + local.value()
                    + ") and at most one GPU: nothing is shared through /dev/shm");
        }
        String[] fix = {
            "docker run --shm-size=1g (or --ipc=host)",
            "Kubernetes: mount an emptyDir {medium: Memory, sizeLimit: 1Gi} at /dev/shm",
            "Jccl only: lower JCCL_BUFFSIZE, or JCCL_SHM_DISABLE=1 to use TCP between the ranks of a host"
        };
        if (!cap.known()) return f.warn("The size of /dev/shm is unknown (" + cap.detail() + ").", fix);
        int ranks = Math.max(local == null ? 0 : local.count(), gpus);
        int reference = ranks >= 2 ? ranks : 8;
        long need = jcclShmBytes(reference, config.buffSize());
        String needText = reference + " local Jccl ranks " + (ranks >= 2 ? "need" : "would need") + " up to "
                + HostFacts.bytes(need) + " at JCCL_BUFFSIZE " + HostFacts.bytes(config.buffSize());
        f.evidence("Jccl shm estimate", needText);
        String size = "/dev/shm is " + HostFacts.bytes(cap.bytes())
                + (cap.bytes() == CONTAINER_DEFAULT_SHM ? " (the Docker default)" : "");
        String who = local != null && local.count() >= gpus
                ? local.count() + " local ranks (" + local.source() + ")"
                : gpus + " GPUs visible";
        if (cap.bytes() <= CONTAINER_DEFAULT_SHM && ranks >= 2) {
            return f.fail(
                    size + " with " + who
                            + ". Shared-memory buffers will not fit (\"failed to extend /dev/shm/…\"; Jccl: " + needText
                            + ").",
                    fix);
        }
        if (ranks >= 2 && !config.shmDisable() && need > cap.bytes()) {
            return f.fail(size + " but " + needText + ": Jccl's shm transport will fail to create its segments.", fix);
        }
        if (cap.bytes() < GIB) {
            return f.warn(size + ", less than 1 GiB: large jobs may not fit (" + needText + ").", fix);
        }
        return f.ok(size + ": enough (" + needText + ").");
    }

    /**
     * What Jccl's shm transport maps in /dev/shm for {@code ranks} ranks of one host, at most (core's own estimate).
     */
    static long jcclShmBytes(int ranks, int buffSize) {
        return ShmTransport.bytesForLocalRanks(ranks, buffSize);
    }

    private Config jcclConfig() {
        try {
            return Config.fromEnvironment(facts.environment());
        } catch (IllegalArgumentException e) {
            return Config.builder().build(); // env-jccl-unknown reports the malformed variable
        }
    }

    /** D3 {@code container-caps-sysfs}. */
    CheckResult containerCapsSysfs() {
        Findings f = new Findings(Check.CONTAINER_CAPS_SYSFS);
        HostFacts.Runtime runtime = facts.runtime();
        if (!runtime.inContainer()) return f.skip("not in a container");
        Boolean sysNice = facts.hasCapability(HostFacts.CAP_SYS_NICE);
        f.evidence(
                "/proc/self/status CapEff",
                facts.capEff() < 0
                        ? null
                        : String.format(
                                "%016x (CAP_SYS_NICE %s)",
                                facts.capEff(), Boolean.TRUE.equals(sysNice) ? "held" : "not held"));
        f.fileIfPresent(facts.files(), "/sys/devices/system/node/online");
        String sysFix = "mount the host's /sys (read-only is enough) so that NCCL can read the PCI topology";
        for (String bdf : facts.gpuBusIds()) {
            String real = facts.pciPath(bdf);
            f.evidence("/sys/bus/pci/devices/" + bdf, real);
            if (real == null) {
                f.problem(
                        Verdict.WARN,
                        "GPU " + bdf + " has no /sys/bus/pci/devices entry: NCCL cannot place it in the topology",
                        sysFix);
            }
        }
        for (HostFacts.RdmaDevice d : facts.rdmaDevices()) {
            String real = facts.files().realPath("/sys/class/infiniband/" + d.name());
            boolean software = real != null && real.startsWith("/sys/devices/virtual/");
            f.evidence("/sys/class/infiniband/" + d.name(), real);
            if (d.pciPath() == null && !software) {
                f.problem(
                        Verdict.WARN,
                        d.name() + " has no PCI path under /sys/devices: NCCL cannot place it in the topology",
                        sysFix);
            }
        }
        if (facts.hasGpu() && Boolean.FALSE.equals(sysNice) && !facts.envIs("NCCL_CUMEM_HOST_ENABLE", "0")) {
            for (Version v : facts.ncclVersions()) {
                boolean byDefault = v.atLeast("2.24") && v.below("2.26.5");
                boolean asked = v.atLeast("2.23") && v.below("2.24") && facts.envIs("NCCL_CUMEM_HOST_ENABLE", "1");
                if (byDefault || asked) {
                    f.problem(
                            Verdict.WARN,
                            "No CAP_SYS_NICE in this container and NCCL " + v + " uses cuMem host allocations "
                                    + (byDefault ? "by default" : "(NCCL_CUMEM_HOST_ENABLE=1)")
                                    + ": host-memory allocation may fail "
                                    + "(NCCL ≥ 2.26.5 falls back automatically)",
                            "--cap-add SYS_NICE",
                            "or NCCL_CUMEM_HOST_ENABLE=0",
                            "or upgrade NCCL to ≥ 2.26.5");
                    break;
                }
            }
        }
        List<String> parts = new java.util.ArrayList<>();
        parts.add(
                facts.hasGpu() || facts.hasRdma()
                        ? "the GPUs' and NICs' /sys paths resolve"
                        : "no GPU or RDMA device whose /sys path NCCL needs");
        parts.add(
                Boolean.TRUE.equals(sysNice)
                        ? "CAP_SYS_NICE is held"
                        : "CAP_SYS_NICE is not held (needed only by NCCL's cuMem host allocations)");
        return f.conclude("Container (" + runtime.container() + "): " + String.join("; ", parts) + ".");
    }
}
