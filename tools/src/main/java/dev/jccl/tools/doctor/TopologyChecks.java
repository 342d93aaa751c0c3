package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** E1–E5: GPU↔NIC distance, NUMA placement, ACS/IOMMU, PCIe link training, relaxed ordering in VMs. */
record TopologyChecks(HostFacts facts) {
    /** Mellanox/NVIDIA VF device ids (mlx5 core PCI table): Connect-IB … ConnectX-8 VFs, BlueField VF. */
    static final Set<String> MELLANOX_VF_IDS =
            Set.of("0x1012", "0x1014", "0x1016", "0x1018", "0x101a", "0x101c", "0x101e", "0xa2d3");

    private static final Pattern SPEED = Pattern.compile("^(\\d+(?:\\.\\d+)?) GT/s");

    /** A GPU and the selected NIC nearest to it. */
    private record Pair(String gpu, String gpuPath, HostFacts.RdmaDevice nic, PciDistance distance) {}

    /** For each GPU whose path resolves, its nearest selected NIC (with a PCI function). */
    private List<Pair> nearestPairs() {
        List<Pair> pairs = new ArrayList<>();
        for (String bdf : facts.gpuBusIds()) {
            String gpuPath = facts.pciPath(bdf);
            if (gpuPath == null) continue;
            Pair best = null;
            for (HostFacts.RdmaDevice nic : facts.selectedDevices()) {
                if (nic.pciPath() == null) continue;
                PciDistance d = PciDistance.between(gpuPath, numa(gpuPath), nic.pciPath(), numa(nic.pciPath()));
                if (best == null || d.compareTo(best.distance()) < 0) best = new Pair(bdf, gpuPath, nic, d);
            }
            if (best != null) pairs.add(best);
        }
        return pairs;
    }

    private String notGpuAndRdma() {
        if (!facts.hasGpu()) return facts.noGpuReason();
        if (!facts.hasRdma()) return facts.noRdmaReason();
        return null;
    }

    /** E1 {@code topo-gpu-nic-distance}. */
    CheckResult gpuNicDistance() {
        Findings f = new Findings(Check.TOPO_GPU_NIC_DISTANCE);
        String skip = notGpuAndRdma();
        if (skip != null) return f.skip(skip);
        String topoFile = facts.env("NCCL_TOPO_FILE");
        if (topoFile != null) {
            boolean exists = facts.files().exists(topoFile);
            f.evidence("env NCCL_TOPO_FILE", topoFile + (exists ? "" : " (missing)"));
            if (exists) {
                return f.ok("NCCL_TOPO_FILE=" + topoFile
                        + " describes the topology; NCCL does not read it from the PCI tree.");
            }
            f.problem(
                    Verdict.WARN,
                    "NCCL_TOPO_FILE=" + topoFile + " does not exist",
                    "point NCCL_TOPO_FILE at the cloud's topology file, or unset it");
        }
        String levelText = facts.env("NCCL_NET_GDR_LEVEL");
        PciDistance cutoff = PciDistance.parseLevel(levelText);
        if (cutoff == null) cutoff = PciDistance.PXB;
        f.evidence(
                "GPU Direct RDMA cutoff",
                cutoff + (levelText == null ? " (NCCL's default)" : " (NCCL_NET_GDR_LEVEL=" + levelText + ")"));
        List<Pair> pairs = nearestPairs();
        List<String> okParts = new ArrayList<>();
        for (Pair p : pairs) {
            f.evidence(
                    "GPU " + p.gpu() + " ↔ " + p.nic().name() + " (" + p.nic().bdf() + ")",
                    p.distance() + ": " + p.gpuPath() + " | " + p.nic().pciPath());
            if (p.distance().compareTo(cutoff) > 0) {
                f.problem(
                        Verdict.WARN,
                        "GPU " + p.gpu() + " and NIC " + p.nic().name() + " ("
                                + p.nic().bdf() + ") " + describe(p.distance()) + " (" + p.distance()
                                + "). NCCL will not use GPU Direct RDMA for this pair (cutoff " + cutoff + ")",
                        "real hardware: use the NIC behind the GPU's PCIe switch (NCCL_IB_HCA), or NCCL_NET_GDR_LEVEL="
                                + p.distance() + " after measuring",
                        "VMs: give NCCL the cloud's topology file with NCCL_TOPO_FILE");
            } else {
                okParts.add(p.gpu() + " ↔ " + p.nic().name() + " " + p.distance());
            }
        }
        if (pairs.isEmpty()) return f.skip("no GPU and NIC with resolvable PCI paths (see container-caps-sysfs)");
        return f.conclude("Every GPU has a NIC within " + cutoff + ": " + String.join(", ", okParts) + ".");
    }

