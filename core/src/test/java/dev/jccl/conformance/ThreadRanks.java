package dev.jccl.conformance;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Runs one body on N ranks that are threads of this JVM, each with its own communicator, and collects what every rank
 * reports. Nothing it starts outlives it: past the deadline it aborts every communicator, interrupts the threads and
 * reports where each one was stuck.
 */
final class ThreadRanks {
    private ThreadRanks() {}

    /** The settings the conformance tests use: loopback, 60 s bound on every wait. */
    static Config loopbackConfig(Duration timeout) {
        return Config.builder().socketIfname("lo").timeout(timeout).build();
    }

    /** {@code size} ranks of a real communicator made with {@link Jccl#init(int, int, UniqueId, Config)}. */
    static List<List<String>> run(
            int size, Config config, Duration deadline, Function<Communicator, List<String>> body) {
        UniqueId id = UniqueId.create(config);
        return run(size, rank -> Jccl.init(rank, size, id, config), deadline, body);
    }

    /**
     * {@code size} ranks on two hosts, shared memory inside a host and TCP between them: the first half (rounded up) on
     * host "a", the rest on "b"; {@code settings} adds to every rank's configuration.
     */
    static List<List<String>> runOnTwoHosts(
            int size,
            UnaryOperator<Config.Builder> settings,
            Duration deadline,
            Function<Communicator, List<String>> body) {
        Config base = TestRanks.Link.SHM.config(Duration.ofSeconds(60));
        UniqueId id = UniqueId.create(base);
        return run(
                size,
                rank -> Jccl.init(
                        rank,
                        size,
                        id,
                        settings.apply(base.toBuilder().hostId(rank < (size + 1) / 2 ? "a" : "b"))
                                .build()),
                deadline,
                body);
    }

    /**
     * {@code size} ranks, rank r's communicator made by {@code open.apply(r)} on its own thread. Returns, per rank, the
     * body's failures plus any exception from open, body or close.
     */
    static List<List<String>> run(
            int size, IntFunction<Communicator> open, Duration deadline, Function<Communicator, List<String>> body) {
        AtomicReferenceArray<Communicator> comms = new AtomicReferenceArray<>(size);
        List<List<String>> results = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            List<String> mine = java.util.Collections.synchronizedList(new ArrayList<>());
            results.add(mine);
            int rank = r;
            Thread t = new Thread(
                    () -> {
                        Communicator c;
                        try {
                            c = open.apply(rank);
                        } catch (Throwable e) {
                            mine.add("rank " + rank + ": opening the communicator threw " + stack(e));
                            return;
                        }
                        comms.set(rank, c);
                        try {
                            mine.addAll(body.apply(c));
                        } catch (Throwable e) {
                            mine.add("rank " + rank + ": the body threw " + stack(e));
                            c.abort();
                        }
                        try {
                            c.close();
                        } catch (Throwable e) {
                            mine.add("rank " + rank + ": close threw " + stack(e));
                        }
                    },
                    "rank-" + r + "-of-" + size);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long end = System.nanoTime() + deadline.toNanos();
        boolean late = false;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            late |= t.isAlive();
        }
        if (late) {
            for (int r = 0; r < size; r++) {
                Thread t = threads.get(r);
                if (t.isAlive()) {
                    StringBuilder where = new StringBuilder();
                    for (StackTraceElement e : t.getStackTrace()) {
                        where.append("\n        at ").append(e);
                    }
                    results.get(r)
                            .add("rank " + r + ": still running after " + deadline.toSeconds() + " s; it was at"
                                    + where);
                }
            }
            for (int r = 0; r < size; r++) {
                Communicator c = comms.get(r);
                if (c != null) c.abort();
            }
            for (Thread t : threads) {
                t.interrupt();
                try {
                    t.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        List<List<String>> out = new ArrayList<>();
        for (List<String> r : results) {
            synchronized (r) {
                out.add(List.copyOf(r));
            }
        }
        return out;
    }

    static String stack(Throwable e) {
        StringBuilder sb = new StringBuilder(e.toString());
        for (StackTraceElement s : e.getStackTrace()) sb.append("\n        at ").append(s);
        if (e.getCause() != null && e.getCause() != e) {
            sb.append("\n    caused by ").append(stack(e.getCause()));
        }
        return sb.toString();
    }

    /** All ranks' failures, one block per rank, for an assertion message. */
    static String report(List<List<String>> perRank) {
        StringBuilder sb = new StringBuilder();
        int total = 0;
        for (int r = 0; r < perRank.size(); r++) {
            if (perRank.get(r).isEmpty()) continue;
            sb.append("\n--- rank ")
                    .append(r)
                    .append(": ")
                    .append(perRank.get(r).size())
                    .append(" failure(s)");
            for (String f : perRank.get(r)) sb.append("\n  ").append(f);
            total += perRank.get(r).size();
        }
        return total + " failure(s) over " + perRank.size() + " rank(s):" + sb;
    }

    static boolean allPassed(List<List<String>> perRank) {
        return perRank.stream().allMatch(List::isEmpty);
    }
}
