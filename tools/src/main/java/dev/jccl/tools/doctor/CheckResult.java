package dev.jccl.tools.doctor;

import java.util.List;

/**
 * The outcome of one check: a verdict, a one-line summary that says what was found and what it means, the evidence, and
 * what to do about it (empty when nothing needs doing).
 */
record CheckResult(Check check, Verdict verdict, String summary, List<Evidence> evidence, List<String> fix) {
    CheckResult {
        evidence = List.copyOf(evidence);
        fix = List.copyOf(fix);
    }

    String id() {
        return check.id;
    }

    /** The value of the first evidence from {@code source}, or null. */
    String evidence(String source) {
        for (Evidence e : evidence) {
            if (e.source().equals(source)) return e.value();
        }
        return null;
    }
}
