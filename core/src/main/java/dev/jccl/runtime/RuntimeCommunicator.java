package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.DataType;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.JcclTimeoutException;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.Bootstrap;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.HostIdentity;
import dev.jccl.debug.Log;
import dev.jccl.plan.Collective;
import dev.jccl.plan.HostGroups;
import dev.jccl.plan.OpRequest;
import dev.jccl.plan.Planner;
import dev.jccl.plan.Schedule;
import dev.jccl.plan.Tuner;
import dev.jccl.topology.CpuSharing;
import dev.jccl.topology.InterfaceSelector;
import dev.jccl.transport.NetPlugin;
import dev.jccl.transport.NetPlugins;
import dev.jccl.transport.OperationBoard;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.Transport;
import dev.jccl.transport.table.Endpoints;
import dev.jccl.transport.table.TransportTable;
import dev.jccl.transport.table.Wiring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The communicator: checks arguments, gives each operation its place in the order, plans it,
 * and runs the schedule on the calling thread (blocking calls) or the progress thread (async).
 *
 * <p>Ordering: every operation takes a ticket (the {@code tail} future) when it is called; it
 * starts only after the previous ticket completes. Blocking calls run on the caller's thread so
 * that they can use confined memory and pay no thread handoff (Gloo's small-message cost is
 * mostly that handoff). So do small async calls of the LL protocol that find nothing before them
 * in the queue: the caller publishes its part and, where its peers are there too, finishes the
 * operation before the call returns, which costs less than waking the progress thread; what the
 * caller could not finish within a short spin, the progress thread finishes (see {@link #issue}).
 */
public final class RuntimeCommunicator implements Communicator {
    private final int rank;
    private final int size;
    private final Config config;
    private final Log log;
    private final long commId;
    private final byte[] secret;
    /** How this rank reaches each peer, as the transport table decided. */
    private final Wiring wiring;
    /** What the schedules run on: shared memory, sockets, or both behind a router. */
    private final Transport transport;
    /** Where this rank posts its operations for the peers that can read it (those sharing its memory); null if none can. */
    private final OperationBoard board;
    /** The network plugin JCCL_NET chose, or null for sockets; split children open their own endpoint of it. */
    private final NetPlugin plugin;
    private final List<PeerInfo> peers;
    private final Failures failures;
    private final HostGroups hosts;
    private final ScheduleExecutor executor;
    private final Tuner tuner;
    /** The LL protocol's one-shot collectives, when every rank shares memory; null otherwise. */
    private final LowLatencyCollectives lowLatency;

    /** How this rank waits for its peers: spin where it has a CPU of its own, yield where ranks share CPUs. */
    private final WaitPolicy waiting;
    /** Schedules planned lately, for the next calls of the same shape (most programs repeat a few shapes). */
    private final ScheduleCache schedules;
    /** The tuner's last answer, for the next call of the same shape (most programs repeat a few shapes). */
    private volatile ChoiceFor lastChoice;

    private final Object issueLock = new Object();
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private long collectiveSequence;
    private final long[] sendSequence;
    private final long[] recvSequence;
    private int splitCount;

    private volatile ProgressThread progressThread;
    private volatile JcclException failure;
    private volatile boolean aborted;
    private volatile boolean closed;

    /**
     * The byte a barrier reduces. Native, like the buffers of the operations around it: a heap
     * array here would show the JIT a second kind of segment in every method a barrier shares with
     * them, and make it recompile those (measured: a burst of deoptimisations at the first timed
     * loop of a benchmark). Operations never run at the same time, so one token serves them all.
     */
    private final MemorySegment barrierToken = Arena.ofAuto().allocate(1);
    private Arena scratchArena;
    private MemorySegment scratch = MemorySegment.NULL;

    private RuntimeCommunicator(int rank, int size, Config config, Log log, long commId, byte[] secret, Wiring wiring,
                                NetPlugin plugin, List<PeerInfo> peers, Tuner tuner, WaitPolicy waiting) {
        this.rank = rank;
        this.size = size;
        this.config = config;
        this.log = log;
        this.commId = commId;
        this.secret = secret;
        this.wiring = wiring;
        this.transport = wiring.transport();
        this.board = wiring.board();
        this.plugin = plugin;
        this.peers = List.copyOf(peers);
        this.failures = new Failures(rank, this.peers);
        this.hosts = hostsOf(this.peers);
        this.schedules = new ScheduleCache(hosts);
        this.waiting = waiting;
        this.executor = new ScheduleExecutor(transport, rank, size, this.peers, waiting);
        this.tuner = tuner;
        this.lowLatency = wiring.outbox() != null ? new LowLatencyCollectives(wiring.outbox(), rank, size, failures, waiting) : null;
        this.sendSequence = new long[size];
        this.recvSequence = new long[size];
    }

    /** Ranks grouped by host identity, for the hierarchical schedule and the tuner. */
    static HostGroups hostsOf(List<PeerInfo> peers) {
        return HostGroups.of(peers.stream().map(PeerInfo::hostId).toList());
    }

    /** True if some pair of ranks talks over the network. */
    private static boolean anyNetwork(List<PeerInfo> peers) {
        for (PeerInfo a : peers) for (PeerInfo b : peers) if (a.rank() != b.rank() && !a.sharesMemoryWith(b)) return true;
        return false;
    }

    public static Communicator create(int rank, int size, UniqueId id, Config config) {
        Log log = new Log(config, rank);
        long start = System.nanoTime();
        if (rank == 0) {
            log.version("JCCL version " + Jccl.version() + " (Java " + Runtime.version() + ")");
            for (String unknown : Config.unknownVariables(System.getenv())) log.warn(Log.Subsys.ENV, "unknown variable " + unknown);
        }
        InterfaceSelector.Candidate nic = InterfaceSelector.select(config.socketIfname());
        log.info(Log.Subsys.NET, "NET/Socket : Using [0]" + nic.name() + ":" + nic.address().getHostAddress());
        long commId = commIdOf(id);
        NetPlugin plugin = NetPlugins.select(config.net()).orElse(null);
        if (plugin == null && log.enabled(Config.DebugLevel.INFO, Log.Subsys.NET)) log.info(Log.Subsys.NET, Endpoints.whyNoPlugin(config));
        Endpoints endpoints = Endpoints.open(commId, id.secret(), config, nic.address(), nic.name(), plugin, log);
        try {
            StringBuilder noShm = new StringBuilder();
            String shmPrefix = Endpoints.sharedMemoryPrefix(config.shmDisable(), noShm);
            if (!noShm.isEmpty()) log.info(Log.Subsys.INIT, "shared memory unavailable: " + noShm + "; ranks of this host use TCP");
            byte[] netAddress = endpoints.netAddress();
            PeerInfo self = new PeerInfo(rank, HostIdentity.hostId(config.hostId()), HostIdentity.hostName(),
                    ProcessHandle.current().pid(), nic.address().getHostAddress(), endpoints.socketPort(), shmPrefix,
                    settingsOf(config, plugin), netAddress.length == 0 ? "" : Base64.getEncoder().encodeToString(netAddress),
                    Runtime.getRuntime().availableProcessors(), config.oversubscription());
            log.info(Log.Subsys.INIT, String.format("comm 0x%016x rank %d nRanks %d - Init START", commId, rank, size));
            List<PeerInfo> peers = Bootstrap.exchange(rank, size, id, self, config.timeout(), log);
            return finishInit(rank, size, config, log, commId, id.secret(), endpoints, plugin, peers, start);
        } catch (RuntimeException e) {
            endpoints.close();
            throw e;
        }
    }

    /** The settings every rank must share, as {@link PeerInfo#settings()} carries them. */
    private static String settingsOf(Config config, NetPlugin plugin) {
        return "JCCL_ALGO=" + (config.algo() == null ? "(unset)" : config.algo()) + " JCCL_PROTO="
                + (config.proto() == null ? "(unset)" : config.proto()) + " JCCL_BUFFSIZE=" + config.buffSize()
                + " JCCL_NET=" + (plugin == null ? NetPlugins.SOCKET : plugin.name());
    }

    /** Makes the communicator from the exchanged peer table; closes the {@code endpoints} (and anything wired from them) if that fails. */
    private static RuntimeCommunicator finishInit(int rank, int size, Config config, Log log, long commId, byte[] secret,
                                                  Endpoints endpoints, NetPlugin plugin, List<PeerInfo> peers, long start) {
        Wiring wiring = null;
        try {
            checkSettings(rank, peers);
            // Every rank sees the same table, so every rank plans with the same tuner.
            WaitPolicy waiting = WaitPolicy.of(CpuSharing.oversubscribed(peers, peers.get(rank).hostId()));
            wiring = TransportTable.wire(endpoints, rank, peers, config.buffSize(), waiting.oversubscribed(), log,
                    start + config.timeout().toNanos());
            Tuner tuner = new Tuner(size, hostsOf(peers), wiring.outbox() != null, anyNetwork(peers), CpuSharing.anyHost(peers),
                    config.algo(), config.proto());
            RuntimeCommunicator c = new RuntimeCommunicator(rank, size, config, log, commId, secret, wiring, plugin, peers, tuner, waiting);
            if (rank == 0) {
                for (String w : tuner.warnings()) log.warn(Log.Subsys.ENV, w);
                if (log.enabled(Config.DebugLevel.INFO, Log.Subsys.TUNING)) {
                    for (String line : tuner.table().split("\\n")) log.info(Log.Subsys.TUNING, line);
                }
            }
            if (log.enabled(Config.DebugLevel.INFO, Log.Subsys.INIT)) c.logTopology(start);
            return c;
        } catch (RuntimeException e) {
            if (wiring != null) wiring.transport().close();
            endpoints.close();
            throw e;
        }
    }

    /** Ranks that plan with different settings would wait on each other forever: refuse to start instead. */
    private static void checkSettings(int rank, List<PeerInfo> peers) {
        String mine = peers.get(rank).settings();
        List<String> differ = new ArrayList<>();
        for (PeerInfo p : peers) if (!p.settings().equals(mine)) differ.add("rank " + p.rank() + " (" + p.where() + ") has " + p.settings());
        if (!differ.isEmpty()) {
            throw new JcclException("rank " + rank + " has " + mine + " but " + String.join("; ", differ)
                    + ". These settings decide how operations are cut and run, so every rank must have the same: "
                    + "set them the same way on every rank (mpirun -x, the job's environment) or on none.");
        }
    }

    private void logTopology(long start) {
        PeerInfo me = peers.get(rank);
        StringBuilder ring = new StringBuilder();
        for (int i = 0; i < size; i++) ring.append(String.format(" %3d", i));
        log.info(Log.Subsys.INIT, "Channel 00/01 :" + ring);
        log.info(Log.Subsys.INIT, String.format("Ring 00 : %d -> %d -> %d", (rank - 1 + size) % size, rank, (rank + 1) % size));
        for (PeerInfo p : peers) {
            if (p.rank() != rank) log.info(Log.Subsys.INIT, String.format("peer %d (%s) via %s", p.rank(), p.where(), wiring.via().get(p.rank())));
        }
        log.info(Log.Subsys.INIT, "Waiting : " + CpuSharing.describe(peers, me.hostId()));
        log.info(Log.Subsys.INIT, String.format("comm 0x%016x rank %d nRanks %d host %s pid %d - Init COMPLETE in %.2f s",
                commId, rank, size, me.hostName(), me.pid(), (System.nanoTime() - start) / 1e9));
    }

    private static long commIdOf(UniqueId id) {
        return hash(id.toString().getBytes(StandardCharsets.UTF_8));
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

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Config config() {
        return config;
    }

    /** What the bootstrap said of rank {@code r}; for tests that aim at a peer's data port. */
    PeerInfo peer(int r) {
        return peers.get(r);
    }

    /** The communicator id that data hellos carry. */
    long commId() {
        return commId;
    }

    // ---------------------------------------------------------------- preparing operations

    /**
     * A checked call, ready to be sequenced. {@code root} is the root, the peer of a Send/Recv or
     * the peer a SendRecv sends to; {@code recvPeer} is the peer a SendRecv receives from (-1 otherwise).
     */
    private record Prepared(Collective collective, long count, DataType type, ReduceOp op, int root, int recvPeer,
                            MemorySegment send, MemorySegment recv) {
        Prepared(Collective collective, long count, DataType type, ReduceOp op, int root, MemorySegment send, MemorySegment recv) {
            this(collective, count, type, op, root, -1, send, recv);
        }
    }

    private Prepared prepareAllReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        ArgumentChecks check = new ArgumentChecks("AllReduce", rank);
        check.count(count, "count");
        check.type(type);
        check.op(op);
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = recv.asSlice(0, bytes);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Prepared(Collective.ALL_REDUCE, count, type, op, -1, s, r);
    }

    /**
     * Broadcast reads {@code send} only at the root and Reduce writes {@code recv} only at the
     * root, but a buffer that is passed is checked on every rank: the same bad call then fails
     * the same way everywhere instead of on the root alone, which would leave its peers waiting.
     * A rank with no use for the buffer may pass null.
     */
    private Prepared prepareBroadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        ArgumentChecks check = new ArgumentChecks("Broadcast", rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(root, size, "root");
        long bytes = check.bytes(count, 1, type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment r = recv.asSlice(0, bytes);
        MemorySegment s = r;
        if (send != null || rank == root) {
            check.readable(send, bytes, "send", count + " × " + type);
            s = send.asSlice(0, bytes);
            check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        }
        return new Prepared(Collective.BROADCAST, count, type, null, root, rank == root ? s : r, r);
    }

    private Prepared prepareReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        ArgumentChecks check = new ArgumentChecks("Reduce", rank);
        check.count(count, "count");
        check.type(type);
        check.op(op);
        check.rankInRange(root, size, "root");
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = s;
        if (recv != null || rank == root) {
            check.writable(recv, bytes, "recv", count + " × " + type);
            r = recv.asSlice(0, bytes);
            check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        }
        return new Prepared(Collective.REDUCE, count, type, op, root, s, rank == root ? r : s);
    }

    private Prepared prepareAllGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        ArgumentChecks check = new ArgumentChecks("AllGather", rank);
        check.count(sendCount, "sendCount");
        check.type(type);
        long block = check.bytes(sendCount, 1, type);
        long total = check.bytes(sendCount, size, type);
        check.readable(send, block, "send", sendCount + " × " + type);
        check.writable(recv, total, "recv", size + " ranks × " + sendCount + " × " + type);
        MemorySegment s = send.asSlice(0, block);
        MemorySegment r = recv.asSlice(0, total);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r.asSlice(rank * block, block)));
        return new Prepared(Collective.ALL_GATHER, sendCount, type, null, -1, s, r);
    }

    private Prepared prepareReduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        ArgumentChecks check = new ArgumentChecks("ReduceScatter", rank);
        check.count(recvCount, "recvCount");
        check.type(type);
        check.op(op);
        long block = check.bytes(recvCount, 1, type);
        long total = check.bytes(recvCount, size, type);
        check.readable(send, total, "send", size + " ranks × " + recvCount + " × " + type);
        check.writable(recv, block, "recv", recvCount + " × " + type);
        MemorySegment s = send.asSlice(0, total);
        MemorySegment r = recv.asSlice(0, block);
        check.inPlaceOrDisjoint(s, r, Memory.same(r, s.asSlice(rank * block, block)));
        return new Prepared(Collective.REDUCE_SCATTER, recvCount, type, op, -1, s, r);
    }

    private Prepared prepareAllToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        ArgumentChecks check = new ArgumentChecks("AllToAll", rank);
        check.count(countPerPeer, "countPerPeer");
        check.type(type);
        long total = check.bytes(countPerPeer, size, type);
        check.readable(send, total, "send", size + " ranks × " + countPerPeer + " × " + type);
        check.writable(recv, total, "recv", size + " ranks × " + countPerPeer + " × " + type);
        MemorySegment s = send.asSlice(0, total);
        MemorySegment r = recv.asSlice(0, total);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Prepared(Collective.ALL_TO_ALL, countPerPeer, type, null, -1, s, r);
    }

    private Prepared preparePointToPoint(Collective kind, MemorySegment buf, long count, DataType type, int peer) {
        ArgumentChecks check = new ArgumentChecks(kind.displayName(), rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(peer, size, "peer");
        check.notSelf(peer);
        long bytes = check.bytes(count, 1, type);
        MemorySegment b;
        if (kind == Collective.SEND) {
            check.readable(buf, bytes, "send", count + " × " + type);
            b = buf.asSlice(0, bytes);
            return new Prepared(kind, count, type, null, peer, b, b);
        }
        check.writable(buf, bytes, "recv", count + " × " + type);
        b = buf.asSlice(0, bytes);
        return new Prepared(kind, count, type, null, peer, b, b);
    }

    /**
     * Both peers may be this rank (a local copy, as MPI allows), or neither; one but not the other
     * is almost certainly a mistake in the caller's peer arithmetic, so it is refused.
     */
    private Prepared prepareSendRecv(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        ArgumentChecks check = new ArgumentChecks("SendRecv", rank);
        check.count(count, "count");
        check.type(type);
        check.rankInRange(sendPeer, size, "sendPeer");
        check.rankInRange(recvPeer, size, "recvPeer");
        check.selfBothWaysOrNeither(sendPeer, recvPeer);
        long bytes = check.bytes(count, 1, type);
        check.readable(send, bytes, "send", count + " × " + type);
        check.writable(recv, bytes, "recv", count + " × " + type);
        MemorySegment s = send.asSlice(0, bytes);
        MemorySegment r = recv.asSlice(0, bytes);
        check.inPlaceOrDisjoint(s, r, Memory.same(s, r));
        return new Prepared(Collective.SEND_RECV, count, type, null, sendPeer, recvPeer, s, r);
    }

    // ---------------------------------------------------------------- sequencing and running

    private void runBlocking(Prepared p) {
        join(issue(p, false));
    }

    /** {@code send}/{@code recv} are the caller's segments, checked on every rank whatever its role. */
    private CompletableFuture<Void> runAsync(Prepared p, MemorySegment send, MemorySegment recv) {
        ArgumentChecks check = new ArgumentChecks(p.collective.displayName() + "Async", rank);
        Thread worker = progressThread();
        check.accessibleFrom(send, worker, "send");
        check.accessibleFrom(recv, worker, "recv");
        return issue(p, true);
    }

    /**
     * Gives the operation its place in the order and runs it: blocking calls on this thread once
     * the previous operation is done; async calls on the progress thread, except that a small
     * LL-protocol operation that finds the previous one done starts on this thread and, if its
     * peers are there too, finishes here before the call returns (see {@link #tryInline}).
     */
    private CompletableFuture<Void> issue(Prepared p, boolean async) {
        checkUsable(p.collective.displayName());
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        long sequence;
        long recvSeq = -1;
        synchronized (issueLock) {
            // Point-to-point numbers count messages per ordered pair, so that each half of a
            // SendRecv takes the number a plain Send or Recv to that peer would have taken.
            sequence = switch (p.collective) {
                case SEND, SEND_RECV -> sendSequence[p.root]++;
                case RECV -> recvSequence[p.root]++;
                default -> collectiveSequence++;
            };
            if (p.collective == Collective.SEND_RECV) recvSeq = recvSequence[p.recvPeer]++;
            previous = tail;
            tail = mine;
        }
        long recvSequenceNumber = recvSeq;
        Tuner.Choice choice = isCollective(p.collective) ? choose(p.collective, p.count, p.type) : null;
        if (!async) {
            awaitPrevious(previous, p);
            runInto(mine, p, choice, sequence, recvSequenceNumber);
        } else if (previous.isDone() && inlineable(p, choice)) {
            tryInline(mine, p, choice, sequence);
        } else {
            // Queued outside the lock: operations are numbered in issue order, and the progress
            // thread waits for each one's predecessor, so the queue's order cannot break it.
            progressThread.submit(() -> {
                try {
                    awaitPrevious(previous, p);
                } catch (RuntimeException e) {
                    mine.completeExceptionally(e);
                    return;
                }
                runInto(mine, p, choice, sequence, recvSequenceNumber);
            });
        }
        return mine;
    }

    /** Per-rank bytes up to which an async LL operation may start on the caller's thread. */
    static final long INLINE_MAX_BYTES = 64 * 1024;
    /**
     * How long the caller's thread waits for its peers before it hands an async operation it
     * started to the progress thread: long enough for peers that run in step (a few round trips
     * between cores), short enough that an async call still returns at once. Where ranks share
     * CPUs the caller does not wait: its peers need the CPU.
     */
    static final long INLINE_SPIN_NANOS = 20_000;

    private boolean inlineable(Prepared p, Tuner.Choice choice) {
        if (lowLatency == null || choice == null || choice.protocol() != Tuner.Protocol.LL) return false;
        long bytes = p.count * p.type.byteSize();
        if (p.collective == Collective.REDUCE_SCATTER || p.collective == Collective.ALL_TO_ALL) bytes *= size;
        return bytes <= INLINE_MAX_BYTES;
    }

    /**
     * Starts an LL operation on the caller's thread and finishes it there if the peers' parts
     * arrive within {@link #INLINE_SPIN_NANOS}; otherwise the progress thread finishes it. Either
     * way {@code mine} completes when the result is in place.
     */
    private void tryInline(CompletableFuture<Void> mine, Prepared p, Tuner.Choice choice, long sequence) {
        OpContext ctx;
        try {
            ctx = begin(p, choice, sequence, -1);
        } catch (Throwable t) {
            mine.completeExceptionally(t);
            return;
        }
        long deadline = ctx.startNanos() + config.timeout().toNanos();
        LowLatencyCollectives.Operation op;
        try {
            op = lowLatency.start(ctx, p.send, p.recv);
            if (lowLatency.tryInline(op, waiting.oversubscribed() ? 0 : INLINE_SPIN_NANOS)) {
                end(ctx);
                mine.complete(null);
                return;
            }
        } catch (JcclException | IllegalStateException e) {
            mine.completeExceptionally(failed(ctx, e));
            return;
        } catch (Throwable t) {
            mine.completeExceptionally(t);
            return;
        }
        progressThread.submit(() -> {
            try {
                try {
                    lowLatency.finish(op, deadline);
                    end(ctx);
                } catch (JcclException | IllegalStateException e) {
                    throw failed(ctx, e);
                }
                mine.complete(null);
            } catch (Throwable t) {
                mine.completeExceptionally(t);
            }
        });
    }

    private void runInto(CompletableFuture<Void> mine, Prepared p, Tuner.Choice choice, long sequence, long recvSequence) {
        try {
            execute(p, choice, sequence, recvSequence);
            mine.complete(null);
        } catch (Throwable t) {
            mine.completeExceptionally(t);
        }
    }

    private void awaitPrevious(CompletableFuture<Void> previous, Prepared p) {
        if (previous.isDone()) return;
        try {
            previous.get(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            // The earlier operation's caller sees its error; ours is decided by checkUsable below.
        } catch (TimeoutException e) {
            throw new JcclTimeoutException("rank " + rank + ": " + p.collective.displayName() + " waited " + config.timeout().toSeconds()
                    + " s for earlier async operations of this communicator to finish (JCCL_TIMEOUT)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("rank " + rank + ": interrupted while waiting for earlier operations");
        }
    }

    private static void join(CompletableFuture<Void> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) throw re;
            if (cause instanceof Error err) throw err;
            throw new JcclException(cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JcclException("interrupted", e);
        }
    }

    /** The tuner's choice for a call of this shape, from the last call's when it had the same. */
    private Tuner.Choice choose(Collective collective, long count, DataType type) {
        ChoiceFor last = lastChoice;
        if (last != null && last.collective == collective && last.count == count && last.type == type) return last.choice;
        Tuner.Choice choice = size == 1 ? null : tuner.choose(collective, count, type);
        lastChoice = new ChoiceFor(collective, count, type, choice);
        return choice;
    }

    private record ChoiceFor(Collective collective, long count, DataType type, Tuner.Choice choice) {}

    private void execute(Prepared p, Tuner.Choice choice, long sequence, long recvSequence) {
        OpContext ctx = begin(p, choice, sequence, recvSequence);
        long deadline = ctx.startNanos() + config.timeout().toNanos();
        try {
            if (choice != null && choice.protocol() == Tuner.Protocol.LL && lowLatency != null) {
                if (log.enabled(Config.DebugLevel.TRACE, Log.Subsys.COLL)) log.trace(Log.Subsys.COLL, ctx.describe() + " OneShot/LL");
                lowLatency.run(ctx, p.send, p.recv, deadline);
            } else {
                long chunk = Math.max(1, config.chunkBytes() / p.type.byteSize());
                Schedule schedule = schedules.plan(new OpRequest(p.collective, rank, size, p.count, p.op, p.root, p.recvPeer,
                        Memory.same(p.send, p.recv), chunk, choice == null ? Tuner.Algorithm.RING : choice.algorithm()));
                if (log.enabled(Config.DebugLevel.TRACE, Log.Subsys.COLL)) {
                    log.trace(Log.Subsys.COLL, ctx.describe() + " algorithm " + schedule.algorithm() + ", " + schedule.steps().size() + " steps");
                }
                MemorySegment scratchSegment = scratch(schedule.scratchCount() * p.type.byteSize());
                executor.run(ctx, schedule, new ScheduleExecutor.Buffers(p.send, p.recv, scratchSegment), deadline);
            }
            end(ctx);
        } catch (JcclException | IllegalStateException e) {
            throw failed(ctx, e);
        }
    }

    /**
     * What every operation does before it moves data: refuses to run on a failed or closed
     * communicator, and tells local peers which operation this rank is in (checking first that
     * none of those it needs has failed).
     */
    private OpContext begin(Prepared p, Tuner.Choice choice, long sequence, long recvSequence) {
        checkUsable(p.collective.displayName());
        OpContext ctx = new OpContext(p.collective, p.count, p.type, p.op, p.root, p.recvPeer, sequence, recvSequence, System.nanoTime());
        try {
            if (board != null) {
                boolean collective = isCollective(p.collective);
                checkLocalPeersRunning(p, collective, ctx);
                if (collective) board.announce(sequence, ctx.descriptor(), p.count);
                else board.announcePointToPoint(ctx.descriptor(), p.count);
            }
        } catch (JcclException | IllegalStateException e) {
            throw failed(ctx, e);
        }
        return ctx;
    }

    /** Tells local peers that this rank has finished the operation. */
    private void end(OpContext ctx) {
        if (board == null) return;
        if (isCollective(ctx.collective())) board.finished(ctx.sequence() + 1);
        else board.finishedPointToPoint();
    }

    /**
     * A failed operation fails the communicator: records why, tells local peers and closes the
     * connections, so that peers waiting on this rank fail at once instead of at their deadline.
     * Returns the exception to throw.
     */
    private JcclException failed(OpContext ctx, RuntimeException e) {
        JcclException reported = aborted || e instanceof IllegalStateException
                ? new JcclException("rank " + rank + ": " + ctx.describe() + " stopped: communicator " + (aborted ? "aborted" : "closed"), e)
                : (JcclException) e;
        if (failure == null) failure = reported;
        log.warn(Log.Subsys.COLL, reported.getMessage());
        if (!aborted) transport.abandon(reported.getMessage());
        transport.close();
        return reported;
    }

    /** Fails at once if a peer on this host that the operation needs has failed, aborted or closed. */
    private void checkLocalPeersRunning(Prepared p, boolean collective, OpContext ctx) {
        try {
            if (collective) {
                for (int r = 0; r < size; r++) board.checkPeerStopped(r);
            } else {
                board.checkPeerStopped(p.root);
                if (p.recvPeer >= 0) board.checkPeerStopped(p.recvPeer);
            }
        } catch (PeerLostException e) {
            throw failures.translate(ctx, e, "before it started");
        }
    }

    private static boolean isCollective(Collective c) {
        return c != Collective.SEND && c != Collective.RECV && c != Collective.SEND_RECV;
    }

    /**
     * How this communicator would run {@code collective} on {@code count} elements of {@code type}:
     * the algorithm and protocol the tuner picks, e.g. {@code Ring/Simple}, {@code OneShot/LL}.
     */
    public String algorithmFor(Collective collective, long count, DataType type) {
        if (!isCollective(collective)) return size == 1 ? "local" : "p2p";
        if (size == 1) return "local";
        return tuner.choose(collective, count, type).describe();
    }

    private MemorySegment scratch(long bytes) {
        if (bytes == 0) return MemorySegment.NULL;
        if (scratch.byteSize() < bytes) {
            if (scratchArena != null) scratchArena.close();
            scratchArena = Arena.ofShared();
            scratch = scratchArena.allocate(bytes, 64);
        }
        return scratch.asSlice(0, bytes);
    }

    private void checkUsable(String what) {
        if (closed) throw new JcclException("rank " + rank + ": " + what + " on a closed communicator");
        if (aborted) throw new JcclException("rank " + rank + ": " + what + " on an aborted communicator");
        JcclException f = failure;
        if (f != null) {
            throw new JcclException("rank " + rank + ": " + what + " refused: this communicator failed earlier (" + f.getMessage()
                    + "). Close it and create a new one.", f);
        }
    }

    /** The progress thread, started on first use (its identity is needed to check memory is accessible from it). */
    private Thread progressThread() {
        ProgressThread t = progressThread;
        if (t == null) {
            synchronized (issueLock) {
                if (progressThread == null) {
                    if (closed) throw new JcclException("rank " + rank + ": async operation on a closed communicator");
                    progressThread = new ProgressThread("jccl-progress-rank" + rank);
                }
                t = progressThread;
            }
        }
        return t.thread();
    }

    // ---------------------------------------------------------------- the API

    @Override
    public void allReduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        runBlocking(prepareAllReduce(send, recv, count, type, op));
    }

    @Override
    public CompletableFuture<Void> allReduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op) {
        return runAsync(prepareAllReduce(send, recv, count, type, op), send, recv);
    }

    @Override
    public void broadcast(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        runBlocking(prepareBroadcast(send, recv, count, type, root));
    }

    @Override
    public CompletableFuture<Void> broadcastAsync(MemorySegment send, MemorySegment recv, long count, DataType type, int root) {
        return runAsync(prepareBroadcast(send, recv, count, type, root), send, recv);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        runBlocking(prepareReduce(send, recv, count, type, op, root));
    }

    @Override
    public CompletableFuture<Void> reduceAsync(MemorySegment send, MemorySegment recv, long count, DataType type, ReduceOp op, int root) {
        return runAsync(prepareReduce(send, recv, count, type, op, root), send, recv);
    }

    @Override
    public void allGather(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        runBlocking(prepareAllGather(send, recv, sendCount, type));
    }

    @Override
    public CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, long sendCount, DataType type) {
        return runAsync(prepareAllGather(send, recv, sendCount, type), send, recv);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        runBlocking(prepareReduceScatter(send, recv, recvCount, type, op));
    }

    @Override
    public CompletableFuture<Void> reduceScatterAsync(MemorySegment send, MemorySegment recv, long recvCount, DataType type, ReduceOp op) {
        return runAsync(prepareReduceScatter(send, recv, recvCount, type, op), send, recv);
    }

    @Override
    public void allToAll(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        runBlocking(prepareAllToAll(send, recv, countPerPeer, type));
    }

    @Override
    public CompletableFuture<Void> allToAllAsync(MemorySegment send, MemorySegment recv, long countPerPeer, DataType type) {
        return runAsync(prepareAllToAll(send, recv, countPerPeer, type), send, recv);
    }

    @Override
    public void send(MemorySegment buf, long count, DataType type, int peer) {
        runBlocking(preparePointToPoint(Collective.SEND, buf, count, type, peer));
    }

    @Override
    public CompletableFuture<Void> sendAsync(MemorySegment buf, long count, DataType type, int peer) {
        return runAsync(preparePointToPoint(Collective.SEND, buf, count, type, peer), buf, null);
    }

    @Override
    public void recv(MemorySegment buf, long count, DataType type, int peer) {
        runBlocking(preparePointToPoint(Collective.RECV, buf, count, type, peer));
    }

    @Override
    public CompletableFuture<Void> recvAsync(MemorySegment buf, long count, DataType type, int peer) {
        return runAsync(preparePointToPoint(Collective.RECV, buf, count, type, peer), null, buf);
    }

    @Override
    public void sendRecv(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count, DataType type) {
        runBlocking(prepareSendRecv(send, sendPeer, recv, recvPeer, count, type));
    }

    @Override
    public CompletableFuture<Void> sendRecvAsync(MemorySegment send, int sendPeer, MemorySegment recv, int recvPeer, long count,
                                                 DataType type) {
        return runAsync(prepareSendRecv(send, sendPeer, recv, recvPeer, count, type), send, recv);
    }

    @Override
    public void barrier() {
        // A one-byte AllReduce: every rank must contribute before any returns.
        allReduce(barrierToken, barrierToken, 1, DataType.UINT8, ReduceOp.MAX);
    }

    @Override
    public CompletableFuture<Void> barrierAsync() {
        return allReduceAsync(barrierToken, barrierToken, 1, DataType.UINT8, ReduceOp.MAX);
    }

    @Override
    public Communicator split(int color, int key) {
        int splitIndex;
        synchronized (issueLock) {
            splitIndex = splitCount++;
        }
        int effectiveColor = color < 0 ? SPLIT_NOCOLOR : color;
        long childId = hash(String.format("%016x/split%d/color%d", commId, splitIndex, effectiveColor).getBytes(StandardCharsets.UTF_8));
        PeerInfo me = peers.get(rank);
        // The child's own listener (and network plugin endpoint), whose addresses its peers need.
        Endpoints child = effectiveColor < 0 ? null
                : Endpoints.open(childId, secret, config, addressOf(me.dataHost()), InterfaceSelector.select(config.socketIfname()).name(), plugin, log);
        int[] mine = {effectiveColor, key, child == null ? 0 : child.socketPort()};
        int[] all = new int[3 * size];
        byte[] netAddresses = new byte[plugin == null ? 0 : NET_ADDRESS_MAX * size];
        try {
            allGather(MemorySegment.ofArray(mine), MemorySegment.ofArray(all), 3, DataType.INT32);
            if (plugin != null) {
                byte[] address = new byte[NET_ADDRESS_MAX];
                if (child != null) {
                    byte[] a = Base64.getEncoder().encode(child.netAddress());
                    if (a.length > NET_ADDRESS_MAX) throw new JcclException("network address of " + a.length + " bytes exceeds " + NET_ADDRESS_MAX);
                    System.arraycopy(a, 0, address, 0, a.length);
                }
                allGather(address, netAddresses);
            }
        } catch (RuntimeException e) {
            if (child != null) child.close();
            throw e;
        }
        if (child == null) return null;
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < size; r++) if (all[3 * r] == effectiveColor) members.add(r);
        members.sort(Comparator.<Integer>comparingInt(r -> all[3 * r + 1]).thenComparingInt(r -> r));
        List<PeerInfo> childPeers = new ArrayList<>();
        int newRank = -1;
        for (int i = 0; i < members.size(); i++) {
            int r = members.get(i);
            PeerInfo p = peers.get(r);
            String netAddress = plugin == null ? "" : new String(netAddresses, r * NET_ADDRESS_MAX, NET_ADDRESS_MAX, StandardCharsets.US_ASCII).trim();
            childPeers.add(p.renumbered(i, all[3 * r + 2], netAddress));
            if (r == rank) newRank = i;
        }
        Log childLog = new Log(config, newRank);
        return finishInit(newRank, members.size(), config, childLog, childId, secret, child, plugin, childPeers, System.nanoTime());
    }

    /** Room per rank for a network plugin's address (Base64) when a split exchanges them. */
    private static final int NET_ADDRESS_MAX = 4096;

    private static java.net.InetAddress addressOf(String host) {
        try {
            return java.net.InetAddress.getByName(host);
        } catch (java.net.UnknownHostException e) {
            throw new JcclException("cannot resolve " + host, e);
        }
    }

    @Override
    public void abort() {
        if (aborted) return;
        aborted = true;
        log.warn(Log.Subsys.INIT, "communicator aborted");
        // No abandon frames here: abort may come from another thread while the operation's thread is
        // half way through writing a frame. Shared memory says ABORTED; sockets just close.
        wiring.markAborted();
        transport.close();
        synchronized (issueLock) {
            if (scratchArena != null && tail.isDone()) {
                scratchArena.close();
                scratchArena = null;
            }
        }
    }

    @Override
    public void close() {
        if (closed) return;
        CompletableFuture<Void> last;
        synchronized (issueLock) {
            last = tail;
        }
        if (failure == null && !aborted) {
            try {
                last.get(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // the operation's own caller has its error; closing goes on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closed = true;
        transport.close();
        ProgressThread t;
        synchronized (issueLock) {
            t = progressThread;
        }
        if (t != null) t.close();
        synchronized (issueLock) {
            if (scratchArena != null) {
                scratchArena.close();
                scratchArena = null;
            }
        }
        log.info(Log.Subsys.INIT, String.format("comm 0x%016x rank %d nRanks %d - Destroy COMPLETE", commId, rank, size));
    }

    /**
     * The transports this communicator uses between its ranks, for tools and reports: {@code shm},
     * {@code tcp}, {@code shm+tcp}, or {@code local} for a single rank.
     */
    public String transportSummary() {
        return wiring.summary();
    }
}
