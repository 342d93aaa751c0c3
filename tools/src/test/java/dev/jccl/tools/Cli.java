package dev.jccl.tools;

import static org.junit.jupiter.api.Assertions.fail;

import dev.jccl.Jccl;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/** Runs the jccl command in this JVM with captured streams, or as a real process. */
final class Cli {
    private Cli() {}

    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** This process's environment without any JCCL_ / NCCL_ variable (surefire sets JCCL_SOCKET_IFNAME). */
    static Map<String, String> cleanEnvironment() {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.keySet().removeIf(k -> k.startsWith("JCCL_") || k.startsWith("NCCL_"));
        return env;
    }

    /** {@link #cleanEnvironment()} plus pairs of name, value. */
    static Map<String, String> environment(String... pairs) {
        Map<String, String> env = cleanEnvironment();
        for (int i = 0; i < pairs.length; i += 2) env.put(pairs[i], pairs[i + 1]);
        return env;
    }

    static Result inProcess(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            CommandLine cl = JcclCommand.commandLine(env, o, e);
            code = cl.execute(args);
            cl.getOut().flush();
            cl.getErr().flush();
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The java launcher of this JVM (a JDK 25). */
    static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** Class path with the tools and core classes and picocli, as the test JVM loaded them. */
    static String classPath() {
        List<String> entries = new ArrayList<>();
        for (Class<?> c : List.of(JcclCommand.class, Jccl.class, CommandLine.class)) {
            try {
                entries.add(Path.of(c.getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI())
                        .toString());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** {@code java -cp ... dev.jccl.tools.JcclCommand}, a list to which a process's arguments are added. */
    static List<String> jcclCommand() {
        return new ArrayList<>(List.of(java().toString(), "-cp", classPath(), JcclCommand.class.getName()));
    }

    /** {@code java -cp ... dev.jccl.tools.JcclCommand args} as a started process. */
    static Process startJccl(Map<String, String> env, String... args) throws IOException {
        List<String> command = jcclCommand();
        command.addAll(List.of(args));
        return start(command, env, null);
    }

    /**
     * Arguments written as on a shell's command line: {@code line} split at spaces (it holds no quotes), followed by
     * {@code more} as they are (a path, a script: words that may hold spaces).
     */
    static String[] args(String line, String... more) {
        List<String> all = new ArrayList<>(List.of(line.trim().split(" +")));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    static Process start(List<String> command, Map<String, String> env, Path dir) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(env);
        if (dir != null) pb.directory(dir.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    /** Runs a process to its end (failing the test if it outlives {@code limit}) and collects its output. */
    static Result exec(List<String> command, Map<String, String> env, Path dir, Duration limit) throws Exception {
        return finish(start(command, env, dir), limit);
    }

    static Result finish(Process p, Duration limit) throws Exception {
        CompletableFuture<String> out = readAll(p.getInputStream());
        CompletableFuture<String> err = readAll(p.getErrorStream());
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("process did not end within " + limit + ": "
                    + p.info().commandLine().orElse("?"));
        }
        return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    }

    static CompletableFuture<String> readAll(InputStream in) {
        CompletableFuture<String> f = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try (in) {
                        f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        f.completeExceptionally(new UncheckedIOException(e));
                    }
                },
                "test-reader");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /**
     * Whether {@code pid} is a running process, read from /proc: a zombie (exited, waiting for the container's init to
     * reap it) is not running. Independent of the code under test on purpose.
     */
    static boolean running(long pid) throws IOException {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        String s;
        try {
            s = Files.readString(stat);
        } catch (IOException e) {
            return false; // vanished between the two calls
        }
        char state = s.charAt(s.lastIndexOf(')') + 2);
        return state != 'Z' && state != 'X';
    }
}
