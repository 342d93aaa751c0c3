package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.Bootstrap;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.HostIdentity;
import dev.jccl.debug.Log;
import dev.jccl.plan.HostGroups;
import dev.jccl.plan.Tuner;
import dev.jccl.topology.CpuSharing;
import dev.jccl.topology.InterfaceSelector;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPlugins;
import dev.jccl.transport.table.Endpoints;
import dev.jccl.transport.table.TransportTable;
import dev.jccl.transport.table.Wiring;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * Makes communicators: {@link #create} from a unique id (endpoints, the bootstrap's peer table, the transport table's
 * wiring, the tuner), and {@link #split} from a parent's ranks, both through {@link #finishInit}, so a child is wired
 * exactly as a root communicator is.
 */
final class CommunicatorInit {
    /** Room per rank for a network plugin's address (Base64) when a split exchanges them. */
    private static final int NET_ADDRESS_MAX = 4096;
    /** What each rank tells the others in a split: color, key, the child's data port and control port. */
    private static final int SPLIT_FIELDS = 4;

    private CommunicatorInit() {}

    /** What a communicator is made of, once its ranks have met and its transports are wired. */
    record Setup(
            int rank,
            int size,
            Config config,
            Log log,
            long commId,
            byte[] secret,
            Wiring wiring,
            NetPlugin plugin,
            List<PeerInfo> peers,
            Tuner tuner,
            WaitPolicy waiting,
            ControlChannel control) {}

    static Communicator create(int rank, int size, UniqueId id, Config config) {
        Log log = new Log(config, rank);
        long start = System.nanoTime();
        if (rank == 0) {
            log.version("JCCL version " + Jccl.version() + " (Java " + Runtime.version() + ")");
            for (String unknown : Config.unknownVariables(System.getenv())) {
                log.warn(Log.Subsys.ENV, "unknown variable " + unknown);
            }
        }
        InterfaceSelector.Candidate nic = InterfaceSelector.select(config.socketIfname());
        log.info(
                Log.Subsys.NET,
                "NET/Socket : Using [0]" + nic.name() + ":" + nic.address().getHostAddress());
        long commId = hash(id.toString().getBytes(StandardCharsets.UTF_8));
        NetPlugin plugin = NetPlugins.select(config.net()).orElse(null);
        if (plugin == null && log.enabled(Config.DebugLevel.INFO, Log.Subsys.NET)) {
            log.info(Log.Subsys.NET, Endpoints.whyNoPlugin(config));
        }
        Endpoints endpoints = Endpoints.open(commId, id.secret(), config, nic.address(), nic.name(), plugin, log);
        ControlChannel control = null;
        try {
            control = ControlChannel.open(nic.address(), id.secret(), commId);
            StringBuilder noShm = new StringBuilder();
            String shmPrefix = Endpoints.sharedMemoryPrefix(config.shmDisable(), noShm);
            if (!noShm.isEmpty()) {
                log.info(Log.Subsys.INIT, "shared memory unavailable: " + noShm + "; ranks of this host use TCP");
            }
            byte[] netAddress = endpoints.netAddress();
            PeerInfo self = new PeerInfo(
                    rank,
                    HostIdentity.hostId(config.hostId()),
                    HostIdentity.hostName(),
                    ProcessHandle.current().pid(),
                    nic.address().getHostAddress(),
                    endpoints.socketPort(),
                    shmPrefix,
                    settingsOf(config, plugin),
                    netAddress.length == 0 ? "" : Base64.getEncoder().encodeToString(netAddress),
                    Runtime.getRuntime().availableProcessors(),
                    config.oversubscription(),
                    control.port());
            log.info(Log.Subsys.INIT, String.format("comm 0x%016x rank %d nRanks %d - Init START", commId, rank, size));
            List<PeerInfo> peers = Bootstrap.exchange(rank, size, id, self, config.timeout(), log);
            return finishInit(rank, size, config, log, commId, id.secret(), endpoints, control, plugin, peers, start);
        } catch (RuntimeException e) {
            endpoints.close();
            if (control != null) control.close();
            throw e;
        }
    }

    /** The settings every rank must share, as {@link PeerInfo#settings()} carries them. */
    private static String settingsOf(Config config, NetPlugin plugin) {
        return "JCCL_ALGO=" + (config.algo() == null ? "(unset)" : config.algo()) + " JCCL_PROTO="
                + (config.proto() == null ? "(unset)" : config.proto()) + " JCCL_BUFFSIZE=" + config.buffSize()
                + " JCCL_NET=" + (plugin == null ? NetPlugins.SOCKET : plugin.name());
    }

    /**
     * Makes the communicator from the exchanged peer table; closes the {@code endpoints} (and anything wired from them)
     * if that fails.
     */
    private static RuntimeCommunicator finishInit(
            int rank,
            int size,
            Config config,
            Log log,
            long commId,
            byte[] secret,
            Endpoints endpoints,
            ControlChannel control,
            NetPlugin plugin,
            List<PeerInfo> peers,
            long start) {
        Wiring wiring = null;
        try {
            checkSettings(rank, peers);
            // Every rank sees the same table, so every rank plans with the same tuner.
            WaitPolicy waiting = WaitPolicy.of(
                    CpuSharing.oversubscribed(peers, peers.get(rank).hostId()));
            wiring = TransportTable.wire(
                    endpoints,
                    rank,
                    peers,
                    config.buffSize(),
                    waiting.oversubscribed(),
                    log,
                    start + config.timeout().toNanos());
            Tuner tuner = new Tuner(
                    size,
                    hostsOf(peers),
                    wiring.outbox() != null,
                    anyNetwork(peers),
                    CpuSharing.anyHost(peers),
                    config.algo(),
                    config.proto());
            Setup setup =
                    new Setup(rank, size, config, log, commId, secret, wiring, plugin, peers, tuner, waiting, control);
            RuntimeCommunicator c = new RuntimeCommunicator(setup);
            if (rank == 0) {
                for (String w : tuner.warnings()) log.warn(Log.Subsys.ENV, w);
                if (log.enabled(Config.DebugLevel.INFO, Log.Subsys.TUNING)) {
                    for (String line : tuner.table().split("\\n")) log.info(Log.Subsys.TUNING, line);
                }
            }
            if (log.enabled(Config.DebugLevel.INFO, Log.Subsys.INIT)) logTopology(setup, start);
            return c;
        } catch (RuntimeException e) {
            if (wiring != null) wiring.transport().close();
            endpoints.close();
            control.close();
            throw e;
        }
    }

    /** Ranks grouped by host identity, for the hierarchical schedule and the tuner. */
    static HostGroups hostsOf(List<PeerInfo> peers) {
        return HostGroups.of(peers.stream().map(PeerInfo::hostId).toList());
    }

    /** True if some pair of ranks talks over the network. */
    private static boolean anyNetwork(List<PeerInfo> peers) {
        for (PeerInfo a : peers) {
            for (PeerInfo b : peers) {
                if (a.rank() != b.rank() && !a.sharesMemoryWith(b)) return true;
            }
        }
        return false;
    }

    /** Ranks that plan with different settings would wait on each other forever: refuse to start instead. */
    private static void checkSettings(int rank, List<PeerInfo> peers) {
        String mine = peers.get(rank).settings();
        List<String> differ = new ArrayList<>();
        for (PeerInfo p : peers) {
            if (!p.settings().equals(mine)) differ.add("rank " + p.rank() + " (" + p.where() + ") has " + p.settings());
        }
        if (!differ.isEmpty()) {
            throw new JcclException("rank " + rank + " has " + mine + " but " + String.join("; ", differ)
                    + ". These settings decide how operations are cut and run, so every rank must have the same: "
                    + "set them the same way on every rank (mpirun -x, the job's environment) or on none.");
        }
    }

    private static void logTopology(Setup s, long start) {
        int rank = s.rank();
        int size = s.size();
        PeerInfo me = s.peers().get(rank);
        StringBuilder ring = new StringBuilder();
        for (int i = 0; i < size; i++) ring.append(String.format(" %3d", i));
        Log log = s.log();
        log.info(Log.Subsys.INIT, "Channel 00/01 :" + ring);
        log.info(
                Log.Subsys.INIT,
                String.format("Ring 00 : %d -> %d -> %d", (rank - 1 + size) % size, rank, (rank + 1) % size));
        for (PeerInfo p : s.peers()) {
            if (p.rank() != rank) {
                log.info(
                        Log.Subsys.INIT,
                        String.format(
                                "peer %d (%s) via %s",
                                p.rank(), p.where(), s.wiring().via().get(p.rank())));
            }
        }
        log.info(Log.Subsys.INIT, "Waiting : " + CpuSharing.describe(s.peers(), me.hostId()));
        log.info(
                Log.Subsys.INIT,
                String.format(
                        "comm 0x%016x rank %d nRanks %d host %s pid %d - Init COMPLETE in %.2f s",
                        s.commId(), rank, size, me.hostName(), me.pid(), (System.nanoTime() - start) / 1e9));
    }

    /**
     * Collective over {@code parent}: the ranks that pass the same {@code color} form a child, ordered by {@code key}
     * (then by parent rank). Exchanges each rank's color, key and the child's listening port (and network plugin
     * address) through the parent, then wires the child.
     */
    static Communicator split(Communicator parent, Setup s, int splitIndex, int color, int key) {
        int rank = s.rank();
        int size = s.size();
        Config config = s.config();
        NetPlugin plugin = s.plugin();
        int effectiveColor = color < 0 ? Communicator.SPLIT_NOCOLOR : color;
        long childId = hash(String.format("%016x/split%d/color%d", s.commId(), splitIndex, effectiveColor)
                .getBytes(StandardCharsets.UTF_8));
        PeerInfo me = s.peers().get(rank);
        // The child's own listener (and network plugin endpoint), whose addresses its peers need.
        Endpoints child = effectiveColor < 0
                ? null
                : Endpoints.open(
                        childId,
                        s.secret(),
                        config,
                        addressOf(me.dataHost()),
                        InterfaceSelector.select(config.socketIfname()).name(),
                        plugin,
                        s.log());
        ControlChannel childControl;
        try {
            childControl = child == null ? null : ControlChannel.open(addressOf(me.dataHost()), s.secret(), childId);
        } catch (RuntimeException e) {
            child.close();
            throw e;
        }
        int[] mine = {
            effectiveColor, key, child == null ? 0 : child.socketPort(), childControl == null ? 0 : childControl.port()
        };
        int[] all = new int[SPLIT_FIELDS * size];
        byte[] netAddresses = new byte[plugin == null ? 0 : NET_ADDRESS_MAX * size];
        try {
            parent.allGather(MemorySegment.ofArray(mine), MemorySegment.ofArray(all), SPLIT_FIELDS, DataType.INT32);
            if (plugin != null) {
                byte[] address = new byte[NET_ADDRESS_MAX];
                if (child != null) {
                    byte[] a = Base64.getEncoder().encode(child.netAddress());
                    if (a.length > NET_ADDRESS_MAX) {
                        throw new JcclException("network address of " + a.length + " bytes exceeds " + NET_ADDRESS_MAX);
                    }
                    System.arraycopy(a, 0, address, 0, a.length);
                }
                parent.allGather(address, netAddresses);
            }
        } catch (RuntimeException e) {
            if (child != null) child.close();
            if (childControl != null) childControl.close();
            throw e;
        }
        if (child == null) return null;
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (all[SPLIT_FIELDS * r] == effectiveColor) members.add(r);
        }
        members.sort(
                Comparator.<Integer>comparingInt(r -> all[SPLIT_FIELDS * r + 1]).thenComparingInt(r -> r));
        List<PeerInfo> childPeers = new ArrayList<>();
        int newRank = -1;
        for (int i = 0; i < members.size(); i++) {
            int r = members.get(i);
            String netAddress = plugin == null
                    ? ""
                    : new String(netAddresses, r * NET_ADDRESS_MAX, NET_ADDRESS_MAX, StandardCharsets.US_ASCII).trim();
            childPeers.add(
                    s.peers().get(r).renumbered(i, all[SPLIT_FIELDS * r + 2], netAddress, all[SPLIT_FIELDS * r + 3]));
            if (r == rank) newRank = i;
        }
        return finishInit(
                newRank,
                members.size(),
                config,
                new Log(config, newRank),
                childId,
                s.secret(),
                child,
                childControl,
                plugin,
                childPeers,
                System.nanoTime());
    }

    private static InetAddress addressOf(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new JcclException("cannot resolve " + host, e);
        }
    }

    private static long hash(byte[] bytes) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(bytes);
            long v = 0;
            for (int i = 0; i < 8; i++) v = (v << 8) | (h[i] & 0xFF);
            return v;
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
