package dev.jccl.tools;

/** Words for a process's exit code, as a shell would read it: above 128 means killed by signal code - 128. */
final class ExitStatus {
    /** Linux numbering: a signal's name at its number; null where none is given (0, and 5, SIGTRAP). */
    private static final String[] SIGNALS = {
        null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", null, "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1",
        "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"
    };

    private ExitStatus() {}

    /** E.g. {@code "exited with code 3"}, {@code "exited with code 137 (killed by signal 9, SIGKILL)"}. */
    static String describe(int code) {
        String s = "exited with code " + code;
        int signal = code - 128;
        if (signal >= 1 && signal <= 64) {
            String name = signal < SIGNALS.length ? SIGNALS[signal] : null;
            s += " (killed by signal " + signal + (name == null ? "" : ", " + name) + ")";
        }
        return s;
    }

    /** The launcher's own exit code when a rank failed with {@code code}. */
    static int launcherCode(int code) {
        return code >= 1 && code <= 255 ? code : 1;
    }
}
