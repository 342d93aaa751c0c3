package dev.jccl.tools;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code jccl run -np N -- command...}: starts N ranks of a program on this host. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Start N local ranks of any program. Each gets JCCL_RANK, JCCL_WORLD_SIZE, JCCL_LOCAL_RANK,"
                    + " JCCL_LOCAL_SIZE and one JCCL_ID, so Jccl.fromEnvironment() joins them into one communicator.",
            "Output lines are prefixed with [rank]. When a rank fails the others are stopped and jccl exits"
                    + " with its code. Ranks use loopback (JCCL_SOCKET_IFNAME=lo) unless an interface is set."
        },
        footer = {"", "Example: jccl run -np 4 -- java -cp app.jar com.example.Train --epochs 3"})
final class RunCommand implements Callable<Integer> {
    @ParentCommand
    private JcclCommand parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "-np", required = true, paramLabel = "N", description = "Number of ranks (at least 1).")
    private int ranks;

    @Option(
            names = "--ifname",
            paramLabel = "FILTER",
            description = "Interface for the ranks (sets JCCL_SOCKET_IFNAME); default: the one already set, else lo.")
    private String ifname;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            description = "Stop all ranks after this long (30, 30s, 500ms, 2m) and exit 124.")
    private String timeout;

    @Option(
            names = "--elastic",
            description = "A rank that fails does not stop the others: for programs that survive a lost rank"
                    + " (Communicator.shrink). Exits 0 if the ranks that go on all exit 0.")
    private boolean elastic;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The program of every rank, and its arguments.")
    private List<String> command;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (ranks < 1) throw new ParameterException(spec.commandLine(), "-np must be at least 1, got " + ranks);
        Duration limit = RankEnvironment.parseTimeout(spec.commandLine(), timeout);
        List<Map<String, String>> environments = RankEnvironment.localJob(parent.environment(), ranks, ifname);
        RankSupervisor job = new RankSupervisor(
                RankEnvironment.withThisJdk(command),
                environments,
                new LineSink(parent.out()),
                new LineSink(parent.err()));
        if (elastic) job.elastic();
        return job.run(limit);
    }
}
