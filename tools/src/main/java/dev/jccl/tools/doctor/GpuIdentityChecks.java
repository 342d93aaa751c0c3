package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** G1–G2: which GPU a CUDA index means here, and ranks in sibling containers taken for local peers. */
record GpuIdentityChecks(HostFacts facts) {

    /** G1 {@code gpu-visibility-mapping}. */
    CheckResult visibilityMapping() {
        Findings f = new Findings(Check.GPU_VISIBILITY_MAPPING);
        if (facts.nvidiaDriver() == null) return f.skip("no NVIDIA driver (/proc/driver/nvidia/version absent)");
        List<HostFacts.Gpu> gpus = facts.visibleGpus();
        for (HostFacts.Gpu g : gpus) {
            f.evidence("/proc/driver/nvidia/gpus/" + g.busId(), g.model() + ", " + g.uuid() + ", " + devNode(g));
        }
        String nvidiaVisible = facts.environment().get("NVIDIA_VISIBLE_DEVICES");
        String cudaVisible = facts.environment().get("CUDA_VISIBLE_DEVICES");
        String order = facts.env("CUDA_DEVICE_ORDER");
        f.evidenceIfPresent("env NVIDIA_VISIBLE_DEVICES", nvidiaVisible);
        f.evidenceIfPresent("env CUDA_VISIBLE_DEVICES", cudaVisible);
        f.evidenceIfPresent("env CUDA_DEVICE_ORDER", order);
        String uuidFix = "select GPUs by UUID (CUDA_VISIBLE_DEVICES=GPU-…); inside a one-GPU container "
                + "leave CUDA_VISIBLE_DEVICES unset or 0";
        if (gpus.isEmpty()) {
            return f.fail(
                    "The NVIDIA driver is loaded but this process sees no GPU (/proc/driver/nvidia/gpus "
                            + "is empty): CUDA will find no device.",
                    "give the container its GPUs (--gpus, NVIDIA_VISIBLE_DEVICES, or the Kubernetes "
                            + "nvidia.com/gpu resource)");
        }
        List<HostFacts.Gpu> selected = new ArrayList<>();
        if (cudaVisible == null) {
            selected.addAll(gpus);
        } else if (cudaVisible.isBlank()) {
            return f.fail("CUDA_VISIBLE_DEVICES is set but empty: CUDA sees no GPU.", uuidFix);
        } else {
            String[] entries = cudaVisible.split(",");
            for (int i = 0; i < entries.length; i++) {
                String e = entries[i].trim();
                HostFacts.Gpu g = resolve(e, gpus);
                if (g == null && !e.startsWith("MIG-")) {
                    List<String> dropped = List.of(entries).subList(i, entries.length);
                    String why = "entry '" + e + "' is not a GPU here (this process sees " + gpus.size() + ": "
                            + (gpus.size() == 1 ? "index 0" : "indexes 0–" + (gpus.size() - 1)) + ", or the UUIDs)";
                    if (selected.isEmpty()) {
                        return f.fail(
                                "CUDA_VISIBLE_DEVICES=" + cudaVisible + " selects no usable device: " + why + ".",
                                uuidFix);
                    }
                    f.problem(
                            Verdict.WARN,
                            "CUDA_VISIBLE_DEVICES=" + cudaVisible + ": " + why + ", so CUDA ignores "
                                    + String.join(",", dropped).trim()
                                    + (dropped.size() > 1 ? " (every entry from it on)" : ""),
                            uuidFix);
                    break;
                }
                if (g == null) continue; // MIG-…: cannot be checked from files
                if (selected.contains(g)) {
                    f.problem(
                            Verdict.WARN,
                            "CUDA_VISIBLE_DEVICES=" + cudaVisible + " names GPU " + g.busId() + " twice",
                            uuidFix);
                    continue;
                }
                selected.add(g);
            }
        }
        Set<String> models = new LinkedHashSet<>();
        for (HostFacts.Gpu g : gpus) models.add(g.model());
        if (models.size() > 1 && !"PCI_BUS_ID".equalsIgnoreCase(order)) {
            f.problem(
                    Verdict.WARN,
                    "GPUs of different models " + models + " and no CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA numbers them "
                            + "fastest first, nvidia-smi by bus, so an index may mean different GPUs",
                    "export CUDA_DEVICE_ORDER=PCI_BUS_ID");
        }
        List<String> mapping = new ArrayList<>();
        for (int i = 0; i < selected.size(); i++) {
            HostFacts.Gpu g = selected.get(i);
            String text = "host GPU " + g.busId() + " (" + devNode(g) + ", " + shortUuid(g.uuid()) + ")";
            f.evidence("CUDA device " + i, text);
            mapping.add("CUDA device " + i + " = " + text);
        }
        return f.conclude(String.join("; ", mapping)
                + (facts.runtime().inContainer() ? ". Host index numbers do not apply inside containers." : "."));
    }

    /** An entry of CUDA_VISIBLE_DEVICES: an index (in bus order) or a {@code GPU-} UUID prefix matching one GPU. */
    private static HostFacts.Gpu resolve(String entry, List<HostFacts.Gpu> gpus) {
        if (entry.matches("\\d+")) {
            int i = Integer.parseInt(entry);
            return i < gpus.size() ? gpus.get(i) : null;
        }
        if (entry.startsWith("GPU-")) {
            HostFacts.Gpu found = null;
            for (HostFacts.Gpu g : gpus) {
                if (g.uuid() != null && g.uuid().startsWith(entry)) {
                    if (found != null) return null; // ambiguous prefix
                    found = g;
                }
            }
            return found;
        }
        return null;
    }

