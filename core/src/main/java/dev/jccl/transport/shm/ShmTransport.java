package dev.jccl.transport.shm;

import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.concurrent.IdleStrategy;
import dev.jccl.debug.Log;
import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.OperationBoard;
import dev.jccl.transport.OperationMismatchException;
import dev.jccl.transport.Outbox;
import dev.jccl.transport.PeerLostException;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import dev.jccl.transport.Transport;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The shared-memory transport between ranks of one host.
 *
 * <p>At start-up every local rank creates its {@linkplain RankPages rank page} and maps its local peers' pages; each
 * page is unlinked once every peer has mapped it, so nothing is left in /dev/shm however the processes end. A pair of
 * ranks that exchange data get a pair segment with one {@link ShmRing} per direction, made by the lower rank the first
 * time a schedule needs it (as the socket transport dials lazily) and unlinked as soon as the higher rank has mapped
 * it; a rank that closes cleanly first waits for that ({@link #finishDelivery}), since what it sent is in the segment.
 *
 * <p>Nothing here can wake a waiting thread, so {@link #awaitIo} parks briefly; while it waits it looks at the peers it
 * waits for: a peer whose page says it failed, aborted or closed, or whose process is gone, is a
 * {@link PeerLostException} at once rather than at the deadline.
 */
public final class ShmTransport implements Transport, OperationBoard {
    /**
     * Bytes of one outbox chunk: big enough that a chunk's signal costs little, small enough to pipeline. Measured
     * against 4 slots of 256 KiB (the same megabyte): 32 slots of 32 KiB leave big operations as they were (2 ranks 64
     * MiB 9.2-16.6 ms either way, 4 ranks on 2 CPUs 55-63 ms against 55-60), while 16 KiB slots cost 4 ranks 25% there
     * (70-80 ms: a hand-off per chunk).
     */
    public static final int OUTBOX_SLOT_BYTES = 32 * 1024;
    /**
     * Chunks a writer may be ahead of its slowest reader, and so operations of one chunk: a root broadcasting messages
     * back to back runs this many ahead before it waits for a reader to be scheduled. 4 ranks on 2 CPUs, Broadcast of 8
     * B: 6.8-7.9 µs a call with 4 slots, 1.05-1.12 µs with 32. Chunks of up to 16 bytes run further ahead, in small
     * records ({@code ShmLayout.SMALL_RECORDS}).
     */
    public static final int OUTBOX_SLOTS = 32;

    private static final long PEER_CHECK_INTERVAL_NANOS = 5_000_000;
    /** The longest sleep between looks at the peers, and at connections being made. */
    private static final long MAX_SLEEP_NANOS = 5_000_000;

    private final ShmDirectory directory;
    private final long commId;
    private final int rank;
    private final List<PeerInfo> peers;
    private final int ringBytes;
    private final Log log;
    private final RankPages pages;
    private final boolean[] local;
    private final long pidNamespace;
    private final ShmConnection[] connections;
    /** Pair segments the higher rank has mapped but whose creator has not marked ready yet. */
    private final ShmSegment[] opening;

    private final List<ShmSegment> awaitingAttach = new ArrayList<>();
    private final List<ShmConnection> active = new ArrayList<>();
    private final List<Integer> connecting = new ArrayList<>();
    private long lastPeerCheck;
    /** Sleeps are cut to this when sockets carry other peers' data, which cannot ring the doorbell. */
    private volatile long maxSleepNanos = MAX_SLEEP_NANOS;
    /** Whether wake-ups are fenced (see {@link RankPages#wake}): where ranks share cores and sleep often. */
    private volatile boolean fencedWakes = true;

    private long currentSequence = -1;
    private long currentDescriptor;
    private long currentCount;
    private boolean inPointToPoint;
    private long collectivesDone;
    private volatile boolean closed;

    private ShmTransport(
            ShmDirectory directory,
            long commId,
            int rank,
            List<PeerInfo> peers,
            boolean[] local,
            int ringBytes,
            RankPages pages,
            Log log) {
        this.directory = directory;
        this.commId = commId;
        this.rank = rank;
        this.peers = List.copyOf(peers);
        this.local = local;
        this.ringBytes = ringBytes;
        this.pages = pages;
        this.log = log;
        this.pidNamespace = ShmDirectory.pidNamespace();
        this.connections = new ShmConnection[peers.size()];
        this.opening = new ShmSegment[peers.size()];
    }

    /**
     * What this process puts in its {@link PeerInfo#shmPrefix()}: its segment name prefix, or empty (with {@code why}
     * filled in) when it cannot use shared memory here.
     */
    public static String prefixForThisProcess(StringBuilder why) {
        String reason = ShmDirectory.standard().unavailableReason();
        if (reason != null) {
            why.append(reason);
            return "";
        }
        return ShmDirectory.processPrefix();
    }

    /**
     * Whether ranks of this host could talk through shared memory here, and what with: for {@code jccl info}. Null
     * {@code reasonOff} when not disabled.
     */
    public static String describeAvailability(boolean disabled, String disabledBy) {
        if (disabled) return "off (" + disabledBy + "): ranks of one host use TCP";
        ShmDirectory dir = ShmDirectory.standard();
        String reason = dir.unavailableReason();
        if (reason != null) return "unavailable: " + reason;
        long free = ShmSegment.usableBytes(dir.dir());
        String space = free < 0 ? "free space unknown" : String.format("%.1f GiB free", free / (double) (1L << 30));
        String waits = Futex.available()
                ? "waiting ranks sleep on futexes"
                : "waiting ranks park (" + Futex.unavailableReason() + ")";
        return "available (" + dir.dir() + ", " + space + "; " + waits + ")";
    }

    /** Whether this transport can be used here at all (a shared-memory directory exists and is writable). */
    /**
     * The most {@code /dev/shm} that {@code localRanks} ranks of one host map at {@code JCCL_BUFFSIZE = buffSize}: a
     * page per rank and a pair segment (two rings) for every pair of ranks, as an AllToAll needs. For the doctor's
     * /dev/shm check.
     */
    public static long bytesForLocalRanks(int localRanks, int buffSize) {
        long pairs = (long) localRanks * (localRanks - 1) / 2;
        return localRanks * ShmLayout.rankPageBytes(localRanks, OUTBOX_SLOT_BYTES, OUTBOX_SLOTS)
                + pairs * ShmLayout.pairSegmentBytes(ShmLayout.ringBytes(buffSize));
    }

    public static boolean usableHere() {
        return ShmDirectory.standard().unavailableReason() == null;
    }

    /**
     * Sets up shared memory with every rank of {@code peers} that shares memory with this one: creates this rank's
     * page, maps theirs, and waits until each of them has mapped this one, all before {@code deadlineNanos}.
     *
     * @param bufferBytes bytes of each direction's ring (JCCL_BUFFSIZE)
     */
    public static ShmTransport open(
            long commId,
            int rank,
            List<PeerInfo> peers,
            int bufferBytes,
            boolean singleCopy,
            Log log,
            long deadlineNanos) {
        ShmDirectory directory = ShmDirectory.standard();
        for (String stale : directory.reap()) {
            log.info(
                    Log.Subsys.INIT,
                    "removed " + directory.dir().resolve(stale) + ", left by a process that no longer runs");
        }
        PeerInfo me = peers.get(rank);
        boolean[] local = new boolean[peers.size()];
        int localPeers = 0;
        for (PeerInfo p : peers) {
            if (p.rank() != rank && me.sharesMemoryWith(p)) {
                local[p.rank()] = true;
                localPeers++;
            }
        }
        ShmSegment[] pageSegments = new ShmSegment[peers.size()];
        RankPages pages = new RankPages(rank, OUTBOX_SLOT_BYTES, OUTBOX_SLOTS, pageSegments);
        long pageBytes = ShmLayout.rankPageBytes(peers.size(), OUTBOX_SLOT_BYTES, OUTBOX_SLOTS);
        try {
            Path mine = directory.rankPage(me.shmPrefix(), commId, rank);
            try {
                pageSegments[rank] = ShmSegment.create(mine, pageBytes);
            } catch (ShmSpaceException e) {
                throw new JcclException(spaceMessage(rank, "its shared-memory page", e), e);
            } catch (IOException e) {
                throw new JcclException(
                        "rank " + rank + " cannot create " + mine + ": " + e.getMessage()
                                + ". Set JCCL_SHM_DISABLE=1 to use TCP between ranks of this host instead.",
                        e);
            }
            RankPages.initialise(
                    pageSegments[rank].memory(), commId, rank, peers.size(), OUTBOX_SLOT_BYTES, OUTBOX_SLOTS);
            RankPages.setState(pageSegments[rank].memory(), ShmLayout.STATE_READY);
            ShmTransport t = new ShmTransport(
                    directory, commId, rank, peers, local, ShmLayout.ringBytes(bufferBytes), pages, log);
            t.mapPeerPages(pageSegments, pageBytes, deadlineNanos);
            t.decideSingleCopy(singleCopy);
            t.awaitAttachments(localPeers, deadlineNanos);
            pageSegments[rank].unlink();
            return t;
        } catch (RuntimeException e) {
            if (pageSegments[rank] != null) {
                RankPages.setState(pageSegments[rank].memory(), ShmLayout.STATE_FAILED);
                pageSegments[rank].unlink();
            }
            pages.close();
            throw e;
        }
    }

    private void mapPeerPages(ShmSegment[] pageSegments, long pageBytes, long deadlineNanos) {
        for (PeerInfo p : peers) {
            if (!local[p.rank()]) continue;
            Path path = directory.rankPage(p.shmPrefix(), commId, p.rank());
            String problem = "its page " + path + " does not exist yet";
            IdleStrategy idle = setUpIdleStrategy();
            while (true) {
                try {
                    ShmSegment s = pageSegments[p.rank()] != null
                            ? pageSegments[p.rank()]
                            : ShmSegment.tryOpen(path, pageBytes);
                    pageSegments[p.rank()] = s;
                    if (s != null) {
                        problem = RankPages.check(s.memory(), commId, p.rank());
                        if (problem == null) {
                            RankPages.attach(s.memory());
                            break;
                        }
                        problem = "its page " + path + " is " + problem;
                    }
                } catch (IOException e) {
                    problem = "mapping " + path + " failed: " + e.getMessage();
                }
                waitDuringSetUp(idle, p, deadlineNanos, problem);
            }
        }
    }

    /** Waits until every local peer has mapped this rank's page, so that it can be unlinked. */
    private void awaitAttachments(int localPeers, long deadlineNanos) {
        IdleStrategy idle = setUpIdleStrategy();
        while (pages.attached() < localPeers) {
            waitDuringSetUp(
                    idle,
                    null,
                    deadlineNanos,
                    (localPeers - pages.attached()) + " of " + localPeers
                            + " local peer(s) have not mapped this rank's page");
        }
    }

    /**
     * Peers map each other's pages within microseconds when they start together, and seconds apart when one JVM starts
     * late: spin and yield briefly, then park up to a millisecond.
     */
    private static IdleStrategy setUpIdleStrategy() {
        return new IdleStrategy(SET_UP_SPIN_NANOS, SET_UP_YIELD_NANOS);
    }

    private static final long SET_UP_SPIN_NANOS = 5_000;
    private static final long SET_UP_YIELD_NANOS = 50_000;
    private static final long SET_UP_MAX_PARK_NANOS = 1_000_000;

    private void waitDuringSetUp(IdleStrategy idle, PeerInfo peer, long deadlineNanos, String problem) {
        if (System.nanoTime() - deadlineNanos > 0) {
            String who = peer == null ? "" : " rank " + peer.rank() + " (" + peer.where() + "):";
            throw new JcclException("rank " + rank + ": shared-memory set-up did not finish in time (JCCL_TIMEOUT):"
                    + who + " " + problem
                    + ". Are all ranks of this host running, and do they see the same /dev/shm "
                    + "(containers need a shared IPC"
                    + " namespace or volume)? JCCL_SHM_DISABLE=1 makes them use TCP instead.");
        }
        if (peer != null && samePidNamespace(peer) && !ShmDirectory.isAlive(peer.pid())) {
            throw new JcclException("rank " + rank + ": rank " + peer.rank() + " (" + peer.where()
                    + ") exited during shared-memory set-up");
        }
        idle.idleOrPark(SET_UP_MAX_PARK_NANOS);
    }

    /**
     * Tries reading every local peer's page by single copy ({@link CrossMemory}) and publishes the verdict in this
     * rank's page, where writers look before they publish a chunk by reference rather than copy it into their outbox.
     */
    private void decideSingleCopy(boolean wanted) {
        String problem = singleCopyProblem(wanted);
        pages.singleCopyVerdict(problem == null ? ShmLayout.SINGLE_COPY_YES : ShmLayout.SINGLE_COPY_NO);
        log.info(
                Log.Subsys.INIT,
                problem == null
                        ? "SHM single copy : on (peers read this rank's buffers with process_vm_readv from "
                                + ShmOutbox.SINGLE_COPY_MIN_BYTES / 1024 + " KiB to "
                                + (ShmOutbox.SINGLE_COPY_MAX_BYTES >> 20) + " MiB)"
                        : "SHM single copy : off (" + problem + ")");
    }

    /** Null if this rank can read every local peer's memory by single copy, else why not. */
    private String singleCopyProblem(boolean wanted) {
        if (!wanted) return Config.SHM_SINGLE_COPY + "=0";
        if (!CrossMemory.available()) return CrossMemory.unavailableReason();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(8, 8);
            for (PeerInfo p : peers) {
                if (!local[p.rank()]) continue;
                if (!samePidNamespace(p)) return "rank " + p.rank() + " is in another PID namespace";
                long at = pages.pageAddress(p.rank()) + ShmLayout.COMM_OFFSET;
                int errno = CrossMemory.read(p.pid(), word, 0, at, 8);
                if (errno != 0) {
                    return "reading rank " + p.rank() + "'s memory failed: " + CrossMemory.errorName(errno);
                }
                if (word.get(ValueLayout.JAVA_LONG, 0) != commId) {
                    return "rank " + p.rank() + "'s page is not at the address it gives";
                }
            }
        }
        return null;
    }

    private boolean samePidNamespace(PeerInfo p) {
        String[] parts = p.shmPrefix().split("-");
        return parts.length >= 2 && parts[1].equals(Long.toString(pidNamespace));
    }

    static String spaceMessage(int rank, String what, ShmSpaceException e) {
        String free = e.usable < 0 ? "an unknown amount" : mib(e.usable);
        return "rank " + rank + " cannot create " + what + ": " + e.directory + " is too small (" + free + " free, "
                + mib(e.needed) + " needed). Containers get a 64 MB /dev/shm by default: start them with a larger one "
                + "(docker run --shm-size=1g; in Kubernetes mount an emptyDir with medium: Memory at /dev/shm), lower "
                + "JCCL_BUFFSIZE, or set JCCL_SHM_DISABLE=1 to use TCP between ranks of this host.";
    }

    private static String mib(long bytes) {
        return String.format("%.1f MiB", bytes / 1048576.0);
    }

    // ---------------------------------------------------------------- Transport

    @Override
    public String name() {
        return "SHM";
    }

    /** True if this transport carries data between this rank and {@code peer}. */
    public boolean reaches(int peer) {
        return local[peer];
    }

    /** The outboxes of this rank and its local peers, for the one-shot (LL) collectives. */
    public ShmOutbox outbox() {
        return new ShmOutbox(this, pages, rank, peers.size());
    }

    @Override
    public boolean tryConnect(Collection<Integer> wanted) throws IOException {
        checkOpen();
        boolean all = true;
        for (int peer : wanted) {
            if (peer == rank || connections[peer] != null) continue;
            if (!local[peer]) {
                throw new IllegalStateException("rank " + peer + " does not share memory with rank " + rank);
            }
            if (rank < peer) {
                create(peer);
            } else if (!attach(peer)) {
                all = false;
                if (!connecting.contains(peer)) connecting.add(peer);
            }
        }
        return all;
    }

    /** The lower rank of a pair makes the pair segment; it can send at once, the ring being in shared memory. */
    private void create(int peer) throws IOException {
        Path path = directory.pairSegment(peers.get(rank).shmPrefix(), commId, rank, peer);
        ShmSegment s;
        try {
            s = ShmSegment.create(path, ShmLayout.pairSegmentBytes(ringBytes));
        } catch (ShmSpaceException e) {
            throw new IOException(spaceMessage(rank, "the shared-memory rings it shares with rank " + peer, e), e);
        }
        MemorySegment m = s.memory();
        SharedWords.setPlain(m, ShmLayout.MAGIC_OFFSET, ShmLayout.MAGIC);
        m.set(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.VERSION_OFFSET, ShmLayout.VERSION);
        m.set(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.SIZE_PARAM_OFFSET, ringBytes);
        SharedWords.setPlain(m, ShmLayout.PID_OFFSET, ProcessHandle.current().pid());
        SharedWords.setPlain(m, ShmLayout.COMM_OFFSET, commId);
        m.set(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.RANK_A_OFFSET, rank);
        m.set(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.RANK_B_OFFSET, peer);
        SharedWords.release(m, ShmLayout.READY_OFFSET, 1);
        connections[peer] = new ShmConnection(peer, s, ringBytes, true);
        awaitingAttach.add(s);
        log.info(
                Log.Subsys.INIT,
                "Channel 00 : " + rank + "[" + rank + "] <-> " + peer + "[" + peer + "] via SHM/direct "
                        + path.getFileName() + " (" + ringBytes / 1024 + " KiB each way)");
    }

    /** The higher rank maps the segment once its creator has made it; false while it is not ready. */
    private boolean attach(int peer) throws IOException {
        ShmSegment s = opening[peer];
        if (s == null) {
            Path path = directory.pairSegment(peers.get(peer).shmPrefix(), commId, peer, rank);
            s = ShmSegment.tryOpen(path, ShmLayout.pairSegmentBytes(ringBytes));
            if (s == null) return false;
            opening[peer] = s;
        }
        MemorySegment m = s.memory();
        if (SharedWords.acquire(m, ShmLayout.READY_OFFSET) != 1) return false;
        if (SharedWords.plain(m, ShmLayout.COMM_OFFSET) != commId
                || m.get(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.SIZE_PARAM_OFFSET) != ringBytes) {
            throw new PeerLostException(
                    peer,
                    s.path() + " does not match this communicator (ring of "
                            + m.get(java.lang.foreign.ValueLayout.JAVA_INT, ShmLayout.SIZE_PARAM_OFFSET)
                            + " bytes, this rank expects "
                            + ringBytes + "; do the ranks have the same JCCL_BUFFSIZE?)",
                    null);
        }
        SharedWords.getAndAdd(m, ShmLayout.PAIR_ATTACHED_OFFSET, 1);
        opening[peer] = null;
        connecting.remove((Integer) peer);
        connections[peer] = new ShmConnection(peer, s, ringBytes, false);
        log.info(
                Log.Subsys.INIT,
                "Channel 00 : " + peer + "[" + peer + "] <-> " + rank + "[" + rank + "] via SHM/direct "
                        + s.path().getFileName() + " (mapped)");
        return true;
    }

    private ShmConnection connection(int peer) {
        ShmConnection c = connections[peer];
        if (c == null) {
            throw new IllegalStateException(
                    "rank " + rank + " has no shared-memory connection to " + peer + " (tryConnect first)");
        }
        if (!active.contains(c)) active.add(c);
        return c;
    }

    @Override
    public TransferHandle postSend(int peer, FrameHeader header, MemorySegment data, long readyBytes) {
        return connection(peer).postSend(header, data, readyBytes);
    }

    @Override
    public TransferHandle postRecv(int peer, FrameHeader expected, int elementBytes, RecvSink sink) {
        return connection(peer).postRecv(expected, sink);
    }

    @Override
    public int progress() throws IOException {
        checkOpen();
        int work = 0;
        for (int i = active.size() - 1; i >= 0; i--) {
            ShmConnection c = active.get(i);
            int w = c.progress();
            if (w > 0) {
                work += w;
                pages.wake(
                        c.peer(),
                        fencedWakes); // it may sleep waiting for what we just wrote, or for the room we just gave back
            }
            if (c.idle()) active.remove(i);
        }
        if (!awaitingAttach.isEmpty()) unlinkAttached();
        return work;
    }

    private void unlinkAttached() {
        for (int i = awaitingAttach.size() - 1; i >= 0; i--) {
            ShmSegment s = awaitingAttach.get(i);
            if (SharedWords.acquire(s.memory(), ShmLayout.PAIR_ATTACHED_OFFSET) > 0) {
                s.unlink();
                awaitingAttach.remove(i);
            }
        }
    }

    @Override
    public boolean busy() {
        return !active.isEmpty() || !connecting.isEmpty();
    }

    /**
     * Sleeps on this rank's doorbell until a peer that makes work for it rings it (see {@link RankPages#wake}), or at
     * most a few milliseconds, between which it checks on the peers it waits for. Peers ring only a rank that has said
     * it may sleep, and it says so before its last look for work, so no wake-up is lost.
     */
    @Override
    public void awaitIo(long maxNanos) throws IOException {
        checkOpen();
        long now = System.nanoTime();
        if (now - lastPeerCheck > PEER_CHECK_INTERVAL_NANOS) {
            lastPeerCheck = now;
            for (ShmConnection c : active) {
                checkPeerOf(c);
                checkOperation(c.peer());
            }
            for (int p : connecting) checkPeer(p);
        }
        long limit = Math.min(maxNanos, connecting.isEmpty() ? maxSleepNanos : Math.min(maxSleepNanos, 1_000_000));
        int doorbell = pages.doorbell();
        pages.sleeping(true);
        try {
            for (ShmConnection c : active) {
                if (c.hasNews()) return;
            }
            pages.sleep(doorbell, limit);
        } finally {
            pages.sleeping(false);
        }
    }

    /**
     * Caps each sleep, for communicators whose other peers are reached by sockets, which cannot ring this rank's
     * doorbell.
     */
    public void limitSleep(long nanos) {
        maxSleepNanos = Math.min(maxSleepNanos, nanos);
    }

    /**
     * How waking works here: {@code sleepsOften} where ranks outnumber cores (every wake-up is fenced and never lost);
     * otherwise ranks poll for milliseconds before they sleep, wakes skip the fence, and a sleep lasts at most a
     * millisecond, bounding what a missed wake-up costs.
     */
    public void ranksSleepOften(boolean sleepsOften) {
        fencedWakes = sleepsOften;
        if (!sleepsOften) limitSleep(1_000_000);
    }

    boolean fencedWakes() {
        return fencedWakes;
    }

    long sleepCap(long nanos) {
        return Math.min(nanos, maxSleepNanos);
    }

    /**
     * A {@link PeerLostException} if {@code peer} (a rank of this host) has marked its page failed or aborted. Only
     * reads a word that is written once in a communicator's life, so it costs next to nothing at the start of every
     * operation; it is what makes an idle rank's next operation fail when a peer has aborted, even where the peer left
     * its half of that operation's data behind. A peer that closed is not an error here: it finished every operation it
     * called, and this one may need nothing more from it (a Reduce's last contributor leaves before the root is done);
     * if it does, the wait notices.
     */
    @Override
    public void checkPeerStopped(int peer) throws PeerLostException {
        if (peer == rank || !reaches(peer)) return;
        long state = pages.state(peer);
        if (state == ShmLayout.STATE_FAILED || state == ShmLayout.STATE_ABORTED) checkPeer(peer);
    }

    /**
     * {@link #checkPeer} for a connection with work pending, except that a peer which closed is not yet an error while
     * the ring still holds what it sent before closing: a rank may finish its last send and close before its receiver
     * has read it. The state is read before the ring (both published with release), so data written before the close is
     * seen here.
     */
    private void checkPeerOf(ShmConnection c) throws PeerLostException {
        if (pages.state(c.peer()) == ShmLayout.STATE_CLOSED && !c.needsPeer()) return;
        checkPeer(c.peer());
    }

    /** A {@link PeerLostException} if {@code peer}'s page says it stopped, or its process is gone. */
    void checkPeer(int peer) throws PeerLostException {
        long state = pages.state(peer);
        if (state == ShmLayout.STATE_FAILED) {
            String reason = pages.reason(peer);
            throw new PeerLostException(
                    peer, "rank " + peer + " failed" + (reason.isEmpty() ? "" : ": " + reason), null);
        }
        if (state == ShmLayout.STATE_ABORTED) {
            throw new PeerLostException(peer, "rank " + peer + " aborted its communicator", null);
        }
        if (state == ShmLayout.STATE_CLOSED) {
            throw new PeerLostException(peer, "rank " + peer + " closed its communicator", null);
        }
        PeerInfo p = peers.get(peer);
        if (samePidNamespace(p) && !ShmDirectory.isAlive(p.pid())) {
            throw new PeerLostException(peer, "its process " + p.pid() + " is gone (killed or crashed)", null);
        }
    }

    @Override
    public String describePending(int peer) {
        ShmConnection c = connections[peer];
        if (c == null) return peer > rank ? "waiting for the pair segment rank " + peer + " creates" : "not connected";
        return c.describePending();
    }

    @Override
    public void wakeup() {
        // A waiter sleeps for at most a few milliseconds, then sees the transport closed.
    }

    boolean isClosed() {
        return closed;
    }

    // ---------------------------------------------------------------- what this rank is doing, for its peers

    /**
     * Tells local peers that this rank has started collective {@code sequence}, with the given signature: a peer that
     * waits on this rank and finds it in another operation at the same sequence number fails with an
     * {@link OperationMismatchException} instead of waiting for the deadline.
     */
    @Override
    public void announce(long sequence, long descriptor, long count) {
        currentSequence = sequence;
        currentDescriptor = descriptor;
        currentCount = count;
        inPointToPoint = false;
        pages.announce(sequence, descriptor, count);
    }

    /**
     * This rank is in a point-to-point operation ({@code descriptor} × {@code count} describes it for error messages).
     * While it waits on a peer that is in a collective this rank has not yet called and that needs every rank, neither
     * can ever go on: that is reported as a mismatch.
     */
    @Override
    public void announcePointToPoint(long descriptor, long count) {
        currentSequence = -1;
        currentDescriptor = descriptor;
        currentCount = count;
        inPointToPoint = true;
    }

    /** Tells local peers that this rank has finished {@code collectivesDone} collectives. */
    @Override
    public void finished(long collectivesDone) {
        currentSequence = -1;
        inPointToPoint = false;
        this.collectivesDone = collectivesDone;
        pages.finished(collectivesDone);
    }

    /** Point-to-point operations leave the collectives' count alone, and clear the operation in progress. */
    @Override
    public void finishedPointToPoint() {
        inPointToPoint = false;
    }

    private void checkOperation(int peer) throws OperationMismatchException {
        Outbox.OperationId a = pages.announced(peer);
        if (a == null) return;
        if (currentSequence >= 0
                && a.sequence() == currentSequence
                && (a.descriptor() != currentDescriptor || a.count() != currentCount)) {
            throw new OperationMismatchException(peer, currentSequence, a.descriptor(), a.count());
        }
        if (inPointToPoint
                && connections[peer] != null
                && connections[peer].awaitsData()
                && a.sequence() >= collectivesDone
                && (a.descriptor() & NEEDS_EVERY_RANK) != 0
                && pages.done(peer) <= a.sequence()) {
            throw new OperationMismatchException(peer, a.sequence(), a.descriptor(), a.count());
        }
    }

    private void checkOpen() throws IOException {
        if (closed) throw new IOException("transport closed");
    }

    /**
     * Marks this rank FAILED with {@code reason} for its local peers to report, unless it was marked ABORTED already.
     */
    @Override
    public void abandon(String reason) {
        if (!closed && pages.state(rank) == ShmLayout.STATE_READY) pages.fail(reason);
    }

    /** Marks this rank ABORTED for its local peers; call before {@link #close()}. */
    @Override
    public void markAborted() {
        if (!closed) RankPages.setState(pages.mine(), ShmLayout.STATE_ABORTED);
    }

    /**
     * Waits for each peer that has not mapped a pair segment this rank made to map it, or to stop. Closing unlinks such
     * a segment, and with it whatever this rank already wrote there: a rank that needs nothing back from a peer (a
     * Bruck or recursive-doubling AllGather on 7 ranks has such pairs) can finish its last operation and close before
     * that peer has even opened the segment, and the peer would then find the file gone and report this rank lost. Past
     * the deadline the segment is unlinked anyway (nothing may be left in /dev/shm), and the peer fails.
     */
    @Override
    public void finishDelivery(long deadlineNanos) {
        IdleStrategy idle = setUpIdleStrategy();
        try {
            while (!closed) {
                unlinkAttached();
                boolean waiting = false;
                for (ShmConnection c : connections) {
                    if (c != null && awaitingAttach.contains(c.segment()) && peerMayStillAttach(c.peer())) {
                        waiting = true;
                        break;
                    }
                }
                if (!waiting) return;
                if (System.nanoTime() - deadlineNanos > 0) {
                    log.warn(
                            Log.Subsys.INIT,
                            "rank " + rank + " closes before every local peer mapped the rings it wrote to"
                                    + " (JCCL_TIMEOUT); those peers will report it lost");
                    return;
                }
                idle.idleOrPark(SET_UP_MAX_PARK_NANOS);
            }
        } catch (IllegalStateException e) {
            // an abort from another thread closed the segments under this wait: nothing is left to deliver
        }
    }

    private boolean peerMayStillAttach(int peer) {
        if (pages.state(peer) != ShmLayout.STATE_READY) return false;
        PeerInfo p = peers.get(peer);
        return !samePidNamespace(p) || ShmDirectory.isAlive(p.pid());
    }

    @Override
    public void close() {
        // Abort (from any thread) and close may arrive together: exactly one of them releases.
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        if (pages.state(rank) == ShmLayout.STATE_READY) RankPages.setState(pages.mine(), ShmLayout.STATE_CLOSED);
        for (ShmSegment s : awaitingAttach) s.unlink();
        for (ShmConnection c : connections) {
            if (c != null) c.segment().close();
        }
        for (ShmSegment s : opening) {
            if (s != null) s.close();
        }
        pages.close();
    }
}
