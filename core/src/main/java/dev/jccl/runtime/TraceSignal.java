package dev.jccl.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code kill -USR2 <pid>} makes every open communicator of the process write its flight recorder to
 * {@code JCCL_TRACE_DIR}, as its failure would: the way to see where a hung job's ranks are without stopping them. The
 * handler is installed with the first communicator that keeps a recorder; a handler the application had before is
 * called after ours. Where the signal is not available (the VM uses it, {@code -Xrs}), there are no signal dumps and
 * {@code Communicator.dumpTrace} still works.
 */
final class TraceSignal {
    private static final Set<HostExecutor> OPEN = ConcurrentHashMap.newKeySet();
    private static boolean installed;

    private TraceSignal() {}

    static void register(HostExecutor host) {
        OPEN.add(host);
        synchronized (TraceSignal.class) {
            if (installed) return;
            installed = true;
            try {
                SignalHandler[] previous = new SignalHandler[1];
                previous[0] = Signal.handle(new Signal("USR2"), signal -> {
                    for (HostExecutor h : OPEN) h.dumpOnSignal();
                    SignalHandler p = previous[0];
                    if (p != null && p != SignalHandler.SIG_DFL && p != SignalHandler.SIG_IGN) p.handle(signal);
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // The VM or the OS keeps SIGUSR2 for itself here: dumps come from failures and dumpTrace only.
            }
        }
    }

    static void unregister(HostExecutor host) {
        OPEN.remove(host);
    }
}
