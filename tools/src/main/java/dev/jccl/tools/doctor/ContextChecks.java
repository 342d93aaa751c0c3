package dev.jccl.tools.doctor;

/** A1: where the doctor runs. Informational; other checks use the same facts to decide whether they apply. */
record ContextChecks(HostFacts facts) {

    /** A1 {@code context-runtime}: always ok. */
    CheckResult runtime() {
        Findings f = new Findings(Check.CONTEXT_RUNTIME);
        HostFacts.Runtime r = facts.runtime();
        for (Evidence e : r.evidence()) f.evidence(e.source(), e.value());
        HostFacts.NvidiaDriver driver = facts.nvidiaDriver();
        f.evidence("/proc/sys/kernel/osrelease", facts.kernelRelease());
        if (driver != null) f.evidence("/proc/driver/nvidia/version", driver.versionLine());
        String k8s = r.kubernetes()
                ? "yes" + (r.mpiJobRole() == null ? "" : " (MPIJob " + r.mpiJobRole() + ")")
                : r.mpiJobRole() == null ? "no" : "no (" + r.mpiJobRole() + ")";
        String summary = "Runtime: container=" + (r.container() == null ? "no" : r.container())
                + " kubernetes=" + k8s
                + " vm=" + (r.vm() ? "yes" : "no")
                + " arch=" + orUnknown(facts.arch())
                + " kernel=" + orUnknown(facts.kernelRelease())
                + " driver=" + (driver == null ? "none" : driver.version() + " (" + driver.flavor() + ")");
        return f.ok(summary);
    }

    private static String orUnknown(String s) {
        return s == null ? "unknown" : s;
    }
}
