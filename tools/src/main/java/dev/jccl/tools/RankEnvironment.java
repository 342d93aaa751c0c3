package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The variables {@code jccl run} gives each rank it starts; with these {@code Jccl.fromEnvironment()} joins the job.
 * All ranks are on this host, so local rank and size equal rank and size.
 */
final class RankEnvironment {
    static final String RANK = "JCCL_RANK";
    static final String WORLD_SIZE = "JCCL_WORLD_SIZE";
    static final String LOCAL_RANK = "JCCL_LOCAL_RANK";
    static final String LOCAL_SIZE = "JCCL_LOCAL_SIZE";
    static final String ID = "JCCL_ID";
    static final String SOCKET_IFNAME = "JCCL_SOCKET_IFNAME";
    /** A root address would compete with JCCL_ID; the launcher's id is the one that holds. */
    static final String ROOT = "JCCL_ROOT";

    private RankEnvironment() {}

    /**
     * {@code base} plus the rank's variables.
     *
     * @param ifname the interface filter every rank must use, or null to leave {@code base}'s as it is
     */
    static Map<String, String> forRank(Map<String, String> base, int rank, int size, UniqueId id, String ifname) {
        Map<String, String> env = new HashMap<>(base);
        env.remove(ROOT);
        env.put(RANK, Integer.toString(rank));
        env.put(WORLD_SIZE, Integer.toString(size));
        env.put(LOCAL_RANK, Integer.toString(rank));
        env.put(LOCAL_SIZE, Integer.toString(size));
        env.put(ID, id.toString());
        if (ifname != null) env.put(SOCKET_IFNAME, ifname);
        // Scripts that call `java` get the JDK jccl runs on (a 25), not whatever PATH has first.
        String path = base.get("PATH");
        env.put("PATH", THIS_JDK_BIN + (path == null || path.isEmpty() ? "" : java.io.File.pathSeparator + path));
        return env;
    }

    /** The bin directory of the JDK this jccl runs on. */
    static final String THIS_JDK_BIN =
            java.nio.file.Path.of(System.getProperty("java.home"), "bin").toString();

    /**
     * {@code command} with a bare {@code java} replaced by this JDK's launcher: {@code jccl run -np 4 -- java -jar
     * app.jar} then runs on the JDK 25 that {@code ./jccl} found, even where the {@code java} on PATH is older (the JDK
     * looks programs up on its own PATH, not the ranks').
     */
    static List<String> withThisJdk(List<String> command) {
        if (command.isEmpty() || !command.getFirst().equals("java")) return command;
        List<String> out = new ArrayList<>(command);
        out.set(0, java.nio.file.Path.of(THIS_JDK_BIN, "java").toString());
        return out;
    }

    /**
     * The environments of an N-rank job on this host ({@code jccl run}, {@code jccl perf -np}): one fresh id whose port
     * rank 0 (a child) will bind, and the interface filter {@code ifname}, else the one already set in {@code base},
     * else loopback, since all ranks are here.
     */
    static List<Map<String, String>> localJob(Map<String, String> base, int size, String ifname) throws IOException {
        String ranksIfname =
                ifname != null ? ifname : Config.fromEnvironment(base).socketIfname() != null ? null : "lo";
        Config config = Config.fromEnvironment(base);
        if (ranksIfname != null) {
            config = config.toBuilder().socketIfname(ranksIfname).build();
        }
        UniqueId id = UniqueId.createForAnotherProcess(config); // rank 0 is a child, which binds the port itself
        List<Map<String, String>> environments = new ArrayList<>();
        for (int r = 0; r < size; r++) environments.add(forRank(base, r, size, id, ranksIfname));
        return environments;
    }

    /** A launcher's {@code --timeout} (30, 30s, 500ms, 2m), or null when none was given. */
    static Duration parseTimeout(CommandLine commandLine, String text) {
        if (text == null) return null;
        Duration d;
        try {
            d = Config.parseDuration("--timeout", text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, e.getMessage());
        }
        if (d.isNegative() || d.isZero()) {
            throw new ParameterException(commandLine, "--timeout must be positive, got " + text);
        }
        return d;
    }
}
