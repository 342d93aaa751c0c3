package dev.jccl.transport.tcp;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.Config;
import dev.jccl.bootstrap.PeerInfo;
import dev.jccl.debug.Log;
import dev.jccl.transport.FrameHeader;
import dev.jccl.transport.RecvSink;
import dev.jccl.transport.TransferHandle;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two socket transports in one process, over loopback, driven by hand: frames arrive whole and in order when the
 * receiver drains its socket before the rest is sent, which is when it must ask the selector before reading again.
 */
@Timeout(60)
class TcpTransportTest {
    private static final byte[] SECRET = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final long COMM = 0x5eed_cafeL;
    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(20);

    private TcpTransport zero;
    private TcpTransport one;
    private Arena arena;

    @BeforeEach
    void connect() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        Config config = Config.fromEnvironment(Map.of());
        zero = new TcpTransport(COMM, SECRET, 4096, loopback, new Log(config, 0));
        one = new TcpTransport(COMM, SECRET, 4096, loopback, new Log(config, 1));
        List<PeerInfo> peers = List.of(peer(0, zero), peer(1, one));
        zero.start(0, peers);
        one.start(1, peers);
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        boolean zeroDone = false;
        boolean oneDone = false;
        while (!(zeroDone && oneDone)) {
            oneDone = oneDone || one.tryConnect(List.of(0));
            zeroDone = zeroDone || zero.tryConnect(List.of(1));
            assertTrue(System.nanoTime() < deadline, "the two transports did not connect");
        }
        arena = Arena.ofConfined();
    }

    @AfterEach
    void close() {
        if (zero != null) zero.close();
        if (one != null) one.close();
        if (arena != null) arena.close();
    }

    private static PeerInfo peer(int rank, TcpTransport t) {
        return new PeerInfo(
                rank,
                "host",
                "host",
                1000 + rank,
                "127.0.0.1",
                t.listenAddress().getPort(),
                "",
                "",
                "",
                2,
                Config.Oversubscription.AUTO,
                0,
                "");
    }

    private static FrameHeader header(long sequence, long length) {
        return new FrameHeader(0, 0, FrameHeader.NO_OP, 0, -1, sequence, length, length);
    }

    /** Progresses both transports until {@code handle} is done. */
    private void progressUntil(TransferHandle handle) throws IOException {
        long deadline = System.nanoTime() + DEADLINE_NANOS;
        while (!handle.isDone()) {
            zero.progress();
            one.progress();
            assertTrue(System.nanoTime() < deadline, "the transfer did not finish");
        }
    }

    private MemorySegment randomBytes(long bytes, long seed) {
        MemorySegment m = arena.allocate(Math.max(1, bytes));
        SplittableRandom random = new SplittableRandom(seed);
        for (long i = 0; i < bytes; i++) m.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        return m.asSlice(0, bytes);
    }

    @Test
    void aFrameWhosePayloadComesInPiecesArrivesWhole() throws IOException {
        // The sender releases its payload piece by piece (as a ring forwards what it is still reducing); after each
        // piece the receiver reads the socket dry, so the next piece is found only by asking the selector.
        long bytes = 3 * 4096 + 13;
        MemorySegment sent = randomBytes(bytes, 7);
        MemorySegment received = arena.allocate(bytes);
        TransferHandle send = one.postSend(0, header(1, bytes), sent, 0);
        long[] arrived = {0};
        TransferHandle recv = zero.postRecv(1, header(1, bytes), 1, (piece, offset) -> {
            MemorySegment.copy(piece, 0, received, offset, piece.byteSize());
            arrived[0] = offset + piece.byteSize();
        });
        long[] marks = {1, 40, 41, 4096, 4097, 9000, bytes};
        for (long mark : marks) {
            send.ready(mark);
            long deadline = System.nanoTime() + DEADLINE_NANOS;
            // Until the receiver has had the piece, and then found its socket empty a few times.
            for (int emptyLooks = 0; arrived[0] < mark || emptyLooks < 3; ) {
                one.progress();
                if (zero.progress() == 0 && arrived[0] == mark) emptyLooks++;
                assertTrue(System.nanoTime() < deadline, "the piece up to " + mark + " did not arrive");
            }
            assertEquals(mark, arrived[0], "bytes past the ready mark arrived");
            assertEquals(mark == bytes, recv.isDone(), "receive done exactly when the last piece is in");
        }
        progressUntil(send);
        assertEquals(-1, sent.mismatch(received), "payload changed on the way");
    }

    @Test
    void manySmallFramesBothWaysArriveInOrder() throws IOException {
        // The shape of an 8-byte AllReduce between two ranks: each sends one small frame and waits for the other's,
        // a thousand times, half of them read straight into the destination (a direct target) and half staged.
        for (int round = 0; round < 1000; round++) {
            long bytes = 8 + round % 5 * 4;
            MemorySegment fromZero = randomBytes(bytes, round);
            MemorySegment fromOne = randomBytes(bytes, -round);
            MemorySegment atZero = arena.allocate(bytes);
            MemorySegment atOne = arena.allocate(bytes);
            boolean direct = round % 2 == 0;
            zero.postSend(1, header(round, bytes), fromZero, Long.MAX_VALUE);
            one.postSend(0, header(round, bytes), fromOne, Long.MAX_VALUE);
            TransferHandle r0 = zero.postRecv(1, header(round, bytes), 4, sink(atZero, direct));
            TransferHandle r1 = one.postRecv(0, header(round, bytes), 4, sink(atOne, direct));
            progressUntil(r0);
            progressUntil(r1);
            assertEquals(-1, fromOne.mismatch(atZero), "round " + round + ": rank 0 got other bytes");
            assertEquals(-1, fromZero.mismatch(atOne), "round " + round + ": rank 1 got other bytes");
        }
    }

    private static RecvSink sink(MemorySegment into, boolean direct) {
        return new RecvSink() {
            @Override
            public void accept(MemorySegment piece, long byteOffset) {
                MemorySegment.copy(piece, 0, into, byteOffset, piece.byteSize());
            }

            @Override
            public MemorySegment directTarget() {
                return direct ? into : null;
            }
        };
    }
}
