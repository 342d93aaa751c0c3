package dev.jccl.tools;

import dev.jccl.Config;
import dev.jccl.plan.CalibrationFile;
import dev.jccl.plan.HostGroups;
import dev.jccl.plan.Tuner;
import dev.jccl.topology.CpuSharing;
import dev.jccl.topology.InterfaceSelector.Candidate;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code jccl info}: version, Java, host, interface, transports, effective configuration, warnings. */
@Command(
        name = "info",
        mixinStandardHelpOptions = true,
        description = "Show what Jccl would use on this host: interface, transports and the effective "
                + "configuration with where each value comes from.")
final class InfoCommand implements Callable<Integer> {
    @ParentCommand
    private JcclCommand parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "--json", description = "Print the same report as one JSON object.")
    private boolean json;

    @Option(
            names = "--tuner",
            description = "Print the tuner's estimates and picks per collective and size (8 B to 256 MiB) instead: "
                    + "what a communicator of --ranks ranks on --hosts hosts would run, with this environment's "
                    + "JCCL_ALGO, JCCL_PROTO, JCCL_SHM_DISABLE, JCCL_OVERSUBSCRIBED and calibration file.")
    private boolean tuner;

    @Option(
            names = "--ranks",
            paramLabel = "N",
            description = "With --tuner: ranks in the communicator (default: ${DEFAULT-VALUE}).",
            defaultValue = "8")
    private int ranks;

    @Option(
            names = "--hosts",
            paramLabel = "H",
            description = "With --tuner: hosts the ranks are spread over, evenly (default: ${DEFAULT-VALUE}).",
            defaultValue = "1")
    private int hosts;

    @Override
    public Integer call() {
        if (tuner) return printTuner();
        HostReport report = HostReport.gather(parent.environment());
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? json(report) : text(report));
        out.flush();
        return 0;
    }

    private int printTuner() {
        if (ranks < 1 || hosts < 1 || ranks % hosts != 0) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--ranks " + ranks + " on --hosts " + hosts
                            + ": both must be positive and the ranks must spread evenly over the hosts");
        }
        Config config = Config.fromEnvironment(parent.environment());
        int perHost = ranks / hosts;
        boolean shm = !config.shmDisable() && perHost > 1;
        boolean oversubscribed = switch (config.oversubscription()) {
            case YES -> true;
            case NO -> false;
            case AUTO -> perHost > Runtime.getRuntime().availableProcessors();
        };
        // As the communicator counts it (CpuSharing.ranksPerCpu), with this host's CPUs for every host's.
        double ranksPerCpu = oversubscribed
                ? CpuSharing.ranksPerCpu(perHost, Runtime.getRuntime().availableProcessors())
                : 1;
        CalibrationFile.Loaded calibration = Calibrations.load(config, parent.environment());
        Tuner t = new Tuner(
                ranks,
                HostGroups.evenly(hosts, perHost),
                shm && hosts == 1,
                hosts > 1 || !shm,
                oversubscribed,
                ranksPerCpu,
                config.algo(),
                config.proto(),
                calibration.calibration(),
                config.chunkBytes(hosts == 1 && !shm && config.net() == null, oversubscribed));
        PrintWriter out = spec.commandLine().getOut();
        for (String w : calibration.warnings()) out.println("warning: " + w);
        for (String w : t.warnings()) out.println("warning: " + w);
        out.println(t.choiceTable(8, 256L << 20, 8));
        out.flush();
        return 0;
    }

    static String text(HostReport r) {
        StringBuilder s = new StringBuilder();
        s.append("jccl ").append(r.jcclVersion()).append('\n');
        s.append("java        ")
                .append(r.javaVersion())
                .append(" (")
                .append(r.javaVendor())
                .append(") at ")
                .append(r.javaHome())
                .append('\n');
        s.append("host        ").append(r.hostName()).append('\n');
        s.append('\n');
        s.append("interface   ");
        if (r.selected() != null) {
            s.append(r.selected().name())
                    .append(' ')
                    .append(r.selected().address().getHostAddress());
        } else s.append("none: ").append(r.selectionError());
        s.append('\n');
        s.append("  filter    ")
                .append(
                        r.ifnameFilter() == null
                                ? "(auto: ib*, then any but lo/docker*/virbr*, then docker*, then lo)"
                                : r.ifnameFilter() + " (from " + r.ifnameSource() + ")")
                .append('\n');
        s.append("  candidates");
        if (r.candidates().isEmpty()) s.append(" (none)");
        for (Candidate c : r.candidates()) {
            s.append(' ')
                    .append(c.name())
                    .append(' ')
                    .append(c.address().getHostAddress())
                    .append(',');
        }
        if (!r.candidates().isEmpty()) s.setLength(s.length() - 1);
        s.append('\n');
        s.append('\n');
        s.append("transports\n");
        for (HostReport.TransportStatus t : r.transports()) {
            s.append("  ")
                    .append(String.format("%-5s", t.name()))
                    .append(' ')
                    .append(t.detail())
                    .append('\n');
        }
        s.append('\n');
        s.append("compute\n");
        s.append("  cpus    ").append(r.cpus()).append(" for this process (its affinity mask and CPU quota)\n");
        s.append("  waiting ").append(r.waiting()).append('\n');
        s.append("  kernels ").append(r.kernels()).append('\n');
        s.append('\n');
        s.append("configuration\n");
        table(s, r.config());
        s.append('\n');
        if (r.warnings().isEmpty()) {
            s.append("warnings    none\n");
        } else {
            s.append("warnings\n");
            for (String w : r.warnings()) s.append("  ").append(w).append('\n');
        }
        return s.toString();
    }

    private static void table(StringBuilder s, List<String[]> rows) {
        String[] header = {"NAME", "VALUE", "SOURCE"};
        int[] width = {header[0].length(), header[1].length()};
        for (String[] row : rows) {
            width[0] = Math.max(width[0], row[0].length());
            width[1] = Math.max(width[1], row[1].length());
        }
        String format = "  %-" + width[0] + "s  %-" + width[1] + "s  %s\n";
        s.append(String.format(format, (Object[]) header));
        for (String[] row : rows) s.append(String.format(format, (Object[]) row));
    }

    static String json(HostReport r) {
        JsonWriter w = new JsonWriter().beginObject();
        w.field("version", r.jcclVersion());
        w.name("java")
                .beginObject()
                .field("version", r.javaVersion())
                .field("vendor", r.javaVendor())
                .field("home", r.javaHome())
                .endObject();
        w.field("host", r.hostName());
        w.name("interface").beginObject();
        w.field("filter", r.ifnameFilter()).field("filterSource", r.ifnameSource());
        w.name("selected");
        if (r.selected() == null) w.value((String) null);
        else candidate(w, r.selected());
        w.field("error", r.selectionError());
        w.name("candidates").beginArray();
        for (Candidate c : r.candidates()) candidate(w, c);
        w.endArray().endObject();
        w.name("transports").beginArray();
        for (HostReport.TransportStatus t : r.transports()) {
            w.beginObject()
                    .field("name", t.name())
                    .field("available", t.available())
                    .field("detail", t.detail())
                    .endObject();
        }
        w.endArray();
        w.name("compute")
                .beginObject()
                .field("cpus", r.cpus())
                .field("waiting", r.waiting())
                .field("kernels", r.kernels())
                .endObject();
        w.name("config").beginArray();
        for (String[] row : r.config()) {
            w.beginObject()
                    .field("name", row[0])
                    .field("value", row[1])
                    .field("source", row[2])
                    .endObject();
        }
        w.endArray();
        w.name("warnings").beginArray();
        for (String warning : r.warnings()) w.value(warning);
        w.endArray();
        return w.endObject() + "\n";
    }

    private static void candidate(JsonWriter w, Candidate c) {
        w.beginObject()
                .field("name", c.name())
                .field("address", c.address().getHostAddress())
                .endObject();
    }
}
