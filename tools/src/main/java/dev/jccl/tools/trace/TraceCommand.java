package dev.jccl.tools.trace;

import dev.jccl.tools.Charts;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code jccl trace DIR}: lays the flight-recorder dumps of a communicator's ranks side by side and says in plain words
 * what they show: missing ranks, the verdict, where each rank was, which rank is behind, the first collective the ranks
 * did not agree on, and a timeline of the last collectives. Bad input is an {@link IllegalArgumentException} whose
 * message names the file and what to do, for the top-level handler to print as one line (exit 1).
 */
@Command(
        name = "trace",
        mixinStandardHelpOptions = true,
        description = {
            "Merge the flight-recorder dumps in DIR (jccl-trace-<communicator>-rank<r>.json, written on failure into"
                    + " JCCL_TRACE_DIR, or by comm.dumpTrace(path)) and say which rank is behind, where the ranks"
                    + " first called different collectives, and what each rank was doing.",
            "With dumps of several communicators in DIR, each is shown, newest first, unless --comm names one."
        },
        footer = {
            "",
            "Examples:",
            "  JCCL_TRACE_DIR=/shared/traces mpirun -np 8 … ; jccl trace /shared/traces",
            "  jccl trace /shared/traces --last 30 --plot timeline.png",
            "  jccl trace /shared/traces --json | jq '.communicators[0].behind'"
        })
public final class TraceCommand implements Callable<Integer> {
    /** The {@code tool} field of the JSON, as {@code jccl perf --json} has one. */
    static final String TOOL = "jccl trace";

    @Spec
    private CommandSpec spec;

    @Parameters(
            paramLabel = "DIR",
            description = "The directory holding the dumps (JCCL_TRACE_DIR, or where dumpTrace wrote them).")
    private Path dir;

    @Option(
            names = "--comm",
            paramLabel = "ID",
            description = "Only the communicator with this id (hex, as the dump file names and the report show it).")
    private String comm;

    @Option(
            names = "--last",
            paramLabel = "N",
            defaultValue = "10",
            description = "How many of the newest collectives the timeline shows (default ${DEFAULT-VALUE}).")
    private int last;

    @Option(
            names = "--plot",
            paramLabel = "FILE.png",
            description = "Also draw the timeline (time against rank, each operation a bar coloured by state) as a"
                    + " PNG; with several communicators, the newest or the one --comm names.")
    private Path plot;

    @Option(names = "--json", description = "Print the same analysis as JSON, for scripts.")
    private boolean json;

    public TraceCommand() {}

    @Override
    public Integer call() {
        if (last < 1) throw new ParameterException(spec.commandLine(), "--last must be at least 1, got " + last);
        if (plot != null) Charts.checkWritable(plot);
        TraceFiles.Contents contents = TraceFiles.readDirectory(dir);
        Map<String, List<TraceDump>> byComm = newestFirst(contents.dumps());
        if (comm != null) byComm = only(byComm);

        List<TraceAnalysis> analyses = new ArrayList<>();
        byComm.values().forEach(dumps -> analyses.add(TraceAnalysis.of(dumps, last)));

        PrintWriter out = spec.commandLine().getOut();
        // The plot's one line goes to stderr under --json, so that stdout stays one JSON document.
        PrintWriter said = json ? spec.commandLine().getErr() : out;
        if (json) {
            out.print(json(contents.notes(), analyses));
        } else {
            out.print(text(contents.notes(), analyses));
        }
        if (plot != null) {
            TraceAnalysis first = analyses.getFirst();
            TracePlot.Drawn d = TracePlot.write(first, byComm.get(first.commId()), plot);
            String window = d.fromSeq() == d.toSeq() ? "#" + d.fromSeq() : "#" + d.fromSeq() + "–#" + d.toSeq();
            said.println((json ? "" : "\n") + "wrote " + plot + " (communicator " + first.commId() + ", collectives "
                    + window + ", " + Words.count(d.operations(), "operation", "operations") + " of "
                    + Words.count(d.ranks(), "rank", "ranks") + ")");
        }
        out.flush();
        said.flush();
        return 0;
    }

    /** The dumps by communicator, the one with the newest dump first. */
    private static Map<String, List<TraceDump>> newestFirst(List<TraceDump> dumps) {
        Map<String, List<TraceDump>> byComm = dumps.stream()
                .collect(Collectors.groupingBy(TraceDump::commId, LinkedHashMap::new, Collectors.toList()));
        Map<String, List<TraceDump>> sorted = new LinkedHashMap<>();
        byComm.entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<String, List<TraceDump>> e) -> -newest(e.getValue())))
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    private static long newest(List<TraceDump> dumps) {
        return dumps.stream().mapToLong(TraceDump::dumpedAtMicros).max().orElse(0);
    }

    /** The communicator {@code --comm} names: its id in hex, with or without 0x and leading zeros. */
    private Map<String, List<TraceDump>> only(Map<String, List<TraceDump>> byComm) {
        long wanted = parseId(comm);
        for (Map.Entry<String, List<TraceDump>> e : byComm.entrySet()) {
            if (idValue(e.getKey()) != null && idValue(e.getKey()) == wanted) return Map.of(e.getKey(), e.getValue());
        }
        throw new IllegalArgumentException(
                "no dump of communicator " + comm + " in " + dir + "; it holds " + listing(byComm));
    }

    private long parseId(String id) {
        Long v = idValue(id);
        if (v == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--comm takes a communicator id in hex (e.g. 5c2f0a1b2c3d4e5f), got '" + id + "'");
        }
        return v;
    }

    private static Long idValue(String id) {
        String hex = id.strip().toLowerCase(Locale.ROOT);
        if (hex.startsWith("0x")) hex = hex.substring(2);
        try {
            return hex.isEmpty() || hex.length() > 16 ? null : Long.parseUnsignedLong(hex, 16);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code 5c2f… (3 dumps), 11aa… (2 dumps)}. */
    private static String listing(Map<String, List<TraceDump>> byComm) {
        return byComm.entrySet().stream()
                .map(e -> e.getKey() + " (" + Words.count(e.getValue().size(), "dump", "dumps") + ", newest at "
                        + TraceText.time(newest(e.getValue())) + ")")
                .collect(Collectors.joining(", "));
    }

    private String text(List<String> notes, List<TraceAnalysis> analyses) {
        StringBuilder s = new StringBuilder();
        for (String note : notes) s.append("note: ").append(note).append('\n');
        if (analyses.size() > 1) {
            s.append(dir)
                    .append(" holds dumps of ")
                    .append(analyses.size())
                    .append(" communicators, shown newest first (--comm ID for one): ")
                    .append(analyses.stream()
                            .map(a -> a.commId() + " (" + Words.count(a.ranks().size(), "dump", "dumps") + ")")
                            .collect(Collectors.joining(", ")))
                    .append('\n');
        }
        if (!s.isEmpty()) s.append('\n');
        for (int i = 0; i < analyses.size(); i++) {
            if (i > 0) s.append('\n');
            s.append(TraceText.render(analyses.get(i)));
        }
        return s.toString();
    }

    private String json(List<String> notes, List<TraceAnalysis> analyses) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("tool", TOOL);
        doc.put("dir", dir.toString());
        doc.put("notes", notes);
        doc.put("communicators", analyses);
        return TraceJson.write(doc);
    }
}
