package dev.jccl.tools.doctor;

import dev.jccl.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * I3, I4 and Jccl's own variable check: names that nothing reads, values that are refused or silently replaced, and
 * debugging switches left on that turn fast paths off.
 */
record VariableChecks(HostFacts facts) {
    private static final Set<String> ALGORITHMS =
            Set.of("ring", "tree", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat", "collnet");
    private static final Set<String> LEVELS = Set.of("LOC", "NVL", "PIX", "PXB", "PHB", "SYS");
    /** Variables whose values must not be printed: they hold the job's authentication secret. */
    private static final Set<String> SECRET_VARIABLES = Set.of("JCCL_SECRET", "JCCL_ID");

    /** I3 {@code env-nccl-unknown}. */
    CheckResult ncclUnknown() {
        Findings f = new Findings(Check.ENV_NCCL_UNKNOWN);
        List<NcclSettings.Setting> settings = NcclSettings.read(facts);
        if (settings.isEmpty()) return f.ok("No NCCL_* variables set and no NCCL config file.");
        Version detected = facts.newestNccl();
        Version reference = detected != null ? detected : NcclVariables.NEWEST_COVERED;
        f.evidence(
                "compared with",
                detected != null
                        ? "NCCL " + detected + " (found here)"
                        : "NCCL " + reference + " (newest known; none found here)");
        String removeFix = "remove or rename the variable";
        for (NcclSettings.Setting s : settings) {
            String name = s.name();
            String value = s.value() == null ? "" : s.value().trim();
            f.evidence(s.evidenceSource(), value);
            String shown = name + "=" + value;
            if (NcclVariables.NOT_NCCL_BUT_FINE.containsKey(name)) {
                f.evidence(name, NcclVariables.NOT_NCCL_BUT_FINE.get(name));
                continue;
            }
            if (NcclVariables.REMOVED_EARLY.containsKey(name)) {
                f.problem(
                        Verdict.WARN,
                        shown + " is no longer read (" + NcclVariables.REMOVED_EARLY.get(name) + ")",
                        removeFix);
                continue;
            }
            NcclVariables.Span span = NcclVariables.span(name);
            if (span == null) {
                String nearest = NcclVariables.nearest(name);
                String why = switch (name) {
                    case "NCCL_IB_MTU" -> "; NCCL takes the path MTU from the port (see roce-mtu)";
                    case "NCCL_TIMEOUT" ->
                        "; for timeouts use the framework's (e.g. torch init_process_group(timeout=…)), or "
                                + "NCCL_IB_TIMEOUT / NCCL_IB_RETRY_CNT for the IB retry timer";
                    default -> nearest == null ? "" : "; did you mean " + nearest + "?";
                };
                boolean typo = nearest != null && why.startsWith("; did you mean");
                f.problem(
                        Verdict.WARN,
                        shown + " is not an NCCL variable (no release reads it)" + why,
                        typo ? "rename it to " + nearest + ", or remove it" : removeFix);
                continue;
            }
            if (span.last().compareTo(reference) < 0) {
                String replacement = NcclVariables.REPLACED_BY.get(name);
                f.problem(
                        Verdict.WARN,
                        shown + " is no longer read (last read by NCCL " + span.last() + ")"
                                + (replacement == null ? "" : "; use " + replacement),
                        removeFix);
                continue;
            }
            if (detected != null && span.first().compareTo(detected) > 0) {
                f.problem(
                        Verdict.WARN,
                        shown + " is read only from NCCL " + span.first() + "; NCCL " + detected + " ignores it",
                        "upgrade NCCL, or remove the variable");
            }
            checkValue(f, name, value, detected);
        }
        return f.conclude(settings.size() + " NCCL setting" + (settings.size() == 1 ? "" : "s") + ", all read by NCCL "
                + reference + ".");
    }

    /** Value rules of I3. */
    private void checkValue(Findings f, String name, String value, Version detected) {
        String fix = "correct the value of " + name;
        switch (name) {
            case "NCCL_NTHREADS" -> {
                if (!Set.of("64", "128", "256", "512").contains(value)) {
                    f.problem(
                            Verdict.WARN,
                            "NCCL_NTHREADS=" + value + " is not 64, 128, 256 or 512: NCCL silently uses another value",
                            fix);
                }
            }
            case "NCCL_ALGO" -> {
                List<String> bad = unknownAlgorithms(value);
                if (!bad.isEmpty()) {
                    boolean fatal = detected != null && detected.atLeast("2.24");
                    f.problem(
                            fatal ? Verdict.FAIL : Verdict.WARN,
                            "NCCL_ALGO=" + value + " names no algorithm " + bad
                                    + (fatal
                                            ? ": NCCL " + detected + " fails to initialize"
                                            : " (NCCL ≥ 2.24 refuses to initialize)"),
                            "use Ring, Tree, CollnetDirect, CollnetChain, NVLS, NVLSTree or PAT, or unset NCCL_ALGO");
                }
            }
            case "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL" -> {
                String v = value.toUpperCase(Locale.ROOT);
                boolean ok = LEVELS.contains(v) || v.matches("\\d+");
                if (name.equals("NCCL_NET_GDR_LEVEL") && v.equals("NVL")) ok = false;
                if (!ok) {
                    f.problem(
                            Verdict.WARN,
                            name + "=" + value + " is not a level (LOC, PIX, PXB, PHB, SYS"
                                    + (name.equals("NCCL_P2P_LEVEL") ? ", NVL" : "") + " or 0–4)",
                            fix);
                }
            }
            case "NCCL_IB_GID_INDEX" -> {
                if (!value.matches("-?\\d+")) {
                    f.problem(Verdict.WARN, "NCCL_IB_GID_INDEX=" + value + " is not an integer", fix);
                }
            }
            case "NCCL_IB_RETRY_CNT" -> rangeRule(f, name, value, 0, 7, fix);
            case "NCCL_IB_TIMEOUT" -> rangeRule(f, name, value, 0, 31, fix);
            case "NCCL_NET" -> {
                List<String> plugins = new ArrayList<>();
                for (String path : facts.findLibraries("libnccl-net-*.so*")) {
                    plugins.add(HostFiles.nameOf(path)
                            .replaceFirst("^libnccl-net-", "")
                            .replaceFirst("\\.so.*$", ""));
                }
                boolean known = value.equalsIgnoreCase("IB")
                        || value.equalsIgnoreCase("Socket")
                        || plugins.stream().anyMatch(p -> p.equalsIgnoreCase(value));
                if (!known) {
                    f.problem(
                            Verdict.WARN,
                            "NCCL_NET=" + value + " is neither IB, Socket nor an installed net plugin"
                                    + (plugins.isEmpty() ? "" : " " + plugins),
                            "use NCCL_NET=IB or Socket, or install the plugin");
                }
            }
            default -> {}
        }
    }

    private static void rangeRule(Findings f, String name, String value, int min, int max, String fix) {
        try {
            int v = Integer.parseInt(value);
            if (v >= min && v <= max) return;
        } catch (NumberFormatException e) {
            // falls through to the problem
        }
        f.problem(Verdict.WARN, name + "=" + value + " is outside " + min + "–" + max, fix);
    }

    /** Tokens of NCCL_ALGO that are not algorithms: {@code ^ring,tree}, {@code allreduce:tree;broadcast:ring}. */
    static List<String> unknownAlgorithms(String value) {
        List<String> bad = new ArrayList<>();
        for (String part : value.split(";")) {
            String list = part.contains(":") ? part.substring(part.indexOf(':') + 1) : part;
            list = list.trim();
            if (list.startsWith("^")) list = list.substring(1);
            for (String token : list.split(",")) {
                String t = token.trim().toLowerCase(Locale.ROOT);
                if (!t.isEmpty() && !ALGORITHMS.contains(t)) bad.add(token.trim());
            }
        }
        return bad;
    }

    /** Jccl's own {@code env-jccl-unknown}: names Jccl does not read, and values it would refuse. */
    CheckResult jcclUnknown() {
        Findings f = new Findings(Check.ENV_JCCL_UNKNOWN);
        List<String> names = new ArrayList<>();
        for (String name : facts.environment().keySet()) {
            if (name.startsWith("JCCL_")) names.add(name);
        }
        names.sort(null);
        for (String name : names) {
            f.evidence(
                    "env " + name,
                    SECRET_VARIABLES.contains(name)
                            ? "(set; value not shown)"
                            : facts.environment().get(name));
        }
        Config config;
        try {
            config = Config.fromEnvironment(facts.environment());
        } catch (IllegalArgumentException e) {
            return f.fail(
                    "A Jccl rank would refuse to start: " + e.getMessage(),
                    "correct or unset the variable named above");
        }
        int aliases = 0;
        for (String[] row : config.describe()) {
            if (row[2].startsWith("NCCL_")) {
                f.evidence("Jccl reads " + row[2], row[0] + " = " + row[1]);
                aliases++;
            }
        }
        for (String unknown : Config.unknownVariables(facts.environment())) {
            String name = unknown.contains(" ") ? unknown.substring(0, unknown.indexOf(' ')) : unknown;
            String hint = unknown.substring(name.length()).trim();
            f.problem(
                    Verdict.WARN,
                    name + " is not a Jccl variable " + hint + ": Jccl ignores it",
                    "rename or remove it (jccl info lists the variables Jccl reads)");
        }
        if (names.isEmpty()) {
            return f.conclude("No JCCL_* variables set: Jccl uses its defaults"
                    + (aliases == 0
                            ? "."
                            : ", and reads " + aliases + " NCCL_* variable" + (aliases == 1 ? "" : "s")
                                    + " as its own (see the evidence)."));
        }
        return f.conclude(names.size() + " JCCL_* variable" + (names.size() == 1 ? "" : "s")
                + ", all read by Jccl and well formed.");
    }

    /** I4 {@code env-transport-overrides}. */
    CheckResult transportOverrides() {
        Findings f = new Findings(Check.ENV_TRANSPORT_OVERRIDES);
        List<NcclSettings.Setting> settings = NcclSettings.read(facts);
        long activePorts =
                facts.allPorts().stream().filter(HostFacts.RdmaPort::active).count();
        int gpus = facts.visibleGpus().size();
        boolean gdrCapable = facts.hasGpu() && facts.hasRdma();
        String unset = "unset it once debugging is done";
        List<String> set = new ArrayList<>();

        String ibDisable = NcclSettings.value(settings, "NCCL_IB_DISABLE");
        String net = NcclSettings.value(settings, "NCCL_NET");
        if ("1".equals(ibDisable) || "socket".equalsIgnoreCase(net)) {
            String what = "1".equals(ibDisable) ? "NCCL_IB_DISABLE=1" : "NCCL_NET=" + net;
            set.add(what);
            if (activePorts > 0) {
                f.problem(
                        Verdict.WARN,
                        what + " is set although " + activePorts + " ACTIVE RDMA port" + (activePorts == 1 ? "" : "s")
                                + " exist — collectives will use TCP",
                        unset);
            }
        }
        disabled(
                f,
                set,
                settings,
                "NCCL_P2P_DISABLE",
                "1",
                gpus >= 2,
                gpus + " GPUs are visible: NCCL will copy between them through host memory");
        disabled(
                f,
                set,
                settings,
                "NCCL_NET_GDR_LEVEL",
                "LOC",
                gdrCapable,
                "GPU Direct RDMA is turned off although GPUs and RDMA NICs exist");
        disabled(
                f,
                set,
                settings,
                "NCCL_NET_GDR_LEVEL",
                "0",
                gdrCapable,
                "GPU Direct RDMA is turned off although GPUs and RDMA NICs exist");
        disabled(f, set, settings, "NCCL_DMABUF_ENABLE", "0", gdrCapable, "DMA-BUF GPU Direct RDMA is turned off");
        disabled(
                f,
                set,
                settings,
                "NCCL_IB_PCI_RELAXED_ORDERING",
                "0",
                facts.hasRdma(),
                "relaxed ordering is turned off for RDMA memory");
        disabled(f, set, settings, "NCCL_CUMEM_ENABLE", "0", facts.hasGpu(), "NCCL's cuMem allocations are turned off");
        // Jccl reads NCCL_SHM_DISABLE as its own SHM_DISABLE (JCCL_ wins), so either turns its shm transport off.
        for (String name : List.of("NCCL_SHM_DISABLE", "JCCL_SHM_DISABLE")) {
            String v = name.startsWith("NCCL_") ? NcclSettings.value(settings, name) : facts.env(name);
            if ("1".equals(v)) {
                set.add(name + "=1");
                f.problem(
                        Verdict.WARN,
                        name + "=1 turns shared memory off: ranks of one host talk over the network"
                                + (name.startsWith("NCCL_")
                                        ? " (in NCCL, and in Jccl, which reads it too)"
                                        : " (Jccl)"),
                        unset);
            }
        }
        for (String knob : List.of("ALGO", "PROTO")) {
            for (String prefix : List.of("NCCL_", "JCCL_")) {
                String v =
                        prefix.equals("NCCL_") ? NcclSettings.value(settings, prefix + knob) : facts.env(prefix + knob);
                if (v == null || v.isBlank()) continue;
                set.add(prefix + knob + "=" + v);
                f.problem(
                        Verdict.WARN,
                        prefix + knob + "=" + v + " forces the " + (knob.equals("ALGO") ? "algorithm" : "protocol")
                                + (prefix.equals("NCCL_")
                                        ? " (NCCL, and Jccl unless JCCL_" + knob + " is set)"
                                        : " (Jccl)")
                                + ": the tuner cannot pick the fastest one per size",
                        unset);
            }
        }
        for (String prefix : List.of("NCCL_", "JCCL_")) {
            String level =
                    prefix.equals("NCCL_") ? NcclSettings.value(settings, "NCCL_DEBUG") : facts.env("JCCL_DEBUG");
            String subsys = prefix.equals("NCCL_")
                    ? NcclSettings.value(settings, "NCCL_DEBUG_SUBSYS")
                    : facts.env("JCCL_DEBUG_SUBSYS");
            if (level != null
                    && (level.equalsIgnoreCase("INFO") || level.equalsIgnoreCase("TRACE"))
                    && "ALL".equalsIgnoreCase(subsys)) {
                set.add(prefix + "DEBUG=" + level + " " + prefix + "DEBUG_SUBSYS=ALL");
                f.problem(
                        Verdict.WARN,
                        prefix + "DEBUG=" + level + " with " + prefix + "DEBUG_SUBSYS=ALL logs every operation: "
                                + "meant for debugging, not production",
                        unset);
            }
        }
        for (String s : set) f.evidence("set", s);
        return f.conclude(
                set.isEmpty()
                        ? "No variable turns a fast path off."
                        : "Set, but without effect here: " + String.join(", ", set) + ".");
    }

    /** One "fast path disabled" rule: a warning when the hardware for it exists, else only evidence. */
    private void disabled(
            Findings f,
            List<String> set,
            List<NcclSettings.Setting> settings,
            String name,
            String value,
            boolean hardwarePresent,
            String consequence) {
        String v = NcclSettings.value(settings, name);
        if (v == null || !v.equalsIgnoreCase(value)) return;
        set.add(name + "=" + v);
        if (hardwarePresent) {
            f.problem(Verdict.WARN, name + "=" + v + ": " + consequence, "unset it once debugging is done");
        }
    }
}
