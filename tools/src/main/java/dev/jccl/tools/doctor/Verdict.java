package dev.jccl.tools.doctor;

/** A check's outcome (docs/doctor-checks.md §0.3), in increasing order of concern for {@link #worse}. */
enum Verdict {
    /** Not applicable here: no GPU, no RDMA device, not in a VM… The summary says which. */
    SKIP,
    OK,
    /** Works, but degraded, risky, or cannot be confirmed. */
    WARN,
    /** Will not work, or GPU Direct RDMA / RDMA is certainly off. */
    FAIL;

    /** The word printed and written to JSON: {@code ok}, {@code warn}, {@code fail}, {@code skip}. */
    String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    Verdict worse(Verdict other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
