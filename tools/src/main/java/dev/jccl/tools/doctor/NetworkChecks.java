package dev.jccl.tools.doctor;

import dev.jccl.Config;
import dev.jccl.bootstrap.LaunchEnvironment;
import dev.jccl.topology.InterfaceSelector;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** H1, H2 and Jccl's own interface check: which interface and ports NCCL and Jccl will use. */
record NetworkChecks(HostFacts facts) {

    /** H1 {@code net-socket-ifname}: NCCL's choice. */
    CheckResult ncclSocketIfname() {
        Findings f = new Findings(Check.NET_SOCKET_IFNAME);
        List<NetInterface> interfaces = facts.interfaces();
        for (NetInterface nif : interfaces) {
            f.evidence("interface " + nif.name(), nif.describe() + " (" + facts.interfaceKind(nif.name()) + ")");
        }
        String ifname = facts.env("NCCL_SOCKET_IFNAME");
        String family = facts.env("NCCL_SOCKET_FAMILY");
        String commId = facts.env("NCCL_COMM_ID");
        for (String v : List.of(
                "NCCL_SOCKET_IFNAME",
                "NCCL_SOCKET_FAMILY",
                "NCCL_COMM_ID",
                "GLOO_SOCKET_IFNAME",
                "OMPI_MCA_btl_tcp_if_include",
                "MASTER_ADDR")) {
            f.evidenceIfPresent("env " + v, facts.env(v));
        }
        Version nccl = facts.oldestNccl();
        NcclSocketChoice.Choice choice = NcclSocketChoice.choose(interfaces, ifname, family, commId, nccl);
        String exactFix = "set NCCL_SOCKET_IFNAME==<interface> (exact name, leading '=') on every node";
        if (choice == null) {
            if (ifname != null) {
                return f.fail(
                        "NCCL_SOCKET_IFNAME=" + ifname
                                + " matches no RUNNING interface with an address: NCCL fails with "
                                + "\"Bootstrap : no socket interface found\".",
                        "name an interface listed in the evidence: " + exactFix);
            }
            return f.fail(
                    "No interface has an address: NCCL cannot bootstrap.",
                    "bring up a network interface with an address");
        }
        String chosen = choice.nif().name() + " (" + choice.address() + ")";
        f.evidence("NCCL would use", chosen + ", rule: " + choice.rule() + (nccl == null ? "" : ", as NCCL " + nccl));
        String routableFix = "run with --network=host or on a routable secondary network (Kubernetes: "
                + "host networking or a Multus/SR-IOV network)";
        if (choice.nif().loopback() || choice.nif().name().startsWith("lo")) {
            f.problem(Verdict.WARN, "NCCL will use " + chosen + ": only ranks on this host can reach it", exactFix);
        } else if (choice.nif().name().startsWith("docker")) {
            f.problem(
                    Verdict.WARN,
                    "NCCL will use the Docker bridge " + chosen + ": other hosts cannot reach it",
                    routableFix,
                    exactFix);
        } else if (NcclSocketChoice.dockerDefaultBridge(choice.address())) {
            f.problem(
                    Verdict.WARN,
                    "NCCL will use " + chosen + ", Docker's default bridge network. Other hosts cannot reach "
                            + "this address; bootstrap will hang",
                    routableFix,
                    exactFix);
        }
        if (!choice.nif().running()) {
            f.problem(
                    Verdict.WARN,
                    "NCCL " + (nccl == null ? "" : nccl + " ") + "may pick " + chosen + ", which is not RUNNING "
                            + "(before 2.28.3 NCCL ignores link state)",
                    exactFix,
                    "or upgrade NCCL to ≥ 2.28.3");
        }
        Set<String> ncclSet = matching(interfaces, ifname);
        for (String other : List.of("GLOO_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include")) {
            String v = facts.env(other);
            if (v == null || ifname == null) continue;
            Set<String> otherSet = other.startsWith("OMPI") ? ompiIncluded(interfaces, v) : matching(interfaces, v);
            Set<String> common = new LinkedHashSet<>(ncclSet);
            common.retainAll(otherSet);
            if (common.isEmpty()) {
                f.problem(
                        Verdict.WARN,
                        "NCCL_SOCKET_IFNAME=" + ifname + " and " + other + "=" + v + " select different interfaces ("
                                + ncclSet + " vs " + otherSet + ")",
                        "keep " + other + " on the same interface as NCCL_SOCKET_IFNAME");
            }
        }
        return f.conclude("NCCL will use " + choice.nif().name() + " " + choice.address() + ": " + choice.rule() + ".");
    }