    private static String describe(PciDistance d) {
        return switch (d) {
            case PHB -> "only share the host bridge";
            case SYS -> "are on different CPU sockets";
            case PXB -> "are several PCIe switches apart";
            default -> "are " + d;
        };
    }

    /** E2 {@code topo-numa-affinity}. */
    CheckResult numaAffinity() {
        Findings f = new Findings(Check.TOPO_NUMA_AFFINITY);
        String online = facts.files().read("/sys/devices/system/node/online");
        Set<Integer> nodes = HostFacts.cpuList(online);
        if (nodes.size() <= 1) {
            return f.skip("single NUMA node (/sys/devices/system/node/online = " + (online == null ? "absent" : online)
                    + ")");
        }
        if (!facts.hasGpu() && !facts.hasRdma()) return f.skip("no GPU or RDMA device whose NUMA node matters");
        f.evidence("/sys/devices/system/node/online", online);
        String allowedText = facts.files().lineStartingWith("/proc/self/status", "Cpus_allowed_list:");
        allowedText = allowedText == null
                ? null
                : allowedText.substring("Cpus_allowed_list:".length()).trim();
        Set<Integer> allowed = HostFacts.cpuList(allowedText);
        f.evidence("/proc/self/status Cpus_allowed_list", allowedText);
        String fix = "bind each rank to its GPU's socket (numactl --cpunodebind, mpirun --bind-to, "
                + "srun --cpu-bind), as nvidia-smi topo -m shows";
        int gpusNearCpus = 0;
        int gpusWithCpus = 0;
        List<String> far = new ArrayList<>();
        for (String bdf : facts.gpuBusIds()) {
            String path = facts.pciPath(bdf);
            if (path == null) continue;
            int node = numa(path);
            String local = facts.files().read(path + "/local_cpulist");
            f.evidence(path + "/numa_node", node + (local == null ? "" : ", local_cpulist " + local));
            if (node < 0) {
                f.problem(
                        Verdict.WARN,
                        "GPU " + bdf
                                + " has NUMA node -1 (unknown, common in VMs; NCCL before 2.23.4 could crash on it)",
                        "VMs: expose the guest NUMA topology, or give NCCL a topology file (NCCL_TOPO_FILE)");
            }
            Set<Integer> cpus = HostFacts.cpuList(local);
            if (cpus.isEmpty() || allowed.isEmpty()) continue;
            gpusWithCpus++;
            Set<Integer> both = new HashSet<>(cpus);
            both.retainAll(allowed);
            if (both.isEmpty()) far.add(bdf + " (NUMA " + node + ", CPUs " + local + ")");
            else gpusNearCpus++;
        }
        // With several GPUs the process uses one of them; it is misplaced only when near none.
        if (gpusWithCpus > 0 && gpusNearCpus == 0) {
            f.problem(
                    Verdict.WARN,
                    "Process may run on CPUs " + allowedText + " but GPU " + String.join(", ", far) + " "
                            + (far.size() == 1 ? "is" : "are") + " local to other CPUs",
                    fix);
        }
        for (Pair p : nearestPairs()) {
            int gpuNode = numa(p.gpuPath());
            int nicNode = numa(p.nic().pciPath());
            if (gpuNode >= 0 && nicNode >= 0 && gpuNode != nicNode) {
                f.problem(
                        Verdict.WARN,
                        "GPU " + p.gpu() + " (NUMA " + gpuNode + ") and its nearest NIC "
                                + p.nic().name() + " (NUMA " + nicNode + ") are on different NUMA nodes",
                        fix);
            }
        }
        for (HostFacts.RdmaDevice nic : facts.selectedDevices()) {
            if (nic.pciPath() != null && numa(nic.pciPath()) < 0) {
                f.evidence(nic.pciPath() + "/numa_node", "-1");
                f.problem(
                        Verdict.WARN,
                        nic.name() + " has NUMA node -1 (unknown)",
                        "VMs: expose the guest NUMA topology, or use NCCL_TOPO_FILE");
            }
        }
        return f.conclude(
                "CPUs " + allowedText + " include the GPUs' local CPUs, and GPUs and their NICs share NUMA nodes.");
    }

