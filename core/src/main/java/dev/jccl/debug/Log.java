package dev.jccl.debug;

import dev.jccl.Config;
import dev.jccl.Config.DebugLevel;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * NCCL-shaped debug lines: {@code host:pid:tid [rank] JCCL INFO <SUBSYS> : text}, filtered by {@code JCCL_DEBUG}
 * (level) and {@code JCCL_DEBUG_SUBSYS} (comma list, {@code ^} to exclude, ALL). A disabled line costs one comparison:
 * call {@link #enabled} before building expensive text.
 */
public final class Log {
    /** Subsystems, as NCCL names them where it has the same one. */
    public enum Subsys {
        INIT,
        BOOTSTRAP,
        NET,
        COLL,
        P2P,
        TUNING,
        ENV,
        ALL
    }

    private static final String HOST = HostIdentity.hostName();
    private static final long PID = ProcessHandle.current().pid();

    private final DebugLevel level;
    private final Set<Subsys> enabledSubsys;
    private final PrintStream out;
    private final int rank;

    public Log(Config config, int rank) {
        this(config, rank, System.out);
    }

    Log(Config config, int rank, PrintStream out) {
        this.level = config.debugLevel();
        this.enabledSubsys = parseSubsys(config.debugSubsys());
        this.rank = rank;
        this.out = out;
    }

    static Set<Subsys> parseSubsys(String spec) {
        Set<Subsys> set = new HashSet<>();
        if (spec == null || spec.isBlank()) {
            // NCCL's default: INIT and ENV (plus WARNs, which are never filtered).
            set.add(Subsys.INIT);
            set.add(Subsys.ENV);
            set.add(Subsys.BOOTSTRAP);
            set.add(Subsys.NET);
            return set;
        }
        String s = spec.trim();
        boolean exclude = s.startsWith("^");
        if (exclude) {
            s = s.substring(1);
            set.addAll(Set.of(Subsys.values()));
        }
        for (String part : s.split(",")) {
            String p = part.trim().toUpperCase(Locale.ROOT);
            if (p.isEmpty()) continue;
            Subsys sub;
            try {
                sub = Subsys.valueOf(p);
            } catch (IllegalArgumentException e) {
                continue; // NCCL ignores subsystems it does not know; so do we
            }
            if (sub == Subsys.ALL) {
                if (exclude) set.clear();
                else set.addAll(Set.of(Subsys.values()));
            } else if (exclude) {
                set.remove(sub);
            } else {
                set.add(sub);
            }
        }
        return set;
    }

    public boolean enabled(DebugLevel at, Subsys subsys) {
        if (level.ordinal() < at.ordinal()) return false;
        return at == DebugLevel.WARN || at == DebugLevel.VERSION || enabledSubsys.contains(subsys);
    }

    public void info(Subsys subsys, String text) {
        if (enabled(DebugLevel.INFO, subsys)) print("INFO", subsys, text);
    }

    public void trace(Subsys subsys, String text) {
        if (enabled(DebugLevel.TRACE, subsys)) print("TRACE", subsys, text);
    }

    public void warn(Subsys subsys, String text) {
        if (enabled(DebugLevel.WARN, subsys)) print("WARN", subsys, text);
    }

    /** The one line NCCL prints at level VERSION and above. */
    public void version(String text) {
        // As NCCL: printed when asked for (VERSION) or when debugging (INFO and up), not on every WARN-level run.
        if (level == DebugLevel.VERSION || level.ordinal() >= DebugLevel.INFO.ordinal()) {
            synchronized (out) {
                out.println(HOST + ":" + PID + ":" + Thread.currentThread().threadId() + " [" + rank + "] " + text);
            }
        }
    }

    private void print(String levelName, Subsys subsys, String text) {
        String line = HOST + ":" + PID + ":" + Thread.currentThread().threadId() + " [" + rank + "] JCCL " + levelName
                + " " + subsys + " : " + text;
        synchronized (out) {
            out.println(line);
        }
    }
}
