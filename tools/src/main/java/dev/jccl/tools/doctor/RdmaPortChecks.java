package dev.jccl.tools.doctor;

import dev.jccl.topology.IbHcaFilter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** C4–C8: the state of RDMA ports, the InfiniBand subnet manager, RoCE GIDs and MTU, and HCA filters. */
record RdmaPortChecks(HostFacts facts) {
    private static final Pattern RATE = Pattern.compile("^(\\d+(?:\\.\\d+)?) Gb/sec");

    /** C4 {@code rdma-port-state}. */
    CheckResult portState() {
        Findings f = new Findings(Check.RDMA_PORT_STATE);
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        List<HostFacts.RdmaPort> ports = facts.selectedPorts();
        if (ports.isEmpty()) return f.skip("the RDMA devices have no ports in /sys/class/infiniband/*/ports");
        List<HostFacts.RdmaPort> active = new ArrayList<>();
        for (HostFacts.RdmaPort p : ports) {
            f.evidence(
                    p.path(),
                    "state " + p.state() + ", phys_state " + p.physState() + ", " + p.linkLayer() + ", " + p.rate());
            if (p.active()) active.add(p);
        }
        String[] fix = {
            "InfiniBand: check cabling and the subnet manager (ib-subnet-manager); compare with ibstat / ibstatus",
            "RoCE: ip link set <netdev> up; check the switch port"
        };
        if (active.isEmpty()) {
            return f.fail(
                    "No selected RDMA port is ACTIVE (" + describeStates(ports)
                            + "): NCCL skips ports that are not, so RDMA will not be used.",
                    fix);
        }
        for (HostFacts.RdmaPort p : ports) {
            if (!p.active()) {
                f.problem(
                        Verdict.WARN,
                        p.device() + " port " + p.number() + " is \"" + p.state() + "\""
                                + (p.linkUp() && p.state() != null && p.state().startsWith("2")
                                        ? " (link up, not configured)"
                                        : "")
                                + " — NCCL will skip it; " + active.size() + " of " + ports.size() + " rails usable",
                        fix);
            } else if (!p.linkUp()) {
                f.problem(
                        Verdict.WARN,
                        p.label() + " is ACTIVE but its physical state is \"" + p.physState() + "\"",
                        fix);
            }
        }
        // A port slower than another of the same model has most likely trained down.
        Map<String, Double> fastest = new LinkedHashMap<>();
        for (HostFacts.RdmaPort p : active) {
            Double rate = rate(p);
            if (rate != null) fastest.merge(model(p), rate, Math::max);
        }
        for (HostFacts.RdmaPort p : active) {
            Double rate = rate(p);
            Double best = fastest.get(model(p));
            if (rate != null && best != null && rate < best) {
                f.problem(
                        Verdict.WARN,
                        p.label() + " runs at " + p.rate() + ", slower than other " + model(p) + " ports ("
                                + (best == Math.rint(best) ? String.valueOf(best.longValue()) : best) + " Gb/sec)",
                        "check the cable, transceiver and switch port of " + p.label());
            }
        }
        Set<String> layers = new LinkedHashSet<>();
        for (HostFacts.RdmaPort p : active) layers.add(p.linkLayer());
        if (layers.size() > 1) {
            f.problem(
                    Verdict.WARN,
                    "the selected ports mix link layers (" + String.join(" and ", layers) + "); NCCL refuses to merge "
                            + "devices of different link layers",
                    "select ports of one kind with NCCL_IB_HCA");
        }
        return f.conclude((ports.size() == 1
                        ? "The selected port " + ports.getFirst().label() + " is"
                        : "All " + ports.size() + " selected ports are")
                + " ACTIVE and LinkUp (" + String.join(", ", layers) + ").");
    }

