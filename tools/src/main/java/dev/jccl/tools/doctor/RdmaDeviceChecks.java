package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** C1–C3: whether RDMA devices exist, can be opened from here, and have their user-space library. */
record RdmaDeviceChecks(HostFacts facts) {
    /** PCI driver → the rdma-core provider that serves its RDMA devices. */
    private static final Map<String, String> PROVIDERS = Map.ofEntries(
            Map.entry("mlx5_core", "mlx5"),
            Map.entry("mlx4_core", "mlx4"),
            Map.entry("bnxt_en", "bnxt_re"),
            Map.entry("ice", "irdma"),
            Map.entry("i40e", "irdma"),
            Map.entry("irdma", "irdma"),
            Map.entry("efa", "efa"),
            Map.entry("qede", "qedr"),
            Map.entry("hns3", "hns"),
            Map.entry("hfi1", "hfi1verbs"),
            Map.entry("vmw_pvrdma", "vmw_pvrdma"),
            Map.entry("erdma", "erdma"),
            Map.entry("mana", "mana"));

    /** C1 {@code rdma-devices-present}. */
    CheckResult devicesPresent() {
        Findings f = new Findings(Check.RDMA_DEVICES_PRESENT);
        if (facts.envIs("NCCL_IB_DISABLE", "1")) {
            return f.evidence("env NCCL_IB_DISABLE", "1")
                    .skip("NCCL_IB_DISABLE=1 turns NCCL's RDMA transport off on purpose (see env-transport-overrides)");
        }
        if (facts.envIs("NCCL_NET", "Socket")) {
            return f.evidence("env NCCL_NET", facts.env("NCCL_NET"))
                    .skip("NCCL_NET=Socket selects TCP sockets on purpose (see env-transport-overrides)");
        }
        List<HostFacts.RdmaDevice> devices = facts.rdmaDevices();
        for (HostFacts.RdmaDevice d : devices) f.evidence("/sys/class/infiniband/" + d.name(), describe(d));
        if (!devices.isEmpty()) {
            List<String> names = new ArrayList<>();
            for (HostFacts.RdmaDevice d : devices) names.add(d.name());
            return f.ok(devices.size() + " RDMA device" + (devices.size() == 1 ? "" : "s") + ": "
                    + String.join(", ", names) + ".");
        }
        List<HostFacts.PciFunction> mellanox = facts.mellanoxFunctions();
        for (HostFacts.PciFunction m : mellanox) {
            f.evidence(
                    "/sys/bus/pci/devices/" + m.bdf(),
                    "15b3:" + strip0x(m.device()) + " driver " + (m.driver() == null ? "none" : m.driver()));
        }
        for (String module : List.of("ib_core", "ib_uverbs", "mlx5_ib")) {
            f.evidence(
                    "/sys/module/" + module,
                    facts.files().isDirectory("/sys/module/" + module) ? "loaded" : "not loaded");
        }
        if (facts.envIs("NCCL_NET", "IB")) {
            return f.evidence("env NCCL_NET", "IB")
                    .fail(
                            "NCCL_NET=IB but there is no RDMA device: NCCL will fail to initialize its network.",
                            "load the RDMA drivers (sudo modprobe mlx5_ib ib_uverbs) or install rdma-core/MOFED; "
                                    + "in Kubernetes request the RDMA resource",
                            "or unset NCCL_NET to let NCCL fall back to sockets");
        }
        if (!mellanox.isEmpty()) {
            boolean mlx5ib = facts.files().isDirectory("/sys/module/mlx5_ib");
            return f.warn(
                    "Found " + mellanox.size() + " Mellanox PCI function" + (mellanox.size() == 1 ? "" : "s")
                            + " but no RDMA devices" + (mlx5ib ? "" : " (mlx5_ib not loaded)")
                            + ". Collectives will use TCP sockets.",
                    "sudo modprobe mlx5_ib ib_uverbs (on the host); install rdma-core or MOFED",
                    "in Kubernetes: request the RDMA device-plugin resource for the pod");
        }
        return f.skip("no RDMA device and no RDMA-capable PCI function: collectives use TCP sockets "
                + "(Jccl: tcp between hosts, shm within one)");
    }

