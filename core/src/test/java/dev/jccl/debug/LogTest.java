package dev.jccl.debug;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.Config.DebugLevel;
import dev.jccl.Config.DebugSink;
import dev.jccl.debug.Log.Subsys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where Log's lines go. The loggers are passed in, not installed through a {@code System.LoggerFinder} service file,
 * which would change the sink of every other test in this surefire JVM.
 */
@Timeout(30)
class LogTest {
    /** What a recording logger saw: one entry per call to {@code log}. */
    record Entry(String logger, System.Logger.Level level, String message) {}

    /** A logger that records what reaches it and is loggable from {@code threshold} up. */
    static final class Recording implements System.Logger {
        final String name;
        final Level threshold;
        final List<Entry> entries;

        Recording(String name, Level threshold, List<Entry> entries) {
            this.name = name;
            this.threshold = threshold;
            this.entries = entries;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            return level.getSeverity() >= threshold.getSeverity();
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            synchronized (entries) {
                entries.add(new Entry(name, level, msg));
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            synchronized (entries) {
                entries.add(new Entry(name, level, format));
            }
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(stdout, true, StandardCharsets.UTF_8);

    private Function<String, System.Logger> loggersFrom(System.Logger.Level threshold) {
        return name -> new Recording(name, threshold, entries);
    }

    private static Config config(DebugLevel level, String subsys, DebugSink sink) {
        return Config.builder()
                .debugLevel(level)
                .debugSubsys(subsys)
                .debugSink(sink)
                .build();
    }

    /**
     * Logs one record of each kind (version, INFO, WARN, TRACE) through the logger sink, every subsystem on, as
     * {@code rank} and with loggers loggable from {@code threshold} up.
     */
    private void logOneOfEachThroughLoggers(int rank, System.Logger.Level threshold) {
        Log log = new Log(config(DebugLevel.TRACE, "ALL", DebugSink.LOGGER), rank, out, loggersFrom(threshold));
        log.version("JCCL version 1.0");
        log.info(Subsys.INIT, "comm 0x1 rank " + rank + " nRanks 4 - Init START");
        log.warn(Subsys.NET, "peer 2 closed");
        log.trace(Subsys.COLL, "AllReduce OneShot/LL");
    }

    @Test
    void recordsCarryTheSubsystemAsLoggerNameAndTheMappedLevel() {
        logOneOfEachThroughLoggers(3, System.Logger.Level.ALL);

        assertEquals(
                List.of(
                        new Entry("dev.jccl.INIT", System.Logger.Level.INFO, "[3] JCCL version 1.0"),
                        new Entry(
                                "dev.jccl.INIT",
                                System.Logger.Level.INFO,
                                "[3] JCCL INFO INIT : comm 0x1 rank 3 nRanks 4 - Init START"),
                        new Entry("dev.jccl.NET", System.Logger.Level.WARNING, "[3] JCCL WARN NET : peer 2 closed"),
                        new Entry(
                                "dev.jccl.COLL",
                                System.Logger.Level.TRACE,
                                "[3] JCCL TRACE COLL : AllReduce OneShot/LL")),
                entries);
        assertEquals("", stdout.toString(StandardCharsets.UTF_8), "the logger sink prints nothing on stdout");
    }

    @Test
    void ncclDebugIsAppliedFirst() {
        // NCCL_DEBUG=WARN: INFO is dropped before any logger sees it, and the version line is not written.
        Log warn = new Log(
                Config.fromEnvironment(java.util.Map.of("NCCL_DEBUG", "WARN", "JCCL_DEBUG_SINK", "logger")),
                0,
                out,
                loggersFrom(System.Logger.Level.ALL));
        warn.version("JCCL version 1.0");
        warn.info(Subsys.INIT, "not for a WARN run");
        warn.warn(Subsys.ENV, "unknown variable JCCL_TIMOUT");
        assertEquals(
                List.of(new Entry(
                        "dev.jccl.ENV",
                        System.Logger.Level.WARNING,
                        "[0] JCCL WARN ENV : unknown variable JCCL_TIMOUT")),
                entries);

        // NCCL_DEBUG_SUBSYS filters too: NET is not in INIT's list.
        entries.clear();
        Log init = new Log(
                config(DebugLevel.INFO, "INIT", DebugSink.LOGGER), 0, out, loggersFrom(System.Logger.Level.ALL));
        init.info(Subsys.NET, "not asked for");
        assertEquals(List.of(), entries);
    }

    @Test
    void aLoggerThatIsNotLoggableAtInfoGetsNoInfoCalls() {
        // The version line, INFO and TRACE are all dropped by the framework's level; only the WARN is kept.
        logOneOfEachThroughLoggers(1, System.Logger.Level.WARNING);
        assertEquals(
                List.of(new Entry("dev.jccl.NET", System.Logger.Level.WARNING, "[1] JCCL WARN NET : peer 2 closed")),
                entries);
    }

    @Test
    void theStdoutSinkPrintsTheNcclShapedLine() {
        Log log = new Log(config(DebugLevel.INFO, "INIT", DebugSink.STDOUT), 2, out, name -> {
            throw new AssertionError("no logger for the stdout sink, got asked for " + name);
        });
        log.info(Subsys.INIT, "Channel 00/01 :    0   1   2");
        log.version("JCCL version 1.0");
        String prefix = HostIdentity.hostName() + ":" + ProcessHandle.current().pid() + ":"
                + Thread.currentThread().threadId() + " [2] ";
        assertEquals(
                prefix + "JCCL INFO INIT : Channel 00/01 :    0   1   2" + System.lineSeparator() + prefix
                        + "JCCL version 1.0" + System.lineSeparator(),
                stdout.toString(StandardCharsets.UTF_8));
    }

    @Test
    void autoPicksStdoutUnderTheJdksFinderAndTheLoggerUnderAnApplicationsOne() {
        assertTrue(Log.isJdkFinder(System.LoggerFinder.getLoggerFinder()), "this JVM has no finder of its own");
        assertFalse(Log.toLogger(DebugSink.AUTO));
        assertFalse(Log.isJdkFinder(new System.LoggerFinder() {
            @Override
            public System.Logger getLogger(String name, Module module) {
                return new Recording(name, System.Logger.Level.ALL, entries);
            }
        }));

        Log log = new Log(config(DebugLevel.INFO, "INIT", DebugSink.AUTO), 0, out, name -> {
            throw new AssertionError("auto must not ask for a logger under the JDK's finder, asked for " + name);
        });
        log.info(Subsys.INIT, "to stdout");
        assertTrue(stdout.toString(StandardCharsets.UTF_8)
                .endsWith(" [0] JCCL INFO INIT : to stdout" + System.lineSeparator()));
    }
}