    /** Jccl's own {@code jccl-socket-ifname}: the interface and address a Jccl rank here would listen on. */
    CheckResult jcclSocketIfname() {
        Findings f = new Findings(Check.JCCL_SOCKET_IFNAME);
        String filter;
        String source = "automatic";
        try {
            Config config = Config.fromEnvironment(facts.environment());
            filter = config.socketIfname();
            for (String[] row : config.describe()) {
                if (row[0].equals("socketIfname") && !row[2].equals("default")) source = row[2];
            }
        } catch (IllegalArgumentException e) {
            // Another variable is malformed (env-jccl-unknown says which); the filter is still readable.
            filter = facts.env("JCCL_SOCKET_IFNAME") != null
                    ? facts.env("JCCL_SOCKET_IFNAME")
                    : facts.env("NCCL_SOCKET_IFNAME");
            source = facts.env("JCCL_SOCKET_IFNAME") != null ? "JCCL_SOCKET_IFNAME" : "NCCL_SOCKET_IFNAME";
        }
        List<InterfaceSelector.Candidate> candidates = new ArrayList<>();
        for (NetInterface nif : facts.interfaces()) {
            if (!(nif.up() && nif.running())) continue;
            NetInterface.Address a = nif.usableAddress();
            if (a != null) candidates.add(new InterfaceSelector.Candidate(nif.name(), a.address()));
        }
        f.evidence(
                "filter",
                filter == null
                        ? "(automatic: ib*, then any but lo/docker*/virbr*, then docker*, then lo)"
                        : filter + " (" + source + ")");
        List<String> listed = new ArrayList<>();
        for (InterfaceSelector.Candidate c : candidates) {
            listed.add(c.name() + " " + c.address().getHostAddress());
        }
        f.evidence("candidates (up, with an address)", listed.isEmpty() ? "none" : String.join(", ", listed));
        InterfaceSelector.Candidate chosen;
        try {
            chosen = InterfaceSelector.select(filter, candidates);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return f.fail(
                    "A Jccl rank here could not listen: " + e.getMessage(),
                    "set JCCL_SOCKET_IFNAME to one of the candidates (a prefix, ^prefix to exclude, =name for exact)");
        }
        InetAddress address = chosen.address();
        String where = chosen.name() + " " + address.getHostAddress();
        boolean automatic = filter == null;
        String singleHost = "fine for jobs on one host (jccl run, perf -np); set JCCL_SOCKET_IFNAME "
                + "to a routable interface for jobs across hosts";
        if (address.isLoopbackAddress() || chosen.name().startsWith("lo")) {
            String text = "Jccl ranks here would listen on " + where + ": other hosts cannot reach it";
            if (automatic) f.problem(Verdict.WARN, text, singleHost);
            else return f.ok(text + " (" + source + " asks for it); " + singleHost + ".");
        } else if (chosen.name().startsWith("docker")
                || (address.getAddress().length == 4
                        && (address.getAddress()[0] & 0xff) == 172
                        && (address.getAddress()[1] & 0xff) == 17)) {
            f.problem(
                    Verdict.WARN,
                    "Jccl ranks here would listen on " + where + ", a Docker bridge address other hosts cannot reach",
                    "run the container with --network=host or a routable network",
                    singleHost);
        }
        return f.conclude("Jccl ranks here would listen on " + where + " ("
                + (automatic ? "automatic choice" : source + "=" + filter) + ").");
    }

    /** H2 {@code net-ports-firewall}. The doctor opens no connections, so this only reports the range. */
    CheckResult portsFirewall() {
        Findings f = new Findings(Check.NET_PORTS_FIREWALL);
        String range = facts.files().read("/proc/sys/net/ipv4/ip_local_port_range");
        if (range == null) return f.skip("/proc/sys/net/ipv4/ip_local_port_range cannot be read");
        String[] parts = range.trim().split("\\s+");
        String ports = parts.length == 2 ? parts[0] + "–" + parts[1] : range.trim();
        f.evidence("/proc/sys/net/ipv4/ip_local_port_range", range.trim().replaceAll("\\s+", " "));
        for (String v : List.of("NCCL_COMM_ID", "MASTER_ADDR", "MASTER_PORT", "JCCL_ROOT", "JCCL_PORT")) {
            f.evidenceIfPresent("env " + v, facts.env(v));
        }
        f.evidence("connection probes", "none (the doctor opens no network connections)");
        String rootPort = facts.env("JCCL_PORT") != null
                ? facts.env("JCCL_PORT")
                : String.valueOf(LaunchEnvironment.DEFAULT_PORT);
        return f.ok(
                "NCCL and Jccl listen on TCP ports " + ports + " (ip_local_port_range); Jccl's root on port " + rootPort
                        + (facts.env("JCCL_PORT") != null ? " (JCCL_PORT)" : " (default)")
                        + ". If a firewall sits between nodes, open these.",
                "narrow the range (echo 50000 51000 > /proc/sys/net/ipv4/ip_local_port_range, "
                        + "or in /etc/sysctl.conf) and open it in the firewall");
    }

    private static Set<String> matching(List<NetInterface> interfaces, String filter) {
        Set<String> out = new LinkedHashSet<>();
        if (filter == null) return out;
        for (NetInterface nif : interfaces) {
            if (InterfaceSelector.matches(filter, nif.name())) out.add(nif.name());
        }
        return out;
    }

    /** Open MPI's btl_tcp_if_include: interface names or CIDR subnets, comma separated. */
    private static Set<String> ompiIncluded(List<NetInterface> interfaces, String value) {
        Set<String> out = new LinkedHashSet<>();
        for (String part : value.split(",")) {
            String p = part.trim();
            if (p.contains("/")) {
                InetAddress net = NcclSocketChoice.commIdAddress(p.substring(0, p.indexOf('/')));
                int bits;
                try {
                    bits = Integer.parseInt(p.substring(p.indexOf('/') + 1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (net == null) continue;
                for (NetInterface nif : interfaces) {
                    for (NetInterface.Address a : nif.addresses()) {
                        if (NcclSocketChoice.sameSubnet(new NetInterface.Address(a.address(), bits), net)) {
                            out.add(nif.name());
                        }
                    }
                }
            } else {
                for (NetInterface nif : interfaces) {
                    if (nif.name().equals(p)) out.add(nif.name());
                }
            }
        }
        return out;
    }
}
