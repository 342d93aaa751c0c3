package dev.jccl.runtime;

import dev.jccl.FailureVerdict;
import dev.jccl.bootstrap.PeerInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * After a collective fails, gives every rank the same root cause. Each failing rank asks the lowest-numbered rank that
 * answers its control channel for the verdict (itself, if it is that rank); that rank decides once, from the status of
 * every rank it can reach ({@link Verdicts}), and hands the same verdict to every later asker. Ranks that see the same
 * dead or silent lower ranks pick the same decider; every wait is bounded, so the whole exchange adds at most a few
 * seconds to an error that has already waited for its deadline.
 */
final class FailureAgreement implements ControlChannel.Responder {
    private final int rank;
    private final List<PeerInfo> peers;
    private final ControlChannel channel;
    private final RankActivity activity = new RankActivity();
    private final int statusMillis;
    /** How long to wait before asking a peer that is still starting again. */
    private static final long NOT_READY_RETRY_MILLIS = 20;

    private FailureVerdict decided;
    /** On the rank that decided: the ranks that were in the failed operation and will come for the verdict. */
    private final Set<Integer> awaited = new HashSet<>();

    private final Set<Integer> fetched = new HashSet<>();

    /**
     * @param channel this rank's control channel, or null without one (it then decides alone, from what it can ask)
     * @param timeout the communicator's deadline (JCCL_TIMEOUT): status requests get a tenth of it, between 0.25 and 2
     *     s
     */
    FailureAgreement(int rank, List<PeerInfo> peers, ControlChannel channel, Duration timeout) {
        this.rank = rank;
        this.peers = peers;
        this.channel = channel;
        this.statusMillis = (int) Math.max(250, Math.min(2_000, timeout.toMillis() / 10));
        if (channel != null) channel.serve(this);
    }

    RankActivity activity() {
        return activity;
    }

    @Override
    public RankStatus status() {
        return activity.snapshot(rank);
    }

    /**
     * The verdict from the first rank that answers, lowest first; null if there is no control channel. Once this rank
     * holds a verdict it gives that one to any rank that asks it, so that a decider that has gone since does not leave
     * a later asker to decide differently.
     */
    FailureVerdict agree() {
        if (channel == null) return null;
        synchronized (this) {
            if (decided != null) return verdictFor(rank); // counts this rank among those that have it
        }
        byte[] token = channel.token();
        int verdictMillis = 2 * statusMillis + 1_000;
        for (int c = 0; c < peers.size(); c++) {
            if (c == rank) return verdictFor(rank);
            try {
                int decider = c;
                FailureVerdict v =
                        askWhileStarting(() -> ControlChannel.askVerdict(address(decider), token, rank, verdictMillis));
                synchronized (this) {
                    if (decided == null) decided = v;
                    return decided;
                }
            } catch (IOException e) {
                // That rank cannot decide (gone, stopped, cut off): the next one can.
            }
        }
        return verdictFor(rank);
    }

    @Override
    public synchronized FailureVerdict verdictFor(int asker) {
        if (decided == null) decided = decide();
        fetched.add(asker);
        notifyAll();
        return decided;
    }

    /**
     * On the rank that decided, before its control channel closes: waits (at most twice the status timeout and 2 s)
     * until every rank that was in the failed operation has fetched the verdict, so that none of them, finding this
     * rank gone, decides again without it.
     */
    synchronized void lingerForAskers() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * statusMillis + 2_000);
        while (!fetched.containsAll(awaited)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) return;
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private FailureVerdict decide() {
        int size = peers.size();
        RankStatus[] status = new RankStatus[size];
        String[] unreachable = new String[size];
        byte[] token = channel.token();
        List<Thread> askers = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (r == rank) {
                status[r] = status();
                continue;
            }
            int peer = r;
            askers.add(Thread.ofVirtual().name("jccl-ask-rank" + r).start(() -> {
                try {
                    status[peer] = askWhileStarting(() -> ControlChannel.askStatus(address(peer), token, statusMillis));
                } catch (IOException e) {
                    unreachable[peer] = why(e);
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * statusMillis + 500);
        for (Thread t : askers) {
            try {
                long left = deadline - System.nanoTime();
                if (left > 0) t.join(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (int r = 0; r < size; r++) {
            if (status[r] == null && unreachable[r] == null) {
                unreachable[r] = "did not answer within " + (2 * statusMillis + 500) + " ms";
            }
        }
        List<String> where = new ArrayList<>(size);
        for (PeerInfo p : peers) where.add(p.where());
        FailureVerdict v = Verdicts.decide(rank, status, unreachable, where);
        for (RankStatus s : status) {
            if (s != null
                    && (s.inCollective() || !s.failure().isEmpty())
                    && !v.culprits().contains(s.rank())) {
                awaited.add(s.rank());
            }
        }
        return v;
    }

    /** One request to a peer's control channel. */
    @FunctionalInterface
    private interface Question<T> {
        T ask() throws IOException;
    }

    /**
     * Asks, and while the peer answers that it is still starting, asks again every {@value #NOT_READY_RETRY_MILLIS} ms
     * for up to a status timeout (so that the last answer still comes within {@link #decide}'s wait); then throws its
     * last {@link ControlChannel.NotReadyException}. A peer in its start-up is alive: counting it as unreachable would
     * name it as a cause and leave it out of a shrink it belongs to (seen: three ranks that aborted straight after
     * init; rank 0 asked before ranks 1 and 2 had finished theirs, named both, and was left alone, not a majority), and
     * passing over a decider that is still starting would let a later rank decide a second verdict.
     */
    private <T> T askWhileStarting(Question<T> question) throws IOException {
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(statusMillis);
        while (true) {
            try {
                return question.ask();
            } catch (ControlChannel.NotReadyException e) {
                if (System.nanoTime() > giveUp) throw e;
                try {
                    Thread.sleep(NOT_READY_RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private String why(IOException e) {
        if (e instanceof SocketTimeoutException) {
            return "did not answer within " + statusMillis + " ms: its process is stopped (SIGSTOP, a debugger), hung "
                    + "in the kernel, or cut off from rank " + rank;
        }
        if (ControlChannel.refused(e)) return "refused the connection: its process is gone (killed or crashed)";
        if (ControlChannel.reset(e)) {
            return "reset the connection without answering: its process is gone (killed or crashed)";
        }
        if (e instanceof java.net.NoRouteToHostException
                || String.valueOf(e.getMessage()).contains("unreachable")) {
            return "could not be reached from rank " + rank + " (" + e.getMessage()
                    + "): its host is down or the network between them is cut";
        }
        return "could not be asked (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
    }

    private InetSocketAddress address(int r) {
        PeerInfo p = peers.get(r);
        return new InetSocketAddress(p.dataHost(), p.controlPort());
    }
}
