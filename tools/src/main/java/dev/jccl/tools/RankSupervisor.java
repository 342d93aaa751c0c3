package dev.jccl.tools;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Starts the local ranks of one {@code jccl run} job and watches them: their output goes to the launcher's streams line
 * by line with a {@code [rank]} prefix; the first rank that fails (or the timeout, or a signal to the launcher) stops
 * all the others, so a job never hangs on a dead peer. Ranks get an empty stdin.
 */
final class RankSupervisor {
    /** Between SIGTERM and SIGKILL for the ranks being stopped. */
    static final Duration GRACE = Duration.ofSeconds(3);
    /** How long to wait for a finished rank's output to reach the launcher's streams. */
    private static final Duration DRAIN = Duration.ofSeconds(2);
    /** Launcher exit codes, as shells and coreutils' timeout(1) use them. */
    static final int NOT_FOUND = 127;

    static final int NOT_EXECUTABLE = 126;
    static final int TIMED_OUT = 124;

    private static final Pattern EXEC_ERROR = Pattern.compile("error(?:=|: )(\\d+)");
    private static final int ENOENT = 2;
    private static final int EACCES = 13;

    private record Rank(int rank, Process process, Thread stdout, Thread stderr) {
        String describe() {
            return rank + " (pid " + process.pid() + ")";
        }
    }

    /**
     * How ranks' output reaches the launcher's streams. {@link #PREFIXED}: every line of every rank gets
     * {@code [rank]}. {@link #RANK_ZERO_PLAIN}: rank 0's stdout passes unprefixed (it prints the job's result, e.g.
     * perf's table) and, with {@code rankZeroStderrToTerminal}, rank 0 writes its stderr straight to ours, so that a
     * progress line drawn with carriage returns works.
     */
    record Output(boolean prefixRankZero, boolean rankZeroStderrToTerminal) {
        static final Output PREFIXED = new Output(true, false);
        static final Output RANK_ZERO_PLAIN = new Output(false, false);
    }

    private final String name;
    private final List<String> command;
    private final List<Map<String, String>> environments;
    private final LineSink out;
    private final LineSink err;
    private final Output output;
    private final List<Rank> ranks = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Rank> exited = new LinkedBlockingQueue<>();
    private volatile boolean finished;
    /** Set by the shutdown hook: the ranks die because we stop them, which is no rank's failure to report. */
    private volatile boolean shuttingDown;
    /** {@code jccl run --elastic}: a rank that fails leaves the others running (they shrink and go on). */
    private boolean elastic;

    /** @param environments the full environment of each rank, in rank order */
    RankSupervisor(List<String> command, List<Map<String, String>> environments, LineSink out, LineSink err) {
        this("jccl run", command, environments, out, err, Output.PREFIXED);
    }

