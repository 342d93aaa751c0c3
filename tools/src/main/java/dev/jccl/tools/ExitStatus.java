package dev.jccl.tools;

import java.util.Map;

/** Words for a process's exit code, as a shell would read it: above 128 means killed by signal code - 128. */
final class ExitStatus {
    /** Linux numbering. */
    private static final Map<Integer, String> SIGNALS = Map.ofEntries(
            Map.entry(1, "SIGHUP"),
            Map.entry(2, "SIGINT"),
            Map.entry(3, "SIGQUIT"),
            Map.entry(4, "SIGILL"),
            Map.entry(6, "SIGABRT"),
            Map.entry(7, "SIGBUS"),
            Map.entry(8, "SIGFPE"),
            Map.entry(9, "SIGKILL"),
            Map.entry(10, "SIGUSR1"),
            Map.entry(11, "SIGSEGV"),
            Map.entry(12, "SIGUSR2"),
            Map.entry(13, "SIGPIPE"),
            Map.entry(14, "SIGALRM"),
            Map.entry(15, "SIGTERM"));

    private ExitStatus() {}

    /** E.g. {@code "exited with code 3"}, {@code "exited with code 137 (killed by signal 9, SIGKILL)"}. */
    static String describe(int code) {
        String s = "exited with code " + code;
        int signal = code - 128;
        if (signal >= 1 && signal <= 64) {
            String name = SIGNALS.get(signal);
            s += " (killed by signal " + signal + (name == null ? "" : ", " + name) + ")";
        }
        return s;
    }

    /** The launcher's own exit code when a rank failed with {@code code}. */
    static int launcherCode(int code) {
        return code >= 1 && code <= 255 ? code : 1;
    }
}
