package dev.jccl.tools;

import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.tools.doctor.DoctorCommand;
import dev.jccl.tools.trace.TraceCommand;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code jccl} command: {@code id}, {@code info}, {@code run}, {@code perf}, {@code trace}, {@code doctor}.
 * {@code ./jccl} at the repository root builds and runs it.
 *
 * <p>The environment and the two output streams are fields rather than globals so that tests can run the command
 * in-process with their own; {@link #main} passes the real ones.
 */
@Command(
        name = "jccl",
        mixinStandardHelpOptions = true,
        versionProvider = JcclCommand.Version.class,
        subcommands = {
            IdCommand.class,
            InfoCommand.class,
            RunCommand.class,
            PerfCommand.class,
            TraceCommand.class,
            SimCommand.class
        },
        description = "Tools for Jccl, collective communication for the JVM.")
public final class JcclCommand {
    private final Map<String, String> environment;
    private final PrintStream out;
    private final PrintStream err;

    JcclCommand(Map<String, String> environment, PrintStream out, PrintStream err) {
        this.environment = Map.copyOf(environment);
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.getenv(), System.out, System.err).execute(args));
    }

    /** The command line, reading variables from {@code environment} and writing to {@code out} / {@code err}. */
    static CommandLine commandLine(Map<String, String> environment, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new JcclCommand(environment, out, err));
        // An instance rather than a class in @Command: doctor lives in its own package and takes the environment here.
        cl.addSubcommand("doctor", new DoctorCommand(environment, out == System.out));
        cl.setOut(new PrintWriter(new OutputStreamWriter(out, out.charset()), true));
        cl.setErr(new PrintWriter(new OutputStreamWriter(err, err.charset()), true));
        // `jccl run -np 2 java -version`: everything from the command on belongs to the command.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.setExecutionExceptionHandler((e, failed, parseResult) -> {
            PrintWriter w = failed.getErr();
            if (e instanceof IllegalArgumentException
                    || e instanceof IllegalStateException
                    || e instanceof JcclException) {
                // Jccl's own messages say what is wrong and what to do; a stack trace would bury that.
                w.println(failed.getCommandSpec().qualifiedName() + ": " + e.getMessage());
            } else {
                e.printStackTrace(w);
            }
            w.flush();
            return 1;
        });
        return cl;
    }

    /** The variables the subcommands read (the process environment, outside tests). */
    Map<String, String> environment() {
        return environment;
    }

    /** Where a subcommand writes raw bytes that must pass through unchanged (ranks' output). */
    PrintStream out() {
        return out;
    }

    PrintStream err() {
        return err;
    }

    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "jccl " + Jccl.version() + " (Java " + Runtime.version() + ", " + System.getProperty("java.vendor")
                        + ")"
            };
        }
    }
}
