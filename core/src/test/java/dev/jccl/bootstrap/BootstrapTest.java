package dev.jccl.bootstrap;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.BootstrapException;
import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks;
import dev.jccl.UniqueId;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class BootstrapTest {
    private static final Config FAST = TestRanks.loopback(Duration.ofSeconds(3));
    /** Every simulated rank gets a thread of its own (the common pool may have only one). */
    private static final java.util.concurrent.Executor OWN_THREAD =
            r -> Thread.ofPlatform().daemon().start(r);

    @Test
    void missingRanksAreNamedOnEveryWaitingRank() throws Exception {
        UniqueId id = UniqueId.create(FAST);
        long start = System.nanoTime();
        // Ranks 1 and 3 of 4 never start.
        CompletableFuture<Throwable> r0 = CompletableFuture.supplyAsync(() -> initFailure(0, 4, id, FAST), OWN_THREAD);
        CompletableFuture<Throwable> r2 = CompletableFuture.supplyAsync(() -> initFailure(2, 4, id, FAST), OWN_THREAD);
        for (Throwable t : List.of(r0.get(30, TimeUnit.SECONDS), r2.get(30, TimeUnit.SECONDS))) {
            assertInstanceOf(BootstrapException.class, t);
            assertTrue(t.getMessage().contains("ranks 1, 3 of 4 did not join"), t.getMessage());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(seconds < 3 + 2.5, "the error must come within the timeout, took " + seconds + " s");
    }

    @Test
    void unreachableRootIsReported() {
        UniqueId id = UniqueId.create(FAST);
        closeReserved(id);
        Throwable t = initFailure(1, 2, id, TestRanks.loopback(Duration.ofSeconds(1)));
        assertInstanceOf(BootstrapException.class, t);
        assertTrue(t.getMessage().contains("could not reach the root (rank 0)"), t.getMessage());
    }

    @Test
    void wrongSecretIsRefusedAndTheJobCarriesOn() throws Exception {
        Config config = TestRanks.loopback(Duration.ofSeconds(20));
        UniqueId id = UniqueId.create(config);
        byte[] otherSecret = id.secret();
        otherSecret[0] ^= 1;
        UniqueId impostor = UniqueId.of(id.rootAddress(), otherSecret);
        CompletableFuture<Throwable> intruder =
                CompletableFuture.supplyAsync(() -> initFailure(1, 2, impostor, config), OWN_THREAD);
        Thread.sleep(200);
        CompletableFuture<Object> rank0 =
                CompletableFuture.supplyAsync(() -> runAllReduce(0, 2, id, config), OWN_THREAD);
        Throwable refused = intruder.get(30, TimeUnit.SECONDS);
        assertInstanceOf(BootstrapException.class, refused);
        assertTrue(refused.getMessage().contains("wrong secret"), refused.getMessage());
        Object rank1 = runAllReduce(1, 2, id, config);
        assertEquals(3.0f, rank1);
        assertEquals(3.0f, rank0.get(30, TimeUnit.SECONDS));
    }

    @Test
    void garbageOnTheRootPortIsRefusedWithoutHarm() throws Exception {
        Config config = TestRanks.loopback(Duration.ofSeconds(20));
        UniqueId id = UniqueId.create(config);
        List<Socket> hostile = new ArrayList<>();
        Random random = new Random(42);
        // random bytes, an absurd length (2^31), a truncated frame, a wrong version, and a silent client
        byte[] noise = new byte[4096];
        random.nextBytes(noise);
        hostile.add(send(id, noise));
        hostile.add(send(id, frame(BootstrapFrames.VERSION, 2, 0x80000000)));
        hostile.add(send(id, frame(BootstrapFrames.VERSION, 2, 100)));
        hostile.add(send(id, frame(7, 2, 4)));
        hostile.add(send(id, new byte[0]));
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.out;
        System.setOut(new java.io.PrintStream(
                captured, true, java.nio.charset.StandardCharsets.UTF_8)); // the root's Log prints here
        try {
            CompletableFuture<Object> rank0 =
                    CompletableFuture.supplyAsync(() -> runAllReduce(0, 2, id, config), OWN_THREAD);
            assertEquals(3.0f, runAllReduce(1, 2, id, config));
            assertEquals(3.0f, rank0.get(30, TimeUnit.SECONDS));
            // Each garbage connection was answered (challenge, maybe an error) and closed, not left hanging.
            for (Socket s : hostile.subList(0, 4)) {
                assertTrue(drainsToEof(s), "the root must close a refused connection");
            }
        } finally {
            System.setOut(original);
            for (Socket s : hostile) s.close();
        }
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        System.out.print(log);
        List<String> refusals =
                log.lines().filter(l -> l.contains("refused connection from")).toList();
        // One line for each of the four that sent something; the silent one is dropped when the root is done, also with
        // a line.
        assertEquals(5, refusals.size(), log);
        for (String reason : List.of(
                "not a Jccl bootstrap frame",
                "frame length 2147483648 exceeds",
                "version 7",
                "connection closed mid-frame",
                "still silent when every rank had joined")) {
            assertTrue(
                    refusals.stream().anyMatch(l -> l.contains(reason)),
                    "expected a refusal for '" + reason + "':\n" + log);
        }
    }

    private static byte[] frame(int version, int type, int length) throws Exception {
        var bytes = new java.io.ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(BootstrapFrames.MAGIC);
        out.writeShort(version);
        out.writeShort(type);
        out.writeInt(length);
        out.write(new byte[] {1, 2, 3});
        return bytes.toByteArray();
    }

    private static Socket send(UniqueId id, byte[] bytes) throws Exception {
        Socket s = new Socket(id.rootAddress().getAddress(), id.rootAddress().getPort());
        OutputStream out = s.getOutputStream();
        out.write(bytes);
        out.flush();
        if (bytes.length > 0 && bytes.length < 100) s.shutdownOutput();
        return s;
    }

    private static boolean drainsToEof(Socket s) throws Exception {
        s.setSoTimeout(15_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[1024];
        try {
            while (in.read(buf) >= 0) {
                // skip the challenge and any error frame
            }
            return true;
        } catch (java.net.SocketException e) {
            return true; // reset by the root also means closed
        }
    }

    private static void closeReserved(UniqueId id) {
        var l = id.takeReservedListener();
        if (l != null) {
            try {
                l.close();
            } catch (Exception ignored) {
                // test cleanup
            }
        }
    }

    private static Throwable initFailure(int rank, int size, UniqueId id, Config config) {
        try (Communicator c = Jccl.init(rank, size, id, config)) {
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    private static Object runAllReduce(int rank, int size, UniqueId id, Config config) {
        try (Communicator c = Jccl.init(rank, size, id, config)) {
            float[] x = {rank + 1};
            c.allReduce(x, ReduceOp.SUM);
            return x[0];
        } catch (Throwable t) {
            return t;
        }
    }
}
