package dev.jccl.transport;

import dev.jccl.JcclException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Which network transport {@code JCCL_NET} asks for: {@code Socket} (or unset) is the core's own; any other name must
 * be a {@link NetPlugin} on the class path. NCCL's {@code IB} (verbs) is served by the UCX plugin, which is how Jccl
 * reaches InfiniBand and RoCE.
 */
public final class NetPlugins {
    public static final String SOCKET = "Socket";

    private NetPlugins() {}

    /** Every plugin on the class path. */
    public static List<NetPlugin> all() {
        List<NetPlugin> out = new ArrayList<>();
        for (NetPlugin p : ServiceLoader.load(NetPlugin.class, NetPlugins.class.getClassLoader())) out.add(p);
        return out;
    }

    /** The plugin named {@code name}, if it is on the class path. */
    public static Optional<NetPlugin> named(String name) {
        for (NetPlugin p : all()) {
            if (p.name().equalsIgnoreCase(name)) return Optional.of(p);
        }
        return Optional.empty();
    }

    /** The plugin {@code JCCL_NET=net} selects, or empty for the sockets; a name nothing serves is a clear error. */
    public static Optional<NetPlugin> select(String net) {
        if (net == null || net.isBlank() || net.equalsIgnoreCase(SOCKET)) return Optional.empty();
        String wanted = net.trim().equalsIgnoreCase("IB") ? "UCX" : net.trim();
        Optional<NetPlugin> p = named(wanted);
        if (p.isPresent()) return p;
        List<String> names = new ArrayList<>(List.of(SOCKET));
        for (NetPlugin q : all()) names.add(q.name());
        String hint = wanted.toUpperCase(Locale.ROOT).equals("UCX")
                ? " The UCX transport is the jccl-ucx module: put its jar (and JUCX) on the "
                        + "class path, as the jccl tool does."
                : "";
        throw new JcclException("JCCL_NET=" + net.trim() + " names no network transport here; available: "
                + String.join(", ", names) + "." + hint);
    }
}