    /** C5 {@code ib-subnet-manager}. */
    CheckResult subnetManager() {
        Findings f = new Findings(Check.IB_SUBNET_MANAGER);
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        List<HostFacts.RdmaPort> ib = new ArrayList<>();
        for (HostFacts.RdmaPort p : facts.selectedPorts()) {
            if (p.infiniBand()) ib.add(p);
        }
        if (ib.isEmpty()) {
            return f.skip("no InfiniBand port (the RDMA ports are RoCE): there is no subnet manager to look for");
        }
        for (HostFacts.RdmaPort p : ib) {
            f.evidence(
                    p.path(),
                    "state " + p.state() + ", phys_state " + p.physState() + ", lid " + p.lid() + ", sm_lid "
                            + p.smLid());
            boolean notConfigured =
                    p.state() != null && (p.state().startsWith("2") || p.state().startsWith("3"));
            if (p.linkUp() && (notConfigured || isZero(p.lid()) || isZero(p.smLid()))) {
                f.problem(
                        Verdict.FAIL,
                        p.label() + " has link but no Subnet Manager (state " + stateWord(p.state()) + ", lid "
                                + p.lid() + ", sm_lid " + p.smLid() + "). InfiniBand traffic cannot flow",
                        "run a subnet manager on one node or switch (opensm); check with: sudo sminfo");
            }
        }
        return f.conclude("Every InfiniBand port with link has a LID and sees a subnet manager.");
    }

    /** What a RoCE check looks at: the selected RoCE ports, and the GID family NCCL wants on them. */
    @FunctionalInterface
    private interface RoceCheck {
        CheckResult run(Findings f, List<HostFacts.RdmaPort> roce, GidTable.Wanted wanted);
    }

    /** C6 and C7 look at RoCE ports only, and skip alike where there are none (or no RDMA at all). */
    private CheckResult onRocePorts(Check check, RoceCheck body) {
        Findings f = new Findings(check);
        if (!facts.hasRdma()) return f.skip(facts.noRdmaReason());
        List<HostFacts.RdmaPort> roce = rocePorts();
        if (roce.isEmpty()) return f.skip("no RoCE port (link layer Ethernet) among the selected RDMA ports");
        GidTable.Wanted wanted = GidTable.Wanted.fromEnvironment(facts);
        return body.run(f, roce, wanted);
    }

    /** C6 {@code roce-gid-v2}. */
    CheckResult roceGid() {
        return onRocePorts(Check.ROCE_GID_V2, this::roceGid);
    }