    /** E3 {@code pcie-acs-iommu}. */
    CheckResult acsIommu() {
        Findings f = new Findings(Check.PCIE_ACS_IOMMU);
        if (facts.runtime().vm()) return f.skip("in a VM: the hypervisor needs ACS, so disabling it is not an option");
        String skip = notGpuAndRdma();
        if (skip != null) return f.skip(skip);
        Pair shared = null;
        for (Pair p : nearestPairs()) {
            if (p.distance().sharesSwitch()) {
                shared = p;
                break;
            }
        }
        if (shared == null) {
            return f.skip("no GPU shares a PCIe switch with a NIC, so ACS redirection is not in their way");
        }
        List<String> iommus = facts.files().list("/sys/class/iommu");
        List<String> groups = facts.files().list("/sys/kernel/iommu_groups");
        f.evidence("/sys/class/iommu", iommus.isEmpty() ? "empty" : String.join(" ", iommus));
        f.evidence("/sys/kernel/iommu_groups", groups.size() + " groups");
        List<String> options = facts.files()
                .wordsMatching("/proc/cmdline", w -> w.contains("iommu") || w.startsWith("pci=") || w.contains("acs"));
        f.evidence("/proc/cmdline", options.isEmpty() ? "no IOMMU or ACS options" : String.join(" ", options));
        String confirm = "sudo lspci -vvv | grep ACSCtl";
        if (iommus.isEmpty() && groups.isEmpty()) {
            return f.ok("No IOMMU is registered, so the kernel did not ask for ACS; BIOS or firmware "
                    + "may still set it: check with " + confirm + " (SrcValid+ means on).");
        }
        String groupLink = facts.files().readLink(shared.gpuPath() + "/iommu_group");
        String group = groupLink == null ? null : HostFiles.nameOf(groupLink);
        String type = group == null ? null : facts.files().read("/sys/kernel/iommu_groups/" + group + "/type");
        f.evidence(
                shared.gpuPath() + "/iommu_group",
                group == null ? null : group + (type == null ? "" : " type " + type));
        return f.warn(
                "IOMMU is active"
                        + (group == null ? "" : " (group " + group + (type == null ? "" : " type " + type) + ")")
                        + " and GPU " + shared.gpu() + " shares a PCIe switch with "
                        + shared.nic().name() + ". The kernel likely enabled "
                        + "ACS redirect, forcing GPU↔NIC traffic through the CPU. Confirm with: " + confirm,
                "BIOS: disable IO virtualization (VT-d / AMD-Vi) or ACS",
                "PLX switches: sudo setpci -s <bridge bdf> ECAP_ACS+0x6.w=0000 after each boot",
                "kernel parameter pci=disable_acs_redir=<bridge>[;…] keeps the IOMMU but "
                        + "drops ACS redirect on those bridges");
    }

    /** E4 {@code pcie-link-degraded}. */
    CheckResult linkDegraded() {
        Findings f = new Findings(Check.PCIE_LINK_DEGRADED);
        if (!facts.hasGpu() && !facts.hasRdma()) return f.skip("no GPU or RDMA NIC");
        String fix = "reseat the card or riser, check the BIOS bifurcation setting; check again under load";
        int measured = 0;
        List<String[]> devices = new ArrayList<>();
        for (String bdf : facts.gpuBusIds()) devices.add(new String[] {"GPU " + bdf, facts.pciPath(bdf), "gpu"});
        for (HostFacts.RdmaDevice d : facts.selectedDevices()) {
            if (d.pciPath() != null) devices.add(new String[] {d.name() + " (" + d.bdf() + ")", d.pciPath(), "nic"});
        }
        for (String[] dev : devices) {
            String path = dev[1];
            if (path == null) continue;
            Integer cw = integer(facts.files().read(path + "/current_link_width"));
            Integer mw = integer(facts.files().read(path + "/max_link_width"));
            String cs = facts.files().read(path + "/current_link_speed");
            String ms = facts.files().read(path + "/max_link_speed");
            if (cw == null || mw == null || cw == 0 || mw == 0) continue;
            measured++;
            f.evidence(path, "x" + cw + " of x" + mw + ", " + cs + " of " + ms);
            if (cw < mw) {
                f.problem(
                        Verdict.WARN,
                        dev[0] + " runs at x" + cw + " of x" + mw + " — at most " + fraction(cw, mw)
                                + " of its PCIe bandwidth is reachable",
                        fix);
            }
            Double c = speed(cs);
            Double m = speed(ms);
            if (c != null && m != null && c < m) {
                if (dev[2].equals("nic")) {
                    f.problem(Verdict.WARN, dev[0] + " links at " + cs + " of " + ms, fix);
                } else {
                    f.evidence(dev[0] + " link speed", cs + " of " + ms + " (GPUs lower their link speed when idle)");
                }
            }
        }
        if (measured == 0) {
            return f.skip("no PCIe link attributes (current_link_width) for the GPUs and NICs (VM or old kernel)");
        }
        return f.conclude("Every GPU and NIC link runs at its full width.");
    }

