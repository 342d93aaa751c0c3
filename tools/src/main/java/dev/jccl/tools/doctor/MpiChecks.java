package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.List;

/** F1: Open MPI launchers in Kubernetes with Mellanox HCOLL collectives on. */
record MpiChecks(HostFacts facts) {

    /** F1 {@code k8s-mpi-hcoll}. */
    CheckResult hcoll() {
        Findings f = new Findings(Check.K8S_MPI_HCOLL);
        List<String> ompiVariables = new ArrayList<>();
        for (String name : facts.environment().keySet()) {
            if (name.startsWith("OMPI_")) ompiVariables.add(name);
        }
        List<String> hcollLibraries = new ArrayList<>();
        List<String> hcollDirs = new ArrayList<>();
        if (facts.env("HPCX_HCOLL_DIR") != null) hcollDirs.add(facts.env("HPCX_HCOLL_DIR") + "/lib");
        // HPC-X's usual install places [U: paths other than $HPCX_HCOLL_DIR].
        hcollDirs.addAll(List.of("/opt/mellanox/hcoll/lib", "/opt/hpcx/hcoll/lib"));
        for (String dir : hcollDirs) {
            for (String n : facts.files().list(dir, "libhcoll.so*")) hcollLibraries.add(dir + "/" + n);
        }
        List<String> componentDirs = new ArrayList<>();
        for (String v : List.of("HPCX_MPI_DIR", "OPAL_PREFIX")) {
            if (facts.env(v) != null) componentDirs.add(facts.env(v) + "/lib/openmpi");
        }
        componentDirs.addAll(List.of("/usr/local/mpi/lib/openmpi", "/opt/hpcx/ompi/lib/openmpi"));
        List<String> components = new ArrayList<>();
        for (String dir : componentDirs) {
            for (String n : facts.files().list(dir, "mca_coll_hcoll.so")) components.add(dir + "/" + n);
        }
        String role = facts.runtime().mpiJobRole();
        if (ompiVariables.isEmpty() && role == null && hcollLibraries.isEmpty() && components.isEmpty()) {
            return f.skip("not launched by Open MPI (no OMPI_* variables) and no HCOLL library found");
        }
        ompiVariables.sort(null);
        for (String v : List.of(
                "OMPI_MCA_coll_hcoll_enable",
                "OMPI_MCA_coll",
                "OMPI_MCA_pml",
                "OMPI_MCA_btl",
                "OMPI_MCA_btl_tcp_if_include",
                "OMPI_MCA_btl_tcp_if_exclude",
                "UCX_NET_DEVICES",
                "UCX_TLS")) {
            f.evidenceIfPresent("env " + v, facts.env(v));
        }
        if (role != null) f.evidence("MPI Operator role", role);
        for (String l : hcollLibraries) f.evidence("HCOLL library", l);
        for (String c : components) f.evidence("Open MPI HCOLL component", c);
        boolean hcollPresent = !hcollLibraries.isEmpty() || !components.isEmpty();
        if (facts.runtime().kubernetes() && hcollPresent && !hcollDisabled()) {
            String where = !components.isEmpty()
                    ? HostFiles.nameOf(components.getFirst()) + " present"
                    : HostFiles.nameOf(hcollLibraries.getFirst()) + " present";
            f.problem(
                    Verdict.WARN,
                    "Kubernetes " + (role == null ? "pod" : "MPIJob " + role) + " with HPC-X HCOLL enabled (" + where
                            + ", OMPI_MCA_coll_hcoll_enable "
                            + (facts.env("OMPI_MCA_coll_hcoll_enable") == null
                                    ? "unset"
                                    : "=" + facts.env("OMPI_MCA_coll_hcoll_enable"))
                            + "). mpirun-launched NCCL jobs have been seen to hang here; NCCL (and Jccl) "
                            + "do not need MPI collectives",
                    "mpirun -mca coll_hcoll_enable 0 …, or export OMPI_MCA_coll_hcoll_enable=0",
                    "if still stuck: OMPI_MCA_pml=^ucx, OMPI_MCA_coll=^ucc, OMPI_MCA_btl=self,tcp, "
                            + "OMPI_MCA_btl_tcp_if_include=<the interface of NCCL_SOCKET_IFNAME>");
        }
        if (facts.env("OMPI_MCA_btl_tcp_if_include") != null && facts.env("OMPI_MCA_btl_tcp_if_exclude") != null) {
            f.problem(
                    Verdict.WARN,
                    "both OMPI_MCA_btl_tcp_if_include and OMPI_MCA_btl_tcp_if_exclude are set: Open MPI does not allow "
                            + "include and exclude together",
                    "keep only OMPI_MCA_btl_tcp_if_include");
        }
        return f.conclude("Open MPI "
                + (hcollPresent
                        ? (hcollDisabled() ? "with HCOLL turned off" : "with HCOLL, outside Kubernetes")
                        : "without HCOLL")
                + ".");
    }

    /** coll_hcoll_enable=0, or a coll list that leaves hcoll out ({@code ^hcoll}, or a positive list without it). */
    private boolean hcollDisabled() {
        if (facts.envIs("OMPI_MCA_coll_hcoll_enable", "0")) return true;
        String coll = facts.env("OMPI_MCA_coll");
        if (coll == null) return false;
        boolean exclude = coll.startsWith("^");
        boolean names = List.of((exclude ? coll.substring(1) : coll).split(",")).stream()
                .anyMatch(c -> c.trim().equals("hcoll"));
        return exclude == names;
    }
}