    private CheckResult roceGid(Findings f, List<HostFacts.RdmaPort> roce, GidTable.Wanted wanted) {
        Version nccl = facts.oldestNccl();
        String forcedText = facts.env("NCCL_IB_GID_INDEX");
        Integer forced = null;
        if (forcedText != null) {
            f.evidence("env NCCL_IB_GID_INDEX", forcedText);
            try {
                forced = Integer.parseInt(forcedText);
            } catch (NumberFormatException e) {
                f.evidence("NCCL_IB_GID_INDEX", "not an integer: NCCL reads it as 0 (see env-nccl-unknown)");
                forced = 0;
            }
        }
        f.evidence(
                "NCCL",
                facts.hasNccl() ? facts.ncclDescription() : "not found: assuming NCCL ≥ 2.21 (automatic GID choice)");
        String family = wanted.family() == 4 ? "IPv4" : "IPv6";
        List<String> choices = new ArrayList<>();
        for (HostFacts.RdmaPort p : roce) {
            GidTable table = GidTable.read(facts.files(), p.path());
            List<GidTable.Gid> entries = table.nonEmpty();
            for (GidTable.Gid g : entries.subList(0, Math.min(entries.size(), 8))) {
                f.evidence(p.path() + "/gids/" + g.index(), g.describe());
            }
            int auto = table.autoIndex(wanted);
            GidTable.Gid autoGid = table.get(auto);
            GidTable.Gid usable = table.firstAcceptable(wanted);
            String autoText = "index " + auto + (autoGid == null ? "" : " (" + autoGid.describe() + ")");
            f.evidence(p.label() + " automatic choice (NCCL ≥ 2.21)", autoText);
            String[] ipFix = {
                "give " + (autoGid != null && autoGid.ndev() != null ? autoGid.ndev() : "the port's netdev") + " an "
                        + family + " address (RoCE v2 GIDs appear with the address)"
            };
            if (usable == null) {
                f.problem(
                        Verdict.FAIL,
                        "no RoCE v" + wanted.roceVersion() + " GID with an " + family + " address on " + p.label()
                                + " (no address on its netdev?): RoCE v" + wanted.roceVersion() + " cannot be used",
                        ipFix);
                continue;
            }
            choices.add(p.label() + " → GID " + auto + " (" + autoGid.describe() + ")");
            String best = "RoCE v2/" + family + " GID is index " + usable.index() + " (" + usable.address()
                    + (usable.ndev() == null ? "" : " on " + usable.ndev()) + ")";
            String[] forcedFix = {
                "NCCL ≥ 2.21: unset NCCL_IB_GID_INDEX (or set it to -1), optionally NCCL_IB_ADDR_RANGE=<cidr>",
                "NCCL < 2.21: set NCCL_IB_GID_INDEX per host from show_gids"
            };
            if (forced != null && forced >= 0) {
                GidTable.Gid g = table.get(forced);
                String at = "NCCL_IB_GID_INDEX=" + forced + " but GID " + forced + " on " + p.label();
                String symptom = ". QP setup will fail with \"ibv_modify_qp … Invalid argument\"";
                if (g == null || g.zero()) {
                    f.problem(Verdict.FAIL, at + " is empty. " + best + symptom, forcedFix);
                } else if (g.linkLocal()) {
                    f.problem(
                            Verdict.FAIL,
                            at + " is link-local (" + g.text() + "), not routable. " + best + symptom,
                            forcedFix);
                } else if (g.version() < 0) {
                    f.problem(Verdict.FAIL, at + " has no readable type (unpopulated). " + best + symptom, forcedFix);
                } else if (g.version() == 1 && table.hasRoceV2()) {
                    f.problem(Verdict.FAIL, at + " is RoCE v1 while RoCE v2 exists. " + best, forcedFix);
                } else if (forced != auto) {
                    f.problem(
                            Verdict.WARN,
                            "NCCL_IB_GID_INDEX=" + forced + " is usable on " + p.label() + " but NCCL would choose "
                                    + auto + " itself; GID indexes are per host and may differ between nodes",
                            forcedFix);
                }
                if (nccl != null && nccl.atLeast("2.21")) {
                    f.problem(
                            Verdict.WARN,
                            "NCCL " + nccl + " chooses the GID itself; its documentation says NCCL_IB_GID_INDEX should "
                                    + "not be set",
                            forcedFix);
                }
            } else if (forced == null && nccl != null && nccl.below("2.21")) {
                GidTable.Gid zero = table.get(0);
                if (!wanted.accepts(zero)) {
                    f.problem(
                            Verdict.FAIL,
                            "NCCL " + nccl + " uses GID index 0 when NCCL_IB_GID_INDEX is unset, and GID 0 on "
                                    + p.label() + " is " + (zero == null ? "empty" : zero.describe()) + ". " + best,
                            "set NCCL_IB_GID_INDEX=" + usable.index()
                                    + " on this host (indexes are per host: check each with show_gids)",
                            "or upgrade NCCL to ≥ 2.21, which chooses by itself");
                }
            }
        }
        return f.conclude(
                "NCCL's GID choice is a routable RoCE v2/" + family + " entry: " + String.join(", ", choices) + ".");
    }

    /** C7 {@code roce-mtu}. */
    CheckResult roceMtu() {
        return onRocePorts(Check.ROCE_MTU, this::roceMtu);
    }