    /** E5 {@code vm-sriov-relaxed-ordering}. */
    CheckResult sriovRelaxedOrdering() {
        Findings f = new Findings(Check.VM_SRIOV_RELAXED_ORDERING);
        if (!facts.runtime().vm()) {
            return f.skip("not a VM: relaxed ordering matters for RDMA through SR-IOV VFs inside VMs");
        }
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        List<HostFacts.RdmaDevice> vfs = new ArrayList<>();
        for (HostFacts.RdmaDevice d : facts.rdmaDevices()) {
            if (d.physfn()
                    || (HostFacts.MELLANOX_VENDOR.equals(d.vendor()) && MELLANOX_VF_IDS.contains(d.deviceId()))) {
                vfs.add(d);
            }
        }
        if (vfs.isEmpty()) return f.skip("no SR-IOV VF among the RDMA devices");
        HostFacts.RdmaDevice vf = vfs.getFirst();
        String vfText = vf.name() + " (" + RdmaDeviceChecks.strip0x(vf.vendor()) + ":"
                + RdmaDeviceChecks.strip0x(vf.deviceId()) + ")";
        for (HostFacts.RdmaDevice d : vfs) {
            f.evidence("/sys/class/infiniband/" + d.name(), "VF " + d.vendor() + ":" + d.deviceId());
        }
        HostFacts.Verbs verbs = facts.verbs();
        f.evidence("rdma-core", verbs == null ? null : verbs.rdmaCore() == null ? verbs.realName() : verbs.rdmaCore());
        String ro = facts.env("NCCL_IB_PCI_RELAXED_ORDERING");
        f.evidenceIfPresent("env NCCL_IB_PCI_RELAXED_ORDERING", ro);
        String plugin = facts.env("NCCL_NET_PLUGIN");
        List<String> pluginFiles = facts.findLibraries("libnccl-net*.so*");
        f.evidenceIfPresent("env NCCL_NET_PLUGIN", plugin);
        if (!pluginFiles.isEmpty()) f.evidence("net plugins", String.join(" ", pluginFiles));
        f.evidenceIfPresent(
                "/proc/driver/nvidia/params NVreg_SetPCIERelaxedOrdering",
                facts.files().lineStartingWith("/proc/driver/nvidia/params", "SetPCIERelaxedOrdering"));
        String roFix = "register memory with IBV_ACCESS_RELAXED_ORDERING (rdma-core ≥ 28)";
        String adminFix = "ask the cloud or hypervisor admin to enable ATS and relaxed ordering on the VF";
        if (verbs != null && verbs.rdmaCore() != null && verbs.rdmaCore().below("28")) {
            return f.fail(
                    "VM with SR-IOV VF " + vfText + " and rdma-core " + verbs.rdmaCore()
                            + ": relaxed ordering needs rdma-core ≥ 28 "
                            + "(IBVERBS_1.8); without it GPU-memory RDMA in VMs can run at a fraction of line rate.",
                    "update rdma-core to ≥ 28 in the image",
                    adminFix);
        }
        if ("0".equals(ro)) {
            return f.fail(
                    "VM with SR-IOV VF " + vfText
                            + " and NCCL_IB_PCI_RELAXED_ORDERING=0: relaxed ordering is off, so GPU-memory "
                            + "RDMA can run at a fraction of line rate.",
                    "unset NCCL_IB_PCI_RELAXED_ORDERING",
                    adminFix);
        }
        if (plugin != null || !pluginFiles.isEmpty()) {
            String name = plugin != null ? plugin : HostFiles.nameOf(pluginFiles.getFirst());
            return f.warn(
                    "VM with SR-IOV VF " + vfText
                            + ". NCCL's IB transport enables relaxed ordering automatically, but the net "
                            + "plugin \"" + name
                            + "\" must register GPU buffers with IBV_ACCESS_RELAXED_ORDERING itself; "
                            + "without it GPU-memory "
                            + "RDMA in VMs can run at a fraction of line rate.",
                    roFix,
                    adminFix);
        }
        return f.ok(
                "VM with SR-IOV VF " + vfText + ": NCCL's IB transport adds relaxed ordering by itself (its log shows "
                        + "\"NET/IB : Using … [RO]\").");
    }

    private int numa(String pciPath) {
        Integer n = integer(facts.files().read(pciPath + "/numa_node"));
        return n == null ? -1 : n;
    }

    private static Integer integer(String s) {
        if (s == null) return null;
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Double speed(String s) {
        if (s == null) return null;
        Matcher m = SPEED.matcher(s.trim());
        return m.find() ? Double.valueOf(m.group(1)) : null;
    }

    private static String fraction(int current, int max) {
        return current * 2 == max ? "half" : current + "/" + max;
    }
}
