package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Communicator;
import dev.jccl.Config;
import dev.jccl.Jccl;
import dev.jccl.ReduceOp;
import dev.jccl.TestRanks.Link;
import dev.jccl.UniqueId;
import dev.jccl.bootstrap.PeerInfo;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Strangers on a rank's data port while the job runs: each is refused with one warning line naming why, and the job's
 * AllReduces go on with the right results. The hellos are built here from the wire format DataHello documents, not with
 * its encoder, so a bug there cannot hide.
 */
@Timeout(120)
class DataPortHostilityTest {
    private static final int MAGIC = 0x4844434A;
    private static final short VERSION = 2;
    private static final int COUNT = 1000;

    @Test
    void everyStrangerIsRefusedOnceAndTheJobIsUnaffected() throws Exception {
        Config config = Link.TCP.config(Duration.ofSeconds(30)).toBuilder()
                .debugLevel(Config.DebugLevel.WARN)
                .build();
        UniqueId id = UniqueId.create(config);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8)); // each Log takes System.out at init
        Map<String, String> expectedReasons = new LinkedHashMap<>();
        List<Socket> strangers = new ArrayList<>();
        try {
            CompletableFuture<Integer> rank1 = CompletableFuture.supplyAsync(
                    () -> loop(1, id, config, null),
                    r -> Thread.ofPlatform().daemon().start(r));
            Integer wrong0 = loop(
                    0,
                    id,
                    config,
                    c -> {
                        // Called on rank 0 once both ranks run: rank 0 accepts, rank 1 dialled it already.
                        PeerInfo me = c.peer(0);
                        Random random = new Random(5);
                        byte[] noise = new byte[4096];
                        random.nextBytes(noise);
                        byte[] megabyte = new byte[1 << 20];
                        random.nextBytes(megabyte);
                        byte[] stolenToken = new byte[16];
                        random.nextBytes(stolenToken);
                        long comm = c.commId();
                        strangers.add(send(me, noise, true));
                        expectedReasons.put("not a Jccl data hello", "random bytes");
                        strangers.add(send(me, megabyte, false));
                        strangers.add(send(me, hello(VERSION, comm, 1, 0, stolenToken), true));
                        expectedReasons.put("wrong token (not this job's secret)", "a forged token");
                        strangers.add(send(me, hello((short) 9, comm, 1, 0, stolenToken), true));
                        expectedReasons.put("data hello version 9, this Jccl speaks 2", "a wrong version");
                        strangers.add(send(me, hello(VERSION, comm ^ 1, 1, 0, stolenToken), true));
                        expectedReasons.put("hello for communicator", "another communicator");
                        strangers.add(send(me, hello(VERSION, comm, 1, 0, token(id.secret(), comm, 1, 0)), true));
                        expectedReasons.put("rank 1 is already connected", "a replayed hello");
                        strangers.add(
                                send(me, java.util.Arrays.copyOf(hello(VERSION, comm, 1, 0, stolenToken), 20), true));
                        expectedReasons.put("closed after 20 of the hello's 40 bytes", "a truncated hello");
                        strangers.add(send(me, new byte[0], false));
                        expectedReasons.put("sent 0 of the hello's 40 bytes in 5 s", "a silent caller");
                    },
                    captured);
            assertEquals(0, wrong0, "rank 0 computed wrong sums while strangers called");
            assertEquals(0, rank1.get(60, TimeUnit.SECONDS), "rank 1 computed wrong sums while strangers called");
        } finally {
            System.setOut(original);
            for (Socket s : strangers) s.close();
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        System.out.print(log);
        List<String> refusals = new ArrayList<>();
        Matcher m = Pattern.compile("refused data connection from .*?: (.*)").matcher(log);
        while (m.find()) refusals.add(m.group(1));
        assertEquals(strangers.size(), refusals.size(), "one warning per stranger:\n" + log);
        for (var e : expectedReasons.entrySet()) {
            assertTrue(
                    refusals.stream().anyMatch(r -> r.contains(e.getKey())),
                    e.getValue() + " must be refused as '" + e.getKey() + "':\n" + log);
        }
        assertEquals(
                2,
                refusals.stream()
                        .filter(r -> r.contains("not a Jccl data hello"))
                        .count(),
                "random bytes and the megabyte:\n" + log);
    }

    interface Attack {
        void on(RuntimeCommunicator c) throws Exception;
    }

    /**
     * Runs AllReduces with checked results until rank 0 has seen a warning for every stranger; rank 0 decides when to
     * stop and tells rank 1 through the last element. Returns the number of wrong elements seen.
     */
    private static int loop(int rank, UniqueId id, Config config, Attack attack, ByteArrayOutputStream... log) {
        try (Communicator c = Jccl.init(rank, 2, id, config)) {
            float[] x = new float[COUNT + 1];
            int wrong = 0;
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            for (int i = 0; ; i++) {
                for (int k = 0; k < COUNT; k++) x[k] = (rank + 1) * (k + i);
                x[COUNT] = 0;
                if (rank == 0 && i == 10 && attack != null) attack.on((RuntimeCommunicator) c);
                if (rank == 0 && i > 10 && (refusals(log[0]) >= 8 || System.nanoTime() > giveUp)) x[COUNT] = 1;
                c.allReduce(x, ReduceOp.SUM);
                for (int k = 0; k < COUNT; k++) {
                    if (x[k] != 3f * (k + i)) wrong++;
                }
                if (x[COUNT] == 1) return wrong;
                Thread.sleep(5); // gives the silent stranger's 5 s a few hundred operations
            }
        } catch (Exception e) {
            throw new AssertionError("rank " + rank + " failed while strangers called", e);
        }
    }

    private static long refusals(ByteArrayOutputStream log) {
        return Pattern.compile("refused data connection")
                .matcher(log.toString(StandardCharsets.UTF_8))
                .results()
                .count();
    }

    private static Socket send(PeerInfo target, byte[] bytes, boolean thenShutdown) throws Exception {
        Socket s = new Socket(target.dataHost(), target.dataPort());
        s.setSoTimeout(10_000);
        if (bytes.length > 0) {
            // The megabyte may not fit the socket buffers until the rank reads and refuses; write it from a thread.
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(bytes);
                    out.flush();
                    if (thenShutdown) s.shutdownOutput();
                } catch (Exception ignored) {
                    // the rank closed on us, which is the point
                }
            });
        }
        return s;
    }

    private static byte[] hello(short version, long comm, int from, int to, byte[] token) {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC)
                .putShort(version)
                .putShort((short) 0)
                .putLong(comm)
                .putInt(from)
                .putInt(to)
                .put(token);
        return b.array();
    }

    private static byte[] token(byte[] secret, long comm, int from, int to) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        mac.update("data".getBytes(StandardCharsets.US_ASCII));
        mac.update(ByteBuffer.allocate(16).putLong(comm).putInt(from).putInt(to).array());
        return java.util.Arrays.copyOf(mac.doFinal(), 16);
    }
}