    private CheckResult roceMtu(Findings f, List<HostFacts.RdmaPort> roce, GidTable.Wanted wanted) {
        Set<Integer> roceMtus = new TreeSet<>();
        String fix = "ip link set <netdev> mtu 9000 on every host, and jumbo frames on the switches (the whole path)";
        for (HostFacts.RdmaPort p : roce) {
            String ndev = netdevOf(p, wanted);
            if (ndev == null) {
                f.evidence(p.path() + "/gid_attrs/ndevs", "no netdev");
                f.problem(
                        Verdict.WARN,
                        "the netdev of " + p.label() + " is unknown, so its RoCE MTU cannot be told",
                        fix);
                continue;
            }
            String mtuText = facts.files().read("/sys/class/net/" + ndev + "/mtu");
            int mtu;
            try {
                mtu = Integer.parseInt(mtuText);
            } catch (NumberFormatException | NullPointerException e) {
                f.evidence("/sys/class/net/" + ndev + "/mtu", mtuText);
                f.problem(Verdict.WARN, "the MTU of " + ndev + " (" + p.label() + ") cannot be read", fix);
                continue;
            }
            int roceMtu = roceMtu(mtu);
            roceMtus.add(roceMtu);
            f.evidence("/sys/class/net/" + ndev + "/mtu", mtu + " ⇒ RoCE MTU " + roceMtu + " for " + p.label());
            if (roceMtu < 4096) {
                f.problem(
                        Verdict.WARN,
                        ndev + " has MTU " + mtu + " ⇒ RoCE MTU " + roceMtu + " for " + p.device()
                                + ". Jumbo frames (9000 end-to-end) give RoCE MTU 4096",
                        fix);
            }
        }
        if (roceMtus.size() > 1) {
            f.problem(
                    Verdict.WARN,
                    "RoCE MTUs differ between the selected ports (" + roceMtus
                            + "): each connection uses the smaller side's",
                    fix);
        }
        return f.conclude("RoCE MTU 4096 on every selected RoCE port.");
    }

    /** C8 {@code rdma-hca-filter}. */
    CheckResult hcaFilter() {
        Findings f = new Findings(Check.RDMA_HCA_FILTER);
        List<String> variables = new ArrayList<>();
        for (String v : List.of("NCCL_IB_HCA", "JCCL_IB_HCA", "UCX_NET_DEVICES")) {
            if (facts.env(v) != null) variables.add(v);
        }
        if (variables.isEmpty()) {
            return f.skip("NCCL_IB_HCA, JCCL_IB_HCA and UCX_NET_DEVICES are unset: every RDMA port may be used");
        }
        if (facts.envIs("NCCL_IB_DISABLE", "1") || facts.envIs("NCCL_NET", "Socket")) {
            return f.skip("NCCL's RDMA transport is off (NCCL_IB_DISABLE=1 or NCCL_NET=Socket), so "
                    + "its HCA filter does not matter");
        }
        List<String> deviceNames = new ArrayList<>();
        for (HostFacts.RdmaDevice d : facts.rdmaDevices()) deviceNames.add(d.name());
        Set<String> ncclDevices = null;
        List<String> okParts = new ArrayList<>();
        for (String variable : List.of("NCCL_IB_HCA", "JCCL_IB_HCA")) {
            String value = facts.env(variable);
            if (value == null) continue;
            f.evidence("env " + variable, value);
            IbHcaFilter filter = IbHcaFilter.parse(value);
            List<HostFacts.RdmaPort> selected = new ArrayList<>();
            for (HostFacts.RdmaPort p : facts.allPorts()) {
                if (filter.selects(p.device(), p.number())) selected.add(p);
            }
            Set<String> devices = new LinkedHashSet<>();
            for (HostFacts.RdmaPort p : selected) devices.add(p.device());
            if (variable.equals("NCCL_IB_HCA")) ncclDevices = devices;
            List<String> activeLabels = new ArrayList<>();
            for (HostFacts.RdmaPort p : selected) {
                if (p.active()) activeLabels.add(p.label());
            }
            String exactForm = variable + "==" + String.join(",", devices.isEmpty() ? deviceNames : devices);
            if (activeLabels.isEmpty()) {
                f.problem(
                        Verdict.FAIL,
                        variable + "=" + value + " matches no ACTIVE port ("
                                + (deviceNames.isEmpty()
                                        ? "no RDMA device here"
                                        : "devices here: " + String.join(", ", deviceNames))
                                + "): RDMA will not be used",
                        "name existing, ACTIVE devices: "
                                + (deviceNames.isEmpty() ? variable + "==<device>" : exactForm));
                continue;
            }
            if (!filter.exact() && !filter.exclude()) {
                for (IbHcaFilter.Entry e : filter.entries()) {
                    List<String> matched = filter.devicesMatching(e, deviceNames);
                    if (matched.size() >= 2) {
                        f.problem(
                                Verdict.WARN,
                                variable + "=" + value + " is a prefix list: " + e.name() + " selects "
                                        + String.join(", ", matched) + " (" + matched.size() + " devices)",
                                "use exact names: " + exactForm + " (leading '=')");
                    }
                }
            }
            for (HostFacts.RdmaPort p : selected) {
                if (!p.active()) {
                    f.problem(
                            Verdict.WARN,
                            variable + " selects " + p.label() + ", which is not ACTIVE (" + p.state() + ")",
                            "leave " + p.label() + " out of " + variable);
                }
            }
            okParts.add(variable + "=" + value + " selects " + String.join(", ", activeLabels)
                    + (filter.exact() || filter.exclude() ? "" : " (the exact form " + exactForm + " is safer)"));
        }
        String ucx = facts.env("UCX_NET_DEVICES");
        if (ucx != null) {
            f.evidence("env UCX_NET_DEVICES", ucx);
            Set<String> ucxDevices = new LinkedHashSet<>();
            for (String entry : ucx.split(",")) {
                String name = entry.trim().split(":")[0];
                if (entry.contains(":") && !name.isEmpty()) ucxDevices.add(name);
            }
            ucxDevices.retainAll(deviceNames); // UCX also takes netdevs (eth0) and "all": only RDMA devices compare
            if (ncclDevices != null && !ucxDevices.isEmpty() && !ucxDevices.equals(ncclDevices)) {
                f.problem(
                        Verdict.WARN,
                        "NCCL_IB_HCA selects " + ncclDevices + " but UCX_NET_DEVICES names " + ucxDevices
                                + ": MPI/UCX and NCCL will use different NICs",
                        "name the same devices in both variables");
            }
            okParts.add("UCX_NET_DEVICES=" + ucx);
        }
        return f.conclude(String.join("; ", okParts) + ".");
    }