    /** C2 {@code rdma-devnodes-container}. */
    CheckResult devnodesContainer() {
        Findings f = new Findings(Check.RDMA_DEVNODES_CONTAINER);
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        Map<String, String> nodeOf = new LinkedHashMap<>();
        for (String uverbs : facts.files().list("/sys/class/infiniband_verbs", "uverbs*")) {
            String ibdev = facts.files().read("/sys/class/infiniband_verbs/" + uverbs + "/ibdev");
            if (ibdev != null) nodeOf.put(ibdev, uverbs);
        }
        f.fileIfPresent(facts.files(), "/sys/class/infiniband_verbs/abi_version");
        f.fileIfPresent(facts.files(), "/sys/module/ib_core/parameters/netns_mode");
        List<String> usable = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<HostFacts.RdmaDevice> devices = facts.selectedDevices();
        for (HostFacts.RdmaDevice d : devices) {
            String uverbs = nodeOf.get(d.name());
            if (uverbs == null) {
                f.evidence("/sys/class/infiniband_verbs/*/ibdev", "no node for " + d.name());
                problems.add(d.name() + " has no uverbs device in /sys/class/infiniband_verbs (ib_uverbs not loaded)");
                continue;
            }
            String node = "/dev/infiniband/" + uverbs;
            DeviceAccess access = facts.host().sources().openDevice(node);
            f.evidence("open(" + node + ", O_RDWR)", access.word);
            if (access.usable()) {
                usable.add(d.name());
            } else {
                problems.add(d.name() + " is visible in /sys but " + node
                        + (access == DeviceAccess.ABSENT
                                ? " is not present" + (facts.runtime().inContainer() ? " in this container" : "")
                                : " cannot be opened read-write (" + access.word + ")"));
            }
        }
        f.evidence("/dev/infiniband/rdma_cm", facts.files().exists("/dev/infiniband/rdma_cm") ? "exists" : "absent");
        String[] fix = {
            "Docker: --device=/dev/infiniband (or each uverbsN and rdma_cm) --cap-add=IPC_LOCK --ulimit memlock=-1",
            "Kubernetes: request the RDMA / SR-IOV device-plugin resource and add the IPC_LOCK capability"
        };
        if (problems.isEmpty()) {
            return f.ok("Every RDMA device has an openable node: " + String.join(", ", usable) + ".");
        }
        if (usable.isEmpty()) {
            return f.fail(
                    String.join("; ", problems) + " — RDMA cannot be used; collectives will fall back to TCP.", fix);
        }
        return f.warn(
                String.join("; ", problems) + " — NCCL skips it (\"NET/IB : Unable to open device\"); " + usable.size()
                        + " of " + devices.size() + " usable.",
                fix);
    }

    /** C3 {@code rdma-userspace-stack}. */
    CheckResult userspaceStack() {
        Findings f = new Findings(Check.RDMA_USERSPACE_STACK);
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        String[] installFix = {
            "Debian/Ubuntu: apt-get install libibverbs1 ibverbs-providers; RHEL: dnf install rdma-core libibverbs",
            "or bind-mount the host's MOFED user space into the container"
        };
        HostFacts.Verbs verbs = facts.verbs();
        String first = facts.rdmaDevices().getFirst().name();
        if (verbs == null) {
            f.evidence("libibverbs.so.1", "not in " + String.join(", ", facts.libraryDirs()));
            return f.fail(
                    "RDMA device " + first
                            + " present but the image has no libibverbs.so.1. Verbs will report no devices.",
                    installFix);
        }
        f.evidence(verbs.path(), verbs.realName());
        f.evidence(
                "rdma-core",
                verbs.rdmaCore() == null ? "unknown (not an rdma-core file name; MOFED?)" : verbs.rdmaCore());
        String verbsDir = HostFiles.parentOf(verbs.path());
        List<String> providers = new ArrayList<>();
        for (HostFacts.RdmaDevice d : facts.selectedDevices()) {
            String provider = providerOf(d);
            if (providers.contains(provider)) continue;
            providers.add(provider);
            List<String> found = new ArrayList<>();
            for (String dir : facts.libraryDirs()) {
                for (String name : facts.files().list(dir + "/libibverbs", "lib" + provider + "-rdmav*.so")) {
                    found.add(dir + "/libibverbs/" + name);
                }
            }
            String config = "/etc/libibverbs.d/" + provider + ".driver";
            f.evidence(
                    verbsDir + "/libibverbs/lib" + provider + "-rdmav*.so",
                    found.isEmpty() ? null : String.join(" ", found));
            f.evidence(config, facts.files().read(config));
            if (found.isEmpty()) {
                f.problem(
                        Verdict.FAIL,
                        "RDMA device " + d.name() + " present but the image has no lib" + provider + " provider ("
                                + verbsDir + "/libibverbs/lib" + provider
                                + "-rdmav*.so). Verbs will report no devices.",
                        installFix);
            }
        }
        Version rc = verbs.rdmaCore();
        if (rc != null && rc.below("28")) {
            f.problem(
                    Verdict.WARN,
                    "rdma-core " + rc
                            + " is older than 28: no relaxed ordering (IBVERBS_1.8) and no DMA-BUF memory registration",
                    "update rdma-core (≥ 34) in the image");
        } else if (rc != null && rc.below("34")) {
            f.problem(
                    Verdict.WARN,
                    "rdma-core " + rc + " is older than 34: no DMA-BUF memory registration (ibv_reg_dmabuf_mr)",
                    "update rdma-core (≥ 34) in the image");
        }
        return f.conclude("libibverbs (rdma-core " + (rc == null ? "version unknown" : rc) + ") and the "
                + String.join(", ", providers) + " provider" + (providers.size() == 1 ? " are" : "s are")
                + " installed.");
    }

    /** The rdma-core provider for a device: from its PCI driver, else from its name ({@code rxe0} → rxe). */
    static String providerOf(HostFacts.RdmaDevice d) {
        if (d.driver() != null && PROVIDERS.containsKey(d.driver())) return PROVIDERS.get(d.driver());
        return d.name().replaceFirst("_?\\d+$", "");
    }

    private static String describe(HostFacts.RdmaDevice d) {
        List<String> ports = new ArrayList<>();
        for (HostFacts.RdmaPort p : d.ports()) ports.add("port " + p.number() + " " + p.linkLayer() + " " + p.state());
        return (d.hcaType() == null ? "" : d.hcaType() + " ")
                + (d.bdf() == null ? "(no PCI function)" : d.bdf())
                + (d.driver() == null ? "" : " " + d.driver())
                + (ports.isEmpty() ? "" : ", " + String.join(", ", ports));
    }

    static String strip0x(String s) {
        return s == null ? "?" : s.startsWith("0x") ? s.substring(2) : s;
    }
}
