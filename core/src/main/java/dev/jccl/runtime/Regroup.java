package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.JcclException;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.topology.InterfaceSelector;
import dev.jccl.transport.table.Endpoints;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Makes a child communicator from some of a parent's ranks: {@link #split} (by color, on a healthy parent) and
 * {@link #shrink} (the survivors of a failed one). Both go the same way: each rank opens the child's listeners, sends
 * their ports to a coordinating rank over the parent's control channel ({@link Rendezvous}), gets back the same table
 * as every other member, and wires the child from it. Neither touches the parent's data path, so a shrink works after
 * that path has broken, and a split cannot be confused with the parent's collectives.
 *
 * <p>Growing (a new rank joining) would be a third round of the same kind: see docs/ARCHITECTURE.md.
 */
final class Regroup {
    private Regroup() {}

    /** What each rank sends the coordinator. */
    record Contribution(int color, int key, int dataPort, int controlPort, Set<Integer> excluded, byte[] netAddress) {
        byte[] encode() {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + netAddress.length);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(color);
                out.writeInt(key);
                out.writeInt(dataPort);
                out.writeInt(controlPort);
                out.writeInt(excluded.size());
                for (int r : excluded) out.writeInt(r);
                Rendezvous.writeBytes(out, netAddress);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return bytes.toByteArray();
        }

        static Contribution decode(byte[] b) {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(b))) {
                int color = in.readInt();
                int key = in.readInt();
                int dataPort = in.readInt();
                int controlPort = in.readInt();
                int n = in.readInt();
                Set<Integer> excluded = new TreeSet<>();
                for (int i = 0; i < n; i++) excluded.add(in.readInt());
                return new Contribution(color, key, dataPort, controlPort, excluded, Rendezvous.readBytes(in));
            } catch (IOException e) {
                throw new JcclException("malformed membership contribution: " + e.getMessage(), e);
            }
        }
    }

    /** A child's listeners: its data endpoints and its control channel, opened before the ranks meet. */
    private record Listeners(Endpoints endpoints, ControlChannel control) {
        void close() {
            endpoints.close();
            control.close();
        }
    }

    /**
     * Collective over the parent of {@code s}: the ranks that pass the same {@code color} form a child, ordered by
     * {@code key}, then by parent rank. Rank 0 coordinates, and every rank must take part: one that does not within the
     * deadline fails the split on every rank.
     */
    static Communicator split(CommunicatorInit.Setup s, int splitIndex, int color, int key) {
        int effectiveColor = color < 0 ? Communicator.SPLIT_NOCOLOR : color;
        long childId =
                CommunicatorInit.hash(String.format("%016x/split%d/color%d", s.commId(), splitIndex, effectiveColor)
                        .getBytes(StandardCharsets.UTF_8));
        long roundId = CommunicatorInit.hash(
                String.format("%016x/split%d", s.commId(), splitIndex).getBytes(StandardCharsets.UTF_8));
        Listeners child = effectiveColor < 0 ? null : open(s, childId);
        Rendezvous.Table table;
        try {
            Set<Integer> everyone = new TreeSet<>();
            for (int r = 0; r < s.size(); r++) everyone.add(r);
            table = agree(
                    s,
                    roundId,
                    contribution(effectiveColor, key, child, Set.of()),
                    0,
                    everyone,
                    true,
                    "split",
                    t -> null);
        } catch (RuntimeException e) {
            if (child != null) child.close();
            throw e;
        }
        if (child == null) return null;
        Map<Integer, Contribution> all = decodeAll(table);
        List<Integer> members = new ArrayList<>();
        for (Map.Entry<Integer, Contribution> e : all.entrySet()) {
            if (e.getValue().color() == effectiveColor) members.add(e.getKey());
        }
        members.sort(Comparator.<Integer>comparingInt(r -> all.get(r).key()).thenComparingInt(r -> r));
        return build(s, childId, members, all, child);
    }

    /**
     * After a failure: the ranks of the parent that are not in {@code excluded} (the verdict's culprits) form a new
     * communicator, in their old order, ranks 0..n-1. The lowest survivor coordinates; a survivor that has not joined
     * by the deadline is left out. Every survivor must pass the same {@code excluded}: if they do not (they hold
     * different verdicts), the shrink fails on all of them rather than build two different communicators.
     */
    static Communicator shrink(CommunicatorInit.Setup s, Set<Integer> excluded) {
        long childId =
                CommunicatorInit.hash(String.format("%016x/shrink", s.commId()).getBytes(StandardCharsets.UTF_8));
        Listeners child = open(s, childId);
        List<Integer> survivors = new ArrayList<>();
        for (int r = 0; r < s.size(); r++) {
            if (!excluded.contains(r)) survivors.add(r);
        }
        Rendezvous.Table table;
        try {
            table = agree(
                    s,
                    childId,
                    contribution(0, s.rank(), child, excluded),
                    survivors.getFirst(),
                    new TreeSet<>(survivors),
                    false,
                    "shrink",
                    t -> firstProblem(disagreement(t), noQuorum(t, s.size())));
        } catch (RuntimeException e) {
            child.close();
            throw e;
        }
        Map<Integer, Contribution> all = decodeAll(table);
        return build(s, childId, new ArrayList<>(all.keySet()), all, child);
    }

    private static String firstProblem(String a, String b) {
        return a != null ? a : b;
    }

    /**
     * Why the members cannot go on alone: they are not a majority of the parent's ranks (exactly half goes on only if
     * it holds rank 0). Ranks that lose each other over the network cannot tell a dead peer from a cut link, and each
     * side of a partition would shrink into a communicator of its own; with this rule at most one side does.
     */
    static String noQuorum(Rendezvous.Table table, int parentSize) {
        List<Integer> members = table.members();
        int n = members.size();
        if (2 * n > parentSize || 2 * n == parentSize && members.contains(0)) return null;
        return "shrink: only " + n + " of " + parentSize + " ranks " + members + " take part, not a majority"
                + (2 * n == parentSize ? " (half, without rank 0)" : "") + ". They may be one side of a network"
                + " partition whose other side goes on, so they make no communicator of their own: restart the job"
                + " (or its lost ranks) instead";
    }

    /** Why the survivors' contributions cannot make one communicator: they leave out different ranks. */
    private static String disagreement(Rendezvous.Table table) {
        Map<Integer, Contribution> all = decodeAll(table);
        Set<Set<Integer>> views = new LinkedHashSet<>();
        for (Contribution c : all.values()) views.add(c.excluded());
        if (views.size() <= 1) return null;
        StringBuilder sb = new StringBuilder("shrink: the ranks disagree on which ranks failed (");
        String sep = "";
        for (Map.Entry<Integer, Contribution> e : all.entrySet()) {
            sb.append(sep)
                    .append("rank ")
                    .append(e.getKey())
                    .append(" leaves out ")
                    .append(e.getValue().excluded());
            sep = ", ";
        }
        return sb.append("), so no communicator was made; they must shrink after the same failure")
                .toString();
    }

    /**
     * Runs membership round {@code roundId} at rank {@code coordinator}: joins it, or, on that rank, coordinates. There
     * is one coordinator and no fallback: a rank that cannot reach it fails, rather than settle a second membership of
     * its own (two communicators of "survivors" would be worse than an error).
     */
    private static Rendezvous.Table agree(
            CommunicatorInit.Setup s,
            long roundId,
            Contribution mine,
            int coordinator,
            Set<Integer> expected,
            boolean strict,
            String what,
            Rendezvous.Validator validator) {
        if (s.control() == null) throw new JcclException("rank " + s.rank() + ": " + what + " needs a control channel");
        long deadline = System.nanoTime() + s.config().timeout().toNanos();
        byte[] encoded = mine.encode();
        if (coordinator == s.rank()) {
            return s.control()
                    .rendezvous()
                    .coordinate(roundId, coordinator, encoded, expected, deadline, strict, what, validator);
        }
        PeerInfo p = s.peers().get(coordinator);
        int waitMillis =
                (int) Math.min(Integer.MAX_VALUE / 4, s.config().timeout().toMillis());
        try {
            return ControlChannel.join(
                    new InetSocketAddress(p.dataHost(), p.controlPort()),
                    s.control().token(),
                    roundId,
                    s.rank(),
                    encoded,
                    waitMillis);
        } catch (JcclException e) {
            throw new JcclException(
                    "rank " + s.rank() + ": " + what + " failed at coordinating rank " + coordinator + ": "
                            + e.getMessage(),
                    e);
        } catch (IOException e) {
            throw new JcclException(
                    "rank " + s.rank() + ": " + what + ": coordinating rank " + coordinator + " ("
                            + p.where() + ") could not be reached: " + e.getMessage()
                            + ". It is the lowest rank that was not"
                            + " named as failed; if it has failed since, the survivors cannot agree on a membership",
                    e);
        }
    }

    private static Contribution contribution(int color, int key, Listeners child, Set<Integer> excluded) {
        return child == null
                ? new Contribution(color, key, 0, 0, excluded, new byte[0])
                : new Contribution(
                        color,
                        key,
                        child.endpoints().socketPort(),
                        child.control().port(),
                        excluded,
                        child.endpoints().netAddress());
    }

    private static Map<Integer, Contribution> decodeAll(Rendezvous.Table table) {
        Map<Integer, Contribution> all = new java.util.TreeMap<>();
        for (Map.Entry<Integer, byte[]> e : table.contributions().entrySet()) {
            all.put(e.getKey(), Contribution.decode(e.getValue()));
        }
        return all;
    }

    /** Opens the child's data endpoints and control channel on the interface the parent uses. */
    private static Listeners open(CommunicatorInit.Setup s, long childId) {
        Config config = s.config();
        InetAddress address = addressOf(s.peers().get(s.rank()).dataHost());
        String nic;
        try {
            nic = InterfaceSelector.select(config.socketIfname()).name();
        } catch (IllegalArgumentException e) {
            throw new JcclException(
                    "rank " + s.rank() + ": cannot open the new communicator's listeners: the interface"
                            + " this rank used (" + address.getHostAddress() + ") is no longer usable (taken down?): "
                            + e.getMessage(),
                    e);
        }
        Endpoints endpoints = Endpoints.open(childId, s.secret(), config, address, nic, s.plugin(), s.log());
        try {
            return new Listeners(endpoints, ControlChannel.open(address, s.secret(), childId));
        } catch (RuntimeException e) {
            endpoints.close();
            throw e;
        }
    }

    /** Wires the child whose ranks are {@code members} (parent ranks, in their new order). */
    private static Communicator build(
            CommunicatorInit.Setup s,
            long childId,
            List<Integer> members,
            Map<Integer, Contribution> all,
            Listeners child) {
        List<PeerInfo> childPeers = new ArrayList<>();
        int newRank = -1;
        for (int i = 0; i < members.size(); i++) {
            int r = members.get(i);
            Contribution c = all.get(r);
            String netAddress =
                    c.netAddress().length == 0 ? "" : Base64.getEncoder().encodeToString(c.netAddress());
            childPeers.add(s.peers().get(r).renumbered(i, c.dataPort(), netAddress, c.controlPort()));
            if (r == s.rank()) newRank = i;
        }
        if (newRank < 0) {
            child.close();
            throw new JcclException("rank " + s.rank() + " is not in the membership the coordinator settled");
        }
        Config config = s.config();
        return CommunicatorInit.finishInit(
                newRank,
                members.size(),
                config,
                new Log(config, newRank),
                childId,
                s.secret(),
                child.endpoints(),
                child.control(),
                s.plugin(),
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
}
