package dev.jccl.runtime;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.JcclException;
import dev.jccl.ReduceOp;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A rank in its own JVM that runs AllReduces until something fails: {@code LoopWorker <rank> <size> <unique id>
 * <count>}. Prints {@code looping} once it is in the loop, and on failure the exception's class and message, then exits
 * 3. Settings come from the environment.
 *
 * <p>{@code JCCL_TEST_FAULT} makes this rank misbehave at iteration 150: {@code skip} stops calling collectives (the
 * process stays, its communicator open, for a minute), {@code other} calls a Broadcast where the others call an
 * AllReduce, {@code slow} sleeps {@code JCCL_TEST_SLOW_MS} (default 1000) once and goes on, which must fail no one.
 * Every rank prints {@code iteration 150 at <System.nanoTime()>} as it gets there, before the fault, so that a test can
 * time detection from it. A failure's agreed verdict is printed on a line of its own, {@code verdict: [culprits] text}.
 * With {@code JCCL_TEST_SHRINK=1} the rank then shrinks the failed communicator and checks the survivors' one. With
 * {@code JCCL_TEST_ITERATIONS=N} the loop ends after N AllReduces ({@code finished N iterations}), and the rank exits
 * 0.
 *
 * <p>After closing every communicator it made, the rank prints what Jccl left behind in this process: {@code leaks:
 * threads N fds N shm N}, the live threads named {@code jccl*}, the open descriptors beyond those open just before
 * {@code Jccl.init}, and the /dev/shm segments this process created ({@code jccl-<pid namespace>-<pid>-...}), each
 * followed by what they are when there are any.
 */
public final class LoopWorker {
    private static final long FAULT_AT = 150;

