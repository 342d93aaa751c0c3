package dev.jccl.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Stops processes together with everything they started: a rank is often a shell or a wrapper script whose real work
 * runs in a child, and killing only the wrapper would leave that child running and holding the launcher's pipes open.
 */
final class ProcessTree {
    private static final long POLL_MILLIS = 20;

    private ProcessTree() {}

    /**
     * Asks {@code roots} and their descendants to terminate (SIGTERM), waits up to {@code grace} for them to exit, then
     * kills what is left (SIGKILL) and waits briefly for that to land.
     */
    static void terminate(Collection<ProcessHandle> roots, Duration grace) {
        // Descendants first, and listed before anything is signalled: a child whose parent has died
        // is re-parented and no longer found among the root's descendants.
        Set<ProcessHandle> all = withDescendants(roots);
        all.forEach(ProcessHandle::destroy);
        if (awaitExit(all, grace)) return;
        Set<ProcessHandle> left =
                withDescendants(all.stream().filter(ProcessTree::isRunning).toList());
        left.forEach(ProcessHandle::destroyForcibly);
        awaitExit(left, Duration.ofSeconds(2));
    }

    private static Set<ProcessHandle> withDescendants(Collection<ProcessHandle> roots) {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        for (ProcessHandle root : roots) {
            if (!isRunning(root)) continue;
            List<ProcessHandle> descendants = new ArrayList<>(root.descendants().toList());
            all.addAll(descendants.reversed());
            all.add(root);
        }
        return all;
    }

    /**
     * Whether {@code p} still runs. A zombie does not: it has exited and only waits to be reaped, which for an orphaned
     * grandchild is up to the container's init, sometimes seconds later or never, while {@link ProcessHandle#isAlive}
     * still says true.
     */
    static boolean isRunning(ProcessHandle p) {
        if (!p.isAlive()) return false;
        try {
            String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
            // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
            int close = stat.lastIndexOf(')');
            char state = close >= 0 && close + 2 < stat.length() ? stat.charAt(close + 2) : '?';
            return state != 'Z' && state != 'X';
        } catch (IOException | UnsupportedOperationException e) {
            return p.isAlive(); // no /proc (not Linux), or the process is gone already
        }
    }

    /** True if all stopped running within {@code timeout}; polls, as onExit would wait for a zombie's reaping. */
    private static boolean awaitExit(Set<ProcessHandle> processes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (processes.stream().anyMatch(ProcessTree::isRunning)) {
            if (System.nanoTime() - deadline >= 0) return false;
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
