package dev.jccl.tools.doctor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects a check's evidence and problems, then closes with a verdict. Checks that can find several problems at once
 * add each with {@link #problem}; {@link #conclude} then takes the worst verdict, and the summary names every problem
 * of that verdict.
 */
final class Findings {
    private final Check check;
    private final List<Evidence> evidence = new ArrayList<>();
    private final List<Verdict> problemVerdicts = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private final Set<String> fixes = new LinkedHashSet<>();

    Findings(Check check) {
        this.check = check;
    }

    /** Adds evidence; a null value is written {@code (absent)}. */
    Findings evidence(String source, Object value) {
        evidence.add(new Evidence(source, value == null ? Evidence.ABSENT : String.valueOf(value)));
        return this;
    }

    /** Adds evidence only when the value is known: for optional details. */
    Findings evidenceIfPresent(String source, Object value) {
        if (value != null) evidence(source, value);
        return this;
    }

    /** Adds a file's content as evidence, under its path, when the file is there. */
    Findings fileIfPresent(HostFiles files, String path) {
        return evidenceIfPresent(path, files.read(path));
    }

    /** Records a problem of verdict {@code WARN} or {@code FAIL}, with the fixes that address it. */
    Findings problem(Verdict verdict, String text, String... fix) {
        problemVerdicts.add(verdict);
        problems.add(text);
        fixes.addAll(List.of(fix));
        return this;
    }

    /** Adds a fix that applies whatever the problem (printed only when there is one). */
    Findings fix(String... fix) {
        fixes.addAll(List.of(fix));
        return this;
    }

    boolean hasProblems() {
        return !problems.isEmpty();
    }

    /** The worst problem's verdict, or {@code OK} with {@code okSummary} when there is none. */
    CheckResult conclude(String okSummary) {
        if (problems.isEmpty()) return result(Verdict.OK, okSummary, List.of());
        Verdict worst = Verdict.OK;
        for (Verdict v : problemVerdicts) worst = worst.worse(v);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < problems.size(); i++) {
            if (problemVerdicts.get(i) == worst) texts.add(problems.get(i));
        }
        // The milder problems stay visible as evidence.
        for (int i = 0; i < problems.size(); i++) {
            if (problemVerdicts.get(i) != worst) {
                evidence("also (" + problemVerdicts.get(i).word() + ")", problems.get(i));
            }
        }
        return result(worst, String.join("; ", texts), new ArrayList<>(fixes));
    }

    CheckResult ok(String summary, String... fix) {
        return result(Verdict.OK, summary, List.of(fix));
    }

    CheckResult warn(String summary, String... fix) {
        return result(Verdict.WARN, summary, merged(fix));
    }

    CheckResult fail(String summary, String... fix) {
        return result(Verdict.FAIL, summary, merged(fix));
    }

    CheckResult skip(String summary) {
        return result(Verdict.SKIP, summary, List.of());
    }

    private List<String> merged(String... fix) {
        Set<String> all = new LinkedHashSet<>(List.of(fix));
        all.addAll(fixes);
        return new ArrayList<>(all);
    }

    private CheckResult result(Verdict verdict, String summary, List<String> fix) {
        return new CheckResult(check, verdict, summary, evidence, fix);
    }
}
