package dev.jccl.tools.doctor;

/** J1: hugepages, for context only. */
record InfoChecks(HostFacts facts) {

    /** J1 {@code hugepages-info}: always skip, with the numbers in the summary. */
    CheckResult hugepages() {
        Findings f = new Findings(Check.HUGEPAGES_INFO);
        String total = value(facts.files().lineStartingWith("/proc/meminfo", "HugePages_Total:"));
        String size = value(facts.files().lineStartingWith("/proc/meminfo", "Hugepagesize:"));
        String thp = facts.files().read("/sys/kernel/mm/transparent_hugepage/enabled");
        f.evidence("/proc/meminfo HugePages_Total", total);
        f.evidence("/proc/meminfo Hugepagesize", size);
        f.evidence("/sys/kernel/mm/transparent_hugepage/enabled", thp);
        String thpMode = thp == null ? "unknown" : thp.replaceAll(".*\\[(\\w+)\\].*", "$1");
        return f.skip("for information: HugePages_Total " + (total == null ? "unknown" : total)
                + (size == null ? "" : " (" + size + " pages)") + ", transparent hugepages " + thpMode
                + "; neither NCCL nor Jccl uses hugepages");
    }

    private static String value(String line) {
        return line == null ? null : line.substring(line.indexOf(':') + 1).trim();
    }
}