    /** The selected ports whose link layer is Ethernet. */
    private List<HostFacts.RdmaPort> rocePorts() {
        List<HostFacts.RdmaPort> out = new ArrayList<>();
        for (HostFacts.RdmaPort p : facts.selectedPorts()) {
            if (p.ethernet()) out.add(p);
        }
        return out;
    }

    /** The port's netdev: the one of NCCL's GID, else any GID's, else the PCI function's net/ directory. */
    private String netdevOf(HostFacts.RdmaPort p, GidTable.Wanted wanted) {
        GidTable table = GidTable.read(facts.files(), p.path());
        GidTable.Gid chosen = table.get(table.autoIndex(wanted));
        if (chosen != null && chosen.ndev() != null) return chosen.ndev();
        for (GidTable.Gid g : table.nonEmpty()) {
            if (g.ndev() != null) return g.ndev();
        }
        HostFacts.RdmaDevice d = facts.rdmaDevice(p.device());
        if (d != null && d.pciPath() != null) {
            List<String> nets = facts.files().list(d.pciPath() + "/net");
            if (!nets.isEmpty()) return nets.getFirst();
        }
        return null;
    }

    /** The kernel's iboe_get_mtu: the netdev MTU less 96 bytes of RoCE headers, down to an IB MTU. */
    static int roceMtu(int netdevMtu) {
        int payload = netdevMtu - 96;
        for (int m : new int[] {4096, 2048, 1024, 512, 256}) {
            if (payload >= m) return m;
        }
        return 0;
    }

    /** The port's NIC model (hca_type, e.g. MT4129), else its driver's name stem. */
    private String model(HostFacts.RdmaPort p) {
        HostFacts.RdmaDevice d = facts.rdmaDevice(p.device());
        return d != null && d.hcaType() != null ? d.hcaType() : p.device().replaceFirst("_?\\d+$", "");
    }

    private static Double rate(HostFacts.RdmaPort p) {
        if (p.rate() == null) return null;
        Matcher m = RATE.matcher(p.rate());
        return m.find() ? Double.valueOf(m.group(1)) : null;
    }

    private static boolean isZero(String hex) {
        if (hex == null) return true;
        try {
            return Long.decode(hex.trim()) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String stateWord(String state) {
        if (state == null) return "unknown";
        int colon = state.indexOf(':');
        return colon < 0 ? state : state.substring(colon + 1).trim();
    }

    private static String describeStates(List<HostFacts.RdmaPort> ports) {
        List<String> s = new ArrayList<>();
        for (HostFacts.RdmaPort p : ports) s.add(p.label() + " \"" + p.state() + "\"");
        return String.join(", ", s);
    }
}
