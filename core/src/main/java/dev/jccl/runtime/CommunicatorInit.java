package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.Bootstrap;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.HostIdentity;
import dev.jccl.debug.Log;
import dev.jccl.plan.Calibration;
import dev.jccl.plan.CalibrationFile;
import dev.jccl.plan.CalibrationFile.Fingerprint;
import dev.jccl.plan.HostGroups;
import dev.jccl.plan.Tuner;
import dev.jccl.topology.CpuSharing;
import dev.jccl.topology.InterfaceSelector;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPlugins;
import dev.jccl.transport.table.Endpoints;
import dev.jccl.transport.table.TransportTable;
import dev.jccl.transport.table.Wiring;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Makes communicators: {@link #create} from a unique id (endpoints, the bootstrap's peer table, the transport table's
 * wiring, the tuner), and, for {@link Regroup}'s splits and shrinks, {@link #finishInit}, so a child is wired exactly
 * as a root communicator is.
 */
final class CommunicatorInit {
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
            // Every rank reads its own host's file; all plan with rank 0's (see finishInit), so only it speaks.
            CalibrationFile.Loaded calibration = CalibrationFile.load(
                    config.calibration(), System.getenv(), Fingerprint.here(Jccl.version()), Instant.now());
            if (rank == 0) calibration.warnings().forEach(w -> log.warn(Log.Subsys.TUNING, w));
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
                    control.port(),
                    calibration.calibration().encode());
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
                + (config.proto() == null ? "(unset)" : config.proto()) + " JCCL_BUFFSIZE="
                // Unset and set to the default differ: over sockets, an unset buffer size cuts 128 KiB pieces.
                + ("default".equals(config.sourceOf("buffSize")) ? "(unset)" : config.buffSize())
                + " JCCL_NET=" + (plugin == null ? NetPlugins.SOCKET : plugin.name());
    }

    /**
     * Makes the communicator from the exchanged peer table; closes the {@code endpoints} (and anything wired from them)
     * if that fails.
     */
    static RuntimeCommunicator finishInit(
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
                    config.shmSingleCopy(),
                    waiting.oversubscribed(),
                    log,
                    start + config.timeout().toNanos());
            boolean anyNetwork = anyNetwork(peers);
            boolean cpusShared = CpuSharing.anyHost(peers);
            HostGroups hosts = hostsOf(peers);
            Tuner tuner = new Tuner(
                    size,
                    hosts,
                    wiring.outbox() != null,
                    anyNetwork,
                    cpusShared,
                    CpuSharing.ranksPerCpu(peers),
                    config.algo(),
                    config.proto(),
                    calibrationOf(peers.get(0), log),
                    config.chunkBytes(anyNetwork && plugin == null && hosts.hosts() == 1, cpusShared));
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

    /**
     * The figures every rank tunes with: rank 0's, as its start-up record carries them, so that hosts with different
     * calibration files still choose alike. A record this Jccl cannot read (another version's) gives the built-in
     * figures, on every rank alike.
     */
    private static Calibration calibrationOf(PeerInfo rankZero, Log log) {
        try {
            return Calibration.decode(rankZero.calibration());
        } catch (IllegalArgumentException e) {
            log.warn(
                    Log.Subsys.TUNING,
                    "rank 0's calibration cannot be read here (" + e.getMessage()
                            + "); the tuner uses its built-in figures");
            return Calibration.DEFAULTS;
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

    static long hash(byte[] bytes) {
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
