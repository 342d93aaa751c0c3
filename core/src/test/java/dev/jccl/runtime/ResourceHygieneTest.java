package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 200 communicators made, used and closed in one JVM, alternately over shared memory and TCP, with a failed one among
 * them: afterwards the process holds exactly the threads, descriptors, sockets and mappings it held before, and
 * /dev/shm holds nothing of ours.
 */
@Timeout(300)
class ResourceHygieneTest {
    private static final int CYCLES = 200;

    @Test
    void twoHundredCommunicatorsLeaveNothingBehind() throws Exception {
        cycle(0, false); // the first of each kind loads classes and starts the JDK's own helper threads
        cycle(1, false);
        cycle(2, true);
        Thread.sleep(200);
        Resources before = Resources.now();
        long start = System.nanoTime();
        for (int i = 0; i < CYCLES; i++) cycle(i, i % 50 == 25);
        double seconds = (System.nanoTime() - start) / 1e9;
        Resources after = Resources.settled(before);
        System.out.printf(
                "%d create/use/close cycles (shm and tcp, 2 ranks, %d failing on purpose) "
                        + "in %.1f s: before %s, after %s%n",
                CYCLES, CYCLES / 50, seconds, before, after);
        assertEquals(before.threads, after.threads, "threads left behind");
        assertEquals(before.sockets, after.sockets, "sockets left behind");
        assertEquals(before.descriptors, after.descriptors, "file descriptors left behind");
        assertEquals(before.shmMappings, after.shmMappings, "shared-memory mappings left behind");
        assertEquals(List.of(), after.shmFiles, "files left in /dev/shm");
    }

    /** Two ranks on threads of their own: init, a small and a large AllReduce, an async one, close; or a timeout. */
    private static void cycle(int i, boolean failOnPurpose) throws Exception {
        Link link = i % 2 == 0 ? Link.SHM : Link.TCP;
        Config config = link.config(Duration.ofSeconds(failOnPurpose ? 1 : 30));
        UniqueId id = UniqueId.create(config);
        List<CompletableFuture<Void>> ranks = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int rank = r;
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread t = new Thread(
                    () -> {
                        try (Communicator c = Jccl.init(rank, 2, id, config)) {
                            float[] x = new float[rank == 1 && failOnPurpose ? 3 : 1 << 16];
                            c.allReduce(new float[7], ReduceOp.SUM);
                            c.allReduceAsync(x, ReduceOp.MAX).get(60, TimeUnit.SECONDS);
                            done.complete(null);
                        } catch (Throwable e) {
                            if (failOnPurpose) done.complete(null);
                            else done.completeExceptionally(e);
                        }
                    },
                    "hygiene-rank-" + r);
            t.start();
            threads.add(t);
            ranks.add(done);
        }
        for (CompletableFuture<Void> f : ranks) f.get(90, TimeUnit.SECONDS);
        for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(10));
    }

    /** What the process holds that a communicator might leak. */
    record Resources(
            Map<String, Integer> threads, long sockets, long descriptors, long shmMappings, List<String> shmFiles) {
        static Resources now() throws IOException {
            Map<String, Integer> threads = new TreeMap<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                // JIT and pool workers come and go with load, not with communicators
                String name = t.getName().replaceAll("\\d+", "#");
                if (name.startsWith("C1 CompilerThread") || name.startsWith("C2 CompilerThread")) continue;
                if (name.startsWith("ForkJoinPool")) continue;
                // The JDK's pool that waits on child processes (earlier tests start some); idle ones expire
                if (name.equals("process reaper")) continue;
                threads.merge(name, 1, Integer::sum);
            }
            long sockets = 0, descriptors = 0;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                for (Path fd : fds.toList()) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        descriptors++;
                        if (target.startsWith("socket:")) sockets++;
                    } catch (IOException closedWhileListing) {
                        // the listing's own descriptor
                    }
                }
            }
            long mappings;
            try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
                mappings = maps.filter(l -> l.contains("/dev/shm/") || l.contains("jccl-"))
                        .count();
            }
            List<String> files;
            try (Stream<Path> shm = Files.list(Path.of("/dev/shm"))) {
                files = shm.map(p -> p.getFileName().toString())
                        .filter(n -> n.startsWith("jccl-"))
                        .sorted()
                        .toList();
            }
            return new Resources(threads, sockets, descriptors, mappings, files);
        }

        /** Waits up to 10 s for threads that are ending and mappings that the cleaner unmaps to settle. */
        static Resources settled(Resources before) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            Resources now = now();
            while (!now.sameAs(before) && System.nanoTime() < deadline) {
                System.gc();
                Thread.sleep(100);
                now = now();
            }
            return now;
        }

        boolean sameAs(Resources o) {
            return threads.equals(o.threads)
                    && sockets == o.sockets
                    && descriptors == o.descriptors
                    && shmMappings == o.shmMappings
                    && shmFiles.isEmpty();
        }

        @Override
        public String toString() {
            return threads.values().stream().mapToInt(Integer::intValue).sum() + " threads, " + descriptors
                    + " descriptors (" + sockets + " sockets), " + shmMappings + " shm mappings, " + shmFiles.size()
                    + " /dev/shm files";
        }
    }
}
