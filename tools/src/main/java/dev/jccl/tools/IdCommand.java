package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code jccl id}: prints a new {@link UniqueId}, for {@code JCCL_ID=$(jccl id)}. */
@Command(
        name = "id",
        mixinStandardHelpOptions = true,
        description = {
            "Print a new unique id for a communicator, e.g. export JCCL_ID=$(jccl id).",
            "Its address is on the interface JCCL_SOCKET_IFNAME selects (see `jccl info`); rank 0 must"
                    + " run on this host. Treat the id like a password: it holds the job's secret."
        })
final class IdCommand implements Callable<Integer> {
    @ParentCommand
    private JcclCommand parent;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--ifname",
            paramLabel = "FILTER",
            description = "Interface filter instead of JCCL_SOCKET_IFNAME: name prefixes, ^ to exclude, = for exact.")
    private String ifname;

    @Override
    public Integer call() throws IOException {
        Config config = Config.fromEnvironment(parent.environment());
        if (ifname != null) config = config.toBuilder().socketIfname(ifname).build();
        UniqueId id = UniqueId.create(config);
        // The id is for another process's rank 0: free the port now rather than hold it until exit.
        ServerSocketChannel reserved = id.takeReservedListener();
        if (reserved != null) reserved.close();
        spec.commandLine().getOut().println(id);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