    private LoopWorker() {}

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        UniqueId id = UniqueId.parse(args[2]);
        float[] data = new float[Integer.parseInt(args[3])];
        boolean shrink = System.getenv().getOrDefault("JCCL_TEST_SHRINK", "").equals("1");
        long iterations = Long.parseLong(System.getenv().getOrDefault("JCCL_TEST_ITERATIONS", "-1"));
        int status = 3;
        warmUpTheJdk();
        Map<String, String> fdsBefore = openFds();
        try (Communicator c = Jccl.init(rank, size, id, Config.fromEnvironment())) {
            try {
                if (loop(c, data, iterations)) status = 0;
            } catch (JcclException e) {
                report(e);
                if (shrink) status = goOnWithTheSurvivors(c, rank);
            }
        } catch (Throwable t) {
            report(t);
        }
        reportLeaks(fdsBefore);
        System.exit(status);
    }

    /** True if the loop ran its {@code iterations} (negative: forever) and ended normally. */
    private static boolean loop(Communicator c, float[] data, long iterations) throws InterruptedException {
        String fault = System.getenv().getOrDefault("JCCL_TEST_FAULT", "");
        for (long i = 0; i != iterations; i++) {
            if (i == FAULT_AT) {
                System.out.println("iteration " + FAULT_AT + " at " + System.nanoTime());
                System.out.flush();
            }
            if (i == FAULT_AT && fault.equals("skip")) {
                Thread.sleep(60_000);
                return false;
            }
            if (i == FAULT_AT && fault.equals("slow")) {
                Thread.sleep(Long.parseLong(System.getenv().getOrDefault("JCCL_TEST_SLOW_MS", "1000")));
            }
            if (i == FAULT_AT && fault.equals("other")) c.broadcast(data, 0);
            else c.allReduce(data, ReduceOp.SUM);
            if (i == 100) {
                System.out.println("looping");
                System.out.flush();
            }
        }
        System.out.println("finished " + iterations + " iterations");
        System.out.flush();
        return true;
    }

    private static void report(Throwable t) {
        if (t instanceof JcclException e && e.verdict() != null) {
            System.out.println(
                    "verdict: " + e.verdict().culprits() + " " + e.verdict().describe());
        }
        System.out.println(
                "failed at " + System.nanoTime() + ": " + t.getClass().getName() + ": " + t.getMessage());
        System.out.flush();
    }

    /**
     * Shrinks and checks the new communicator: the members' old ranks (gathered) must be ascending, and an AllReduce of
     * each member's old rank + 1 must give their sum. Prints {@code shrunk: old ranks [...] rank r of n sum s
     * ok|WRONG}; exit status 4 if the check passed.
     */
    private static int goOnWithTheSurvivors(Communicator failed, int oldRank) {
        try (Communicator s = failed.shrink()) {
            int[] oldRanks = new int[s.size()];
            s.allGather(new int[] {oldRank}, oldRanks);
            long[] sum = {oldRank + 1L};
            s.allReduce(sum, ReduceOp.SUM);
            long expected = 0;
            boolean ascending = true;
            for (int i = 0; i < oldRanks.length; i++) {
                expected += oldRanks[i] + 1L;
                if (i > 0 && oldRanks[i] <= oldRanks[i - 1]) ascending = false;
            }
            boolean ok = ascending && sum[0] == expected && oldRanks[s.rank()] == oldRank;
            System.out.println("shrunk: old ranks " + java.util.Arrays.toString(oldRanks) + " rank " + s.rank() + " of "
                    + s.size() + " sum " + sum[0] + (ok ? " ok" : " WRONG"));
            System.out.flush();
            return ok ? 4 : 3;
        } catch (Throwable t) {
            System.out.println("shrink failed: " + t.getClass().getName() + ": " + t.getMessage());
            System.out.flush();
            return 3;
        }
    }

    /**
     * Makes the JDK open what it opens once per process and keeps until exit, so that the descriptor count taken next
     * already holds it and only what Jccl leaves counts: the class loader's jar files (a lookup that misses opens every
     * one on the class path), NIO's pre-close socket (a socketpair end made when the first socket channel is), and the
     * virtual-thread I/O pollers' epoll descriptors (made when a virtual thread first blocks on a socket). Without it,
     * a rank that closed everything still shows a dozen new descriptors, none of them Jccl's.
     */
    private static void warmUpTheJdk() {
        ClassLoader.getSystemClassLoader().getResource("dev/jccl/runtime/no-such-resource");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread accepter = Thread.ofVirtual().start(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().read();
                } catch (IOException e) {
                    // the warm-up's own socket: nothing to report
                }
            });
            try (SocketChannel client = SocketChannel.open(server.getLocalSocketAddress())) {
                Thread.sleep(50); // the accepter parks in its read, on a poller
            }
            accepter.join(5_000);
        } catch (IOException | InterruptedException e) {
            System.out.println("warm-up: " + e); // then the count may include the JDK's own descriptors
        }
    }

    /**
     * Prints {@code leaks: threads N fds N shm N} once nothing is left, or after 2 s (threads that are ending, a
     * cleaner unmapping) with what is left: thread names, descriptor targets, segment names.
     */
    private static void reportLeaks(Map<String, String> fdsBefore) {
        long deadline = System.nanoTime() + 2_000_000_000L;
        List<String> threads;
        Map<String, String> fds;
        List<String> shm;
        while (true) {
            threads = jcclThreads();
            fds = openFds();
            shm = ownSegments();
            boolean clean = threads.isEmpty() && fds.size() <= fdsBefore.size() && shm.isEmpty();
            if (clean || System.nanoTime() > deadline) break;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                break;
            }
        }
        int extraFds = fds.size() - fdsBefore.size();
        StringBuilder line =
                new StringBuilder("leaks: threads " + threads.size() + " fds " + extraFds + " shm " + shm.size());
        if (!threads.isEmpty()) line.append(" threads=").append(threads);
        if (extraFds != 0) {
            Map<String, String> added = new HashMap<>(fds);
            added.entrySet().removeIf(e -> e.getValue().equals(fdsBefore.get(e.getKey())));
            added.replaceAll((fd, target) -> target.startsWith("socket:[") ? describeSocket(target) : target);
            line.append(" new-fds=").append(new TreeMap<>(added));
        }
        if (!shm.isEmpty()) line.append(" shm=").append(shm);
        System.out.println(line);
        System.out.flush();
    }

    private static List<String> jcclThreads() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("jccl")) names.add(t.getName());
        }
        names.sort(null);
        return names;
    }

    /** This process's open descriptors and what each points at, less the ones the listing itself holds open. */
    private static Map<String, String> openFds() {
        String listing = "/proc/" + ProcessHandle.current().pid() + "/fd";
        Map<String, String> fds = new HashMap<>();
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : list.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (!target.equals(listing)) fds.put(fd.getFileName().toString(), target);
                } catch (IOException closedSinceListed) {
                    // gone since the listing
                }
            }
        } catch (IOException e) {
            // no /proc: count nothing
        }
        return fds;
    }

    /** Segments in /dev/shm that this process created: {@code jccl-<pid namespace>-<pid>-...}. */
    private static List<String> ownSegments() {
        String pid = Long.toString(ProcessHandle.current().pid());
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("jccl-[0-9]+-" + pid + "-.*"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** {@code socket:[inode]} with what /proc/self/net says of it: protocol, local and remote address, state. */
    private static String describeSocket(String target) {
        String inode = target.substring("socket:[".length(), target.length() - 1);
        for (String proto : List.of("tcp", "tcp6", "udp", "udp6", "unix", "netlink")) {
            try {
                for (String l : Files.readAllLines(Path.of("/proc/self/net", proto))) {
                    List<String> f = List.of(l.trim().split("\\s+"));
                    int at = proto.equals("unix") ? 6 : 9;
                    if (f.size() > at && f.get(at).equals(inode)) {
                        return target + " " + proto + " "
                                + (proto.equals("unix") ? l.trim() : f.get(1) + "->" + f.get(2) + " st " + f.get(3));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not there: try the next table
            }
        }
        return target;
    }
}
