package dev.jccl.tools.doctor;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jccl doctor}: checks this host or container (or a captured one) for what breaks or slows RDMA, GPU Direct
 * RDMA, shared memory and the network setup of NCCL and Jccl, and says why and what to do. Exit code 1 when a check
 * fails, 2 for a usage error, else 0.
 *
 * <p>It only reads: files under the root, the environment, the network interface list, and open(2) of RDMA device nodes
 * (closed at once). It starts no tools and opens no connections.
 */
@Command(
        name = "doctor",
        description = {
            "Check this host or container for what breaks or slows RDMA, GPU Direct RDMA, shared memory "
                    + "and the network set-up of Jccl and NCCL: each problem with its evidence and a fix.",
            "Exit code: 0 when no check fails, 1 when one does, 2 for a usage error."
        })
public final class DoctorCommand implements Callable<Integer> {
    /** When to colour verdicts. */
    enum ColourMode {
        auto,
        always,
        never
    }

    private final Map<String, String> environment;
    private final boolean toProcessStdout;

    @Spec
    private CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help message and exit.")
    private boolean help;

    @Option(
            names = "--root",
            paramLabel = "DIR",
            description =
                    "Examine a tree captured with --capture instead of this host (its _doctor/ files stand in for "
                            + "the environment, interfaces and device permissions).")
    private Path root;

    @Option(
            names = "--capture",
            paramLabel = "DIR",
            description =
                    "Also write what the checks read on this host under DIR (a new or empty directory), for a bug "
                            + "report; replay it with --root DIR. Only NCCL_/JCCL_/UCX_/OMPI_/SLURM_/CUDA_/NVIDIA_ "
                            + "variables and "
                            + "the Kubernetes markers are kept, secrets replaced.")
    private Path capture;

    @Option(
            names = "--json",
            description = "Print {\"checks\":[{id, area, verdict, summary, evidence, fix}]} instead of text.")
    private boolean json;

    @Option(
            names = {"-v", "--verbose"},
            description = "Show the evidence of every check, not only of warnings and failures.")
    private boolean verbose;

    @Option(
            names = "--color",
            paramLabel = "WHEN",
            defaultValue = "auto",
            description = "Colour the verdicts: auto (on a terminal, unless NO_COLOR is set), always, never.")
    private ColourMode colour;

    /**
     * @param environment the variables to examine (the process environment, outside tests)
     * @param toProcessStdout whether the command's output is this process's standard output, which may be a terminal
     *     (tests capture it instead)
     */
    public DoctorCommand(Map<String, String> environment, boolean toProcessStdout) {
        this.environment = Map.copyOf(environment);
        this.toProcessStdout = toProcessStdout;
    }

    @Override
    public Integer call() throws IOException {
        CommandLine cl = spec.commandLine();
        if (root != null && capture != null) {
            throw new CommandLine.ParameterException(
                    cl, "--capture records this host; it cannot be combined with --root");
        }
        Host host;
        try {
            if (capture != null) Capture.checkTarget(capture);
            host = root == null ? Host.live(environment, capture != null) : Host.replay(root);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        List<CheckResult> results;
        try {
            results = Doctor.examine(host);
        } catch (IllegalArgumentException e) {
            // A malformed stand-in file under --root is read lazily by some checks.
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        PrintWriter out = cl.getOut();
        String where =
                root == null ? "this host" : "capture " + root.toAbsolutePath().normalize();
        out.print(json ? JsonReport.render(results) : TextReport.render(results, where, useColour(), verbose));
        out.flush();
        if (capture != null) {
            int files = Capture.write(capture, host, results);
            PrintWriter err = cl.getErr();
            err.println("jccl doctor: wrote " + files + " files and links under "
                    + capture.toAbsolutePath().normalize() + "; replay with: jccl doctor --root " + capture);
            err.flush();
        }
        return Doctor.anyFailed(results) ? 1 : 0;
    }

    private boolean useColour() {
        return switch (colour) {
            case always -> true;
            case never -> false;
            case auto -> {
                String noColor = environment.get("NO_COLOR");
                if (noColor != null && !noColor.isEmpty()) yield false;
                if ("dumb".equals(environment.get("TERM"))) yield false;
                yield toProcessStdout
                        && System.console() != null
                        && System.console().isTerminal();
            }
        };
    }
}