    private String devNode(HostFacts.Gpu g) {
        if (g.minor() == null) return "/dev/nvidia?";
        String node = "/dev/nvidia" + g.minor();
        return facts.files().exists(node) ? node : node + " missing";
    }

    private static String shortUuid(String uuid) {
        if (uuid == null) return "no UUID";
        return uuid.length() > 13 ? uuid.substring(0, 13) + "…" : uuid;
    }

    /** G2 {@code cross-container-gpu-ipc}: a risk, since a container cannot see its siblings. */
    CheckResult crossContainerIpc() {
        Findings f = new Findings(Check.CROSS_CONTAINER_GPU_IPC);
        if (!facts.runtime().inContainer()) return f.skip("not in a container");
        if (facts.nvidiaDriver() == null || facts.visibleGpus().isEmpty()) {
            return f.skip("no GPU visible to this container");
        }
        int visible = facts.visibleGpus().size();
        int onHost = facts.pciGpus().size();
        if (onHost <= visible) {
            return f.skip("this container sees all " + visible + " GPU" + (visible == 1 ? "" : "s") + " of the host");
        }
        f.evidence("/proc/driver/nvidia/gpus", visible + " visible");
        f.evidence("/sys/bus/pci/devices (vendor 0x10de)", onHost + " on the host");
        f.evidence("/proc/sys/kernel/hostname", facts.files().read("/proc/sys/kernel/hostname"));
        f.evidence("/proc/sys/kernel/random/boot_id", facts.files().read("/proc/sys/kernel/random/boot_id"));
        f.evidence("/proc/self/ns/ipc", facts.files().readLink("/proc/self/ns/ipc"));
        f.evidence("/proc/self/ns/net", facts.files().readLink("/proc/self/ns/net"));
        for (String v : List.of(
                "NCCL_HOSTID",
                "NCCL_P2P_DISABLE",
                "NCCL_SHM_DISABLE",
                "NCCL_MNNVL_ENABLE",
                "NCCL_IPC_USE_ABSTRACT_SOCKET")) {
            f.evidenceIfPresent("env " + v, facts.env(v));
        }
        HostFacts.LocalRanks local = facts.localRanks();
        if (local != null) f.evidence(local.source(), local.value());
        boolean p2pOff = facts.envIs("NCCL_P2P_DISABLE", "1");

        // Trigger (a): the host's network namespace, hence probably the host's name: NCCL's host id (hostname +
        // boot_id) is shared.
        List<String> hostSigns = new ArrayList<>();
        for (NetInterface nif : facts.interfaces()) {
            String n = nif.name();
            if (n.equals("docker0") || n.equals("cni0") || (!nif.loopback() && facts.isPhysicalInterface(n))) {
                hostSigns.add(n);
            }
        }
        boolean hostNetwork = !hostSigns.isEmpty();
        if (hostNetwork) f.evidence("host network namespace suspected", String.join(", ", hostSigns) + " visible");
        // Trigger (b): one Multi-Node NVLink clique through IMEX channels.
        List<String> imex = facts.files().list("/dev/nvidia-caps-imex-channels", "channel*");
        if (!imex.isEmpty()) f.evidence("/dev/nvidia-caps-imex-channels", String.join(" ", imex));

        String driver = facts.nvidiaDriver().version();
        String driverNote = driver != null && driver.startsWith("570.")
                ? " Driver " + driver + " matches the reported import bug."
                : "";
        String symptom = " If another rank runs in a sibling container on this host, NCCL may connect "
                + "the two with CUDA P2P/cuMem IPC "
                + "to a GPU this container cannot see (seen as \"cuMemImportFromShareableHandle "
                + "… invalid device ordinal\").";
        String[] fix = {
            "run the local ranks in one container/pod that sees all their GPUs (pick "
                    + "with CUDA_VISIBLE_DEVICES), sharing IPC and network namespaces",
            "or make NCCL treat each container as its own node: a distinct NCCL_HOSTID "
                    + "per container (traffic then goes over the NIC)",
            "or NCCL_P2P_DISABLE=1 (and NCCL_SHM_DISABLE=1)",
            "MNNVL-only setups: NCCL_MNNVL_ENABLE=0",
            "NCCL ≥ 2.29 with separate network namespaces: NCCL_IPC_USE_ABSTRACT_SOCKET=0"
        };
        String sees = "This container sees " + visible + " of " + onHost + " host GPUs";
        if (!imex.isEmpty() && !facts.envIs("NCCL_MNNVL_ENABLE", "0") && !p2pOff) {
            return f.warn(
                    sees + " and has IMEX channel /dev/nvidia-caps-imex-channels/" + imex.getFirst() + "." + symptom
                            + driverNote,
                    fix);
        }
        if (hostNetwork && facts.env("NCCL_HOSTID") == null && !p2pOff) {
            return f.warn(
                    sees + " and shares the host's network namespace (" + String.join(", ", hostSigns)
                            + "), so its host name, and NCCL's host id, are probably the host's." + symptom
                            + driverNote,
                    fix);
        }
        return f.ok(sees + "; no sign that ranks in sibling containers would be taken for local peers"
                + (hostNetwork || !imex.isEmpty()
                        ? " (mitigated by " + mitigation() + ")"
                        : " (own network namespace, no IMEX channel)")
                + ".");
    }

    private String mitigation() {
        List<String> m = new ArrayList<>();
        if (facts.env("NCCL_HOSTID") != null) m.add("NCCL_HOSTID");
        if (facts.envIs("NCCL_P2P_DISABLE", "1")) m.add("NCCL_P2P_DISABLE=1");
        if (facts.envIs("NCCL_MNNVL_ENABLE", "0")) m.add("NCCL_MNNVL_ENABLE=0");
        return String.join(", ", m);
    }
}