    /** @param name how the launcher names itself in its messages ({@code jccl run}, {@code jccl perf}) */
    RankSupervisor(
            String name,
            List<String> command,
            List<Map<String, String>> environments,
            LineSink out,
            LineSink err,
            Output output) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environments = List.copyOf(environments);
        this.out = out;
        this.err = err;
        this.output = output;
    }

    /**
     * Runs the job to its end and returns the launcher's exit code: 0 when every rank exited 0, else the failing rank's
     * code (1 if it has none in 1..255), {@link #TIMED_OUT}, or {@link #NOT_FOUND} / {@link #NOT_EXECUTABLE} when the
     * command cannot be started.
     *
     * @param timeout how long the job may run, or null for no limit
     */
    int run(Duration timeout) throws InterruptedException {
        Thread hook = new Thread(this::stopOnShutdown, "jccl-run-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (int i = 0; i < environments.size(); i++) {
                try {
                    start(i);
                } catch (IOException e) {
                    return cannotStart(i, e);
                }
            }
            return supervise(timeout);
        } catch (InterruptedException e) {
            stop(running()); // whoever interrupts us gives up on the job: leave no rank behind
            throw e;
        } finally {
            finished = true;
            drain(ranks);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Already shutting down: the hook is running or has run.
            }
        }
    }

    private void start(int i) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(environments.get(i));
        boolean plain = i == 0 && !output.prefixRankZero();
        if (i == 0 && output.rankZeroStderrToTerminal()) pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        p.getOutputStream().close();
        Rank rank = new Rank(
                i,
                p,
                PrefixedLineCopier.start(p.getInputStream(), i, plain, "stdout", out),
                PrefixedLineCopier.start(p.getErrorStream(), i, plain, "stderr", err));
        ranks.add(rank);
        p.onExit().thenRun(() -> exited.add(rank));
    }

    private int supervise(Duration timeout) throws InterruptedException {
        long deadline = timeout == null ? 0 : System.nanoTime() + timeout.toNanos();
        int succeeded = 0;
        List<String> lost = new ArrayList<>();
        while (succeeded + lost.size() < ranks.size()) {
            Rank r = timeout == null ? exited.take() : exited.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (shuttingDown) return 1; // the JVM exits with the signal's code once the hook is done
            if (r == null) return timedOut(timeout);
            int code = r.process().exitValue();
            if (code == 0) {
                succeeded++;
            } else if (elastic && !running().isEmpty()) {
                drain(List.of(r));
                lost.add(r.rank() + " (" + ExitStatus.describe(code) + ")");
                err.message(name + ": rank " + r.describe() + " " + ExitStatus.describe(code)
                        + "; --elastic: the other " + running().size() + " go on");
            } else {
                return failed(r, code);
            }
        }
        if (!lost.isEmpty()) {
            err.message(name + ": " + succeeded + " of " + ranks.size() + " ranks finished; lost rank "
                    + String.join(", rank ", lost));
        }
        return 0;
    }

    private int failed(Rank failed, int code) {
        // Let the rank's last words (often the reason) reach the terminal before ours.
        drain(List.of(failed));
        List<Rank> running = running();
        String stopping = running.isEmpty()
                ? ""
                : "; stopping the other " + running.size() + (running.size() == 1 ? " rank" : " ranks");
        err.message(name + ": rank " + failed.describe() + " " + ExitStatus.describe(code) + stopping);
        stop(running);
        return ExitStatus.launcherCode(code);
    }

    private int timedOut(Duration timeout) {
        List<Rank> running = running();
        err.message(name + ": timed out after " + seconds(timeout) + " with "
                + (running.size() == 1 ? "rank " : "ranks ")
                + running.stream().map(Rank::describe).collect(Collectors.joining(", "))
                + " still running; stopping " + (running.size() == 1 ? "it" : "them"));
        stop(running);
        return TIMED_OUT;
    }

    /**
     * Lets the other ranks run on when one fails, for programs that survive a lost rank ({@code Communicator.shrink}):
     * the job then succeeds if every rank still running when the first one failed exits 0.
     */
    RankSupervisor elastic() {
        this.elastic = true;
        return this;
    }

    private int cannotStart(int rank, IOException e) {
        // Java words it "error=2, No such file or directory" or "Exec failed, error: 2 (No such file or directory)".
        Matcher m = EXEC_ERROR.matcher(String.valueOf(e.getMessage()));
        int errno = m.find() ? Integer.parseInt(m.group(1)) : -1;
        String program = command.getFirst();
        String reason = switch (errno) {
            case ENOENT -> program.contains("/") ? "no such file" : "command not found on PATH";
            case EACCES -> "permission denied (not an executable file?)";
            default -> e.getMessage();
        };
        List<Rank> running = running();
        err.message(name + ": cannot start " + program + ": " + reason
                + (running.isEmpty() ? "" : " (rank " + rank + "); stopping the " + running.size() + " started"));
        stop(running);
        return errno == ENOENT ? NOT_FOUND : NOT_EXECUTABLE;
    }

    /** Shutdown hook: the launcher got SIGINT/SIGTERM (or System.exit) while ranks still run. */
    private void stopOnShutdown() {
        if (finished) return;
        shuttingDown = true;
        List<Rank> running = running();
        if (running.isEmpty()) return;
        err.message(name + ": launcher is shutting down; stopping " + running.size()
                + (running.size() == 1 ? " rank" : " ranks"));
        stop(running);
    }

    private List<Rank> running() {
        List<Rank> out = new ArrayList<>();
        for (Rank r : ranks) {
            if (r.process().isAlive()) out.add(r);
        }
        return out;
    }

    private static void stop(List<Rank> ranks) {
        ProcessTree.terminate(ranks.stream().map(r -> r.process().toHandle()).toList(), GRACE);
    }

    /** Waits (bounded) for the ranks' copiers to reach the end of their streams. */
    private static void drain(List<Rank> ranks) {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        for (Rank r : ranks) {
            for (Thread t : List.of(r.stdout(), r.stderr())) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return;
                try {
                    t.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }
}
