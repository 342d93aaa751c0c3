package dev.jccl.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code kill -USR1 <pid>} makes every open communicator of the process write its flight recorder to
 * {@code JCCL_TRACE_DIR}, as its failure would: the way to see where a hung job's ranks are without stopping them. The
 * handler is installed with the first communicator that keeps a recorder; a handler the application had before is
 * called after ours. Where the signal is not available (the VM uses it, {@code -Xrs}, or a runtime without
 * jdk.unsupported), there are no signal dumps and {@code Communicator.dumpTrace} still works.
 *
 * <p>Why USR1 and not USR2: HotSpot on Linux suspends threads with SIGUSR2 (its "SR" signal, {@code _JAVA_SR_SIGNUM}),
 * which JDK Flight Recorder's sampler uses every 10-20 ms, and {@code Signal.handle} does not refuse it. A Java handler
 * on USR2 took the signal from the VM: measured on JDK 25, a 3-second busy loop under JFR got 12 execution samples
 * instead of 167, and the handler ran 135 times (a trace dump each time). USR1 is not used by the VM on Linux; where
 * {@code _JAVA_SR_SIGNUM} moves the VM onto it, there is no signal handler.
 */
final class TraceSignal {
    private static final Set<HostExecutor> OPEN = ConcurrentHashMap.newKeySet();
    private static final String SIGNAL = "USR1";
    /** SIGUSR1's number on Linux, which {@code _JAVA_SR_SIGNUM} would name if the VM were told to suspend with it. */
    private static final String SIGNAL_NUMBER = "10";

    private static boolean installed;

    private TraceSignal() {}

    static void register(HostExecutor host) {
        OPEN.add(host);
        synchronized (TraceSignal.class) {
            if (installed) return;
            installed = true;
            if (SIGNAL_NUMBER.equals(System.getenv("_JAVA_SR_SIGNUM"))) return;
            try {
                SignalHandler[] previous = new SignalHandler[1];
                previous[0] = Signal.handle(new Signal(SIGNAL), signal -> {
                    for (HostExecutor h : OPEN) h.dumpOnSignal();
                    SignalHandler p = previous[0];
                    if (p != null && p != SignalHandler.SIG_DFL && p != SignalHandler.SIG_IGN) p.handle(signal);
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // The VM or the OS keeps SIGUSR1 for itself here: dumps come from failures and dumpTrace only.
            } catch (NoClassDefFoundError e) {
                // A runtime trimmed with jlink may lack jdk.unsupported (sun.misc.Signal): no signal dumps either.
            }
        }
    }

    static void unregister(HostExecutor host) {
        OPEN.remove(host);
    }
}
