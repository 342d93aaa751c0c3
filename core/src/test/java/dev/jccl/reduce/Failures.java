package dev.jccl.reduce;

import java.util.List;

/** Formats the failures the checks collect, so one assertion can report many at once. */
final class Failures {

    private Failures() {}

    /** The count and the first few failures, one a line. */
    static String summary(List<String> failures) {
        int shown = Math.min(failures.size(), 20);
        return failures.size() + " failures, first " + shown + ":\n" + String.join("\n", failures.subList(0, shown));
    }
}
