package dev.jccl.debug;

import dev.jccl.Config;
import dev.jccl.Config.DebugLevel;
import dev.jccl.Config.DebugSink;
import java.io.PrintStream;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * NCCL-shaped debug lines: {@code host:pid:tid [rank] JCCL INFO <SUBSYS> : text}, filtered by {@code JCCL_DEBUG}
 * (level) and {@code JCCL_DEBUG_SUBSYS} (comma list, {@code ^} to exclude, ALL). A disabled line costs one comparison:
 * call {@link #enabled} before building expensive text.
 *
 * <p>A line that passes goes to stdout, or becomes a {@link System.Logger} record ({@code JCCL_DEBUG_SINK}; by default
 * the logger when the application installed its own {@link System.LoggerFinder}). The record's logger is
 * {@code dev.jccl.<SUBSYS>}, its level WARN→WARNING, INFO and VERSION→INFO, TRACE→TRACE, checked with
 * {@code isLoggable} before the text is built; its message is the line without {@code host:pid:tid}, which the
 * framework's own pattern says better (thread, and the process's host and pid where it wants them).
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
    /** Each subsystem's logger, by ordinal, when lines go to {@link System.Logger}; null when they go to stdout. */
    private final System.Logger[] loggers;

    private final int rank;

    public Log(Config config, int rank) {
        this(config, rank, System.out, name -> System.getLogger(name));
    }

    /** With {@code loggers} in place of {@link System#getLogger}, for tests. */
    Log(Config config, int rank, PrintStream out, Function<String, System.Logger> loggers) {
        this.level = config.debugLevel();
        this.enabledSubsys = parseSubsys(config.debugSubsys());
        this.rank = rank;
        this.out = out;
        if (level != DebugLevel.NONE && toLogger(config.debugSink())) {
            this.loggers = new System.Logger[Subsys.values().length];
            for (Subsys s : Subsys.values()) this.loggers[s.ordinal()] = loggers.apply(loggerName(s));
        } else {
            this.loggers = null;
        }
    }

    /** The logger of a subsystem's records, e.g. {@code dev.jccl.INIT}, so that frameworks can filter by subsystem. */
    private static String loggerName(Subsys subsys) {
        return "dev.jccl." + subsys;
    }

    /** Whether lines go to {@link System.Logger}: asked for, or {@code auto} and the application has a finder. */
    static boolean toLogger(DebugSink sink) {
        return switch (sink) {
            case STDOUT -> false;
            case LOGGER -> true;
            case AUTO -> !isJdkFinder(System.LoggerFinder.getLoggerFinder());
        };
    }

    /**
     * Whether {@code finder} is the JDK's own: the default one (java.base) or java.util.logging's (java.logging).
     * Unconfigured, either prints to stderr what stdout shows today; an application that routes java.util.logging
     * itself (a bridge, a logging.properties) sets {@code JCCL_DEBUG_SINK=logger}.
     */
    static boolean isJdkFinder(System.LoggerFinder finder) {
        String module = finder.getClass().getModule().getName();
        return "java.base".equals(module) || "java.logging".equals(module);
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
        if (enabled(DebugLevel.INFO, subsys)) emit(DebugLevel.INFO, subsys, text);
    }

    public void trace(Subsys subsys, String text) {
        if (enabled(DebugLevel.TRACE, subsys)) emit(DebugLevel.TRACE, subsys, text);
    }

    public void warn(Subsys subsys, String text) {
        if (enabled(DebugLevel.WARN, subsys)) emit(DebugLevel.WARN, subsys, text);
    }

    /** The one line NCCL prints at level VERSION and above; a record of {@code dev.jccl.INIT} at INFO. */
    public void version(String text) {
        // As NCCL: printed when asked for (VERSION) or when debugging (INFO and up), not on every WARN-level run.
        if (level == DebugLevel.VERSION || level.ordinal() >= DebugLevel.INFO.ordinal()) {
            emit(DebugLevel.VERSION, Subsys.INIT, text);
        }
    }

    /** Prints {@code host:pid:tid [rank] JCCL INFO INIT : text}, or logs it without {@code host:pid:tid}. */
    private void emit(DebugLevel at, Subsys subsys, String text) {
        if (loggers != null) {
            System.Logger.Level to = switch (at) {
                case WARN -> System.Logger.Level.WARNING;
                case TRACE -> System.Logger.Level.TRACE;
                default -> System.Logger.Level.INFO; // INFO, VERSION
            };
            System.Logger logger = loggers[subsys.ordinal()];
            if (logger.isLoggable(to)) logger.log(to, "[" + rank + "] " + body(at, subsys, text));
            return;
        }
        String line = HOST + ":" + PID + ":" + Thread.currentThread().threadId() + " [" + rank + "] "
                + body(at, subsys, text);
        synchronized (out) {
            out.println(line);
        }
    }

    private static String body(DebugLevel at, Subsys subsys, String text) {
        return at == DebugLevel.VERSION ? text : "JCCL " + at + " " + subsys + " : " + text;
    }
}
