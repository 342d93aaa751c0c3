package dev.jccl.transport.table;

import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.RoutingTransport;
import dev.jccl.transport.Transport;
import dev.jccl.transport.shm.ShmTransport;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides, in one place for init and split alike, which transport connects this rank to each peer: every factory, in
 * order of preference (shared memory, then the network plugin, then sockets), is asked whether it can reach the peer,
 * and the first that can gets it. The answers come from the peer table, which every rank has the same copy of, so both
 * ends of a pair choose alike. Factories no peer chose are closed; the runtime gets the transports as a {@link Wiring}
 * and never names a concrete one.
 */
public final class TransportTable {
    /** Longest sleep of a shared-memory waiter whose other peers are on sockets, which cannot ring its doorbell. */
    private static final long MIXED_SLEEP_CAP_NANOS = 200_000;

    private TransportTable() {}

    /**
     * Wires this rank to its peers.
     *
     * @param endpoints what this rank opened before the exchange; handed over here, closed on failure
     * @param bufferBytes the shared-memory rings' size (JCCL_BUFFSIZE)
     * @param shmSingleCopy whether local peers may read this rank's buffers directly (JCCL_SHM_SINGLE_COPY)
     * @param ranksShareCpus some host runs more ranks than it has CPUs: wake-ups there must never be lost
     * @param deadlineNanos when the shared-memory set-up gives up waiting for the local peers
     */
    public static Wiring wire(
            Endpoints endpoints,
            int rank,
            List<PeerInfo> peers,
            int bufferBytes,
            boolean shmSingleCopy,
            boolean ranksShareCpus,
            Log log,
            long deadlineNanos) {
        ShmFactory shmFactory = new ShmFactory(endpoints.commId(), bufferBytes, shmSingleCopy, log, deadlineNanos);
        List<TransportFactory> factories = endpoints.start(rank, peers, shmFactory);
        List<Transport> opened = new ArrayList<>();
        try {
            PeerInfo me = peers.get(rank);
            List<List<Integer>> routed = new ArrayList<>();
            for (int f = 0; f < factories.size(); f++) routed.add(new ArrayList<>());
            int[] factoryOf = new int[peers.size()];
            for (PeerInfo p : peers) {
                if (p.rank() == rank) continue;
                int f = 0;
                while (!factories.get(f).canConnect(me, p)) f++; // the last, sockets, reaches everyone
                factoryOf[p.rank()] = f;
                routed.get(f).add(p.rank());
            }
            Transport[] transports = new Transport[factories.size()];
            for (int f = 0; f < factories.size(); f++) {
                if (routed.get(f).isEmpty()) continue;
                transports[f] = factories.get(f).open(rank, peers, routed.get(f));
                opened.add(transports[f]);
            }
            Wiring wiring =
                    wiringOf(rank, peers, factories, transports, factoryOf, endpoints.netName(), ranksShareCpus);
            for (TransportFactory f : factories) f.close(); // those no peer chose
            return wiring;
        } catch (RuntimeException e) {
            for (Transport t : opened) t.close();
            for (TransportFactory f : factories) f.close();
            throw e;
        }
    }

    private static Wiring wiringOf(
            int rank,
            List<PeerInfo> peers,
            List<TransportFactory> factories,
            Transport[] transports,
            int[] factoryOf,
            String net,
            boolean ranksShareCpus) {
        ShmTransport shm = (ShmTransport) transports[0];
        Transport remote = null;
        for (int f = 1; f < transports.length; f++) {
            if (transports[f] != null) remote = transports[f];
        }
        Transport transport;
        if (shm == null && remote == null) {
            // A single rank: nothing is routed; the socket transport stands by, idle.
            transport = factories.getLast().open(rank, peers, List.of());
        } else if (shm == null) {
            transport = remote;
        } else if (remote == null) {
            transport = shm;
        } else {
            Transport[] byPeer = new Transport[peers.size()];
            for (PeerInfo p : peers) byPeer[p.rank()] = p.rank() == rank ? remote : transports[factoryOf[p.rank()]];
            transport = new RoutingTransport(byPeer, shm, remote);
            shm.limitSleep(MIXED_SLEEP_CAP_NANOS);
        }
        if (shm != null) shm.ranksSleepOften(ranksShareCpus);
        boolean everyPairShares = shm != null && remote == null && peers.size() >= 2;
        String summary = peers.size() == 1 ? "local" : shm == null ? net : remote == null ? "shm" : "shm+" + net;
        List<String> via = new ArrayList<>();
        PeerInfo me = peers.get(rank);
        for (PeerInfo p : peers) {
            if (p.rank() == rank) {
                via.add("self");
                continue;
            }
            boolean sameHost = p.hostId().equals(me.hostId());
            String how = factories.get(factoryOf[p.rank()]).via(p);
            if (factoryOf[p.rank()] == 0) {
                via.add(how + " (same host)");
            } else if (!sameHost) {
                via.add(how + " (different host)");
            } else {
                via.add(how + " (same host, but " + (me.shmPrefix().isEmpty() ? "this rank" : "rank " + p.rank())
                        + " does not use shared memory: JCCL_SHM_DISABLE or no /dev/shm)");
            }
        }
        return new Wiring(transport, everyPairShares ? shm.outbox() : null, shm, summary, List.copyOf(via));
    }
}
