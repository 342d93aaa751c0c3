package dev.jccl;

import java.util.concurrent.TimeUnit;

/** What tests that start JVMs of their own need to leave nothing running. */
public final class ChildProcesses {
    private ChildProcesses() {}

    /** Kills {@code p} and its descendants, if still alive, and waits up to 10 s for it to go. */
    public static void kill(Process p) {
        if (!p.isAlive()) return;
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
