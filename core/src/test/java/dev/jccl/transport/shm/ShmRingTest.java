package dev.jccl.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import dev.jccl.transport.FrameHeader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One direction of a pair segment, producer and consumer in one thread, over plain memory. */
@Timeout(60)
class ShmRingTest {
    private static final int RING = 4 * ShmLayout.PAGE; // the smallest ring: frames wrap often

    private interface RingBody {
        void run(Arena arena, ShmRing producer, ShmRing consumer);
    }

    /** Runs {@code body} with both ends of the ring from the {@code fromLow} side of a fresh pair segment. */
    private static void withRing(boolean fromLow, RingBody body) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(ShmLayout.pairSegmentBytes(RING), 4096);
            body.run(arena, new ShmRing(seg, RING, fromLow), new ShmRing(seg, RING, fromLow));
        }
    }

    private static FrameHeader header(int step, long length) {
        return new FrameHeader(0, 8, 0, step, -1, 7, length, length / 4);
    }

    @Test
    void framesOfEveryAwkwardLengthArriveWholeAndInOrderAcrossTheRingsEnd() {
        withRing(true, (arena, producer, consumer) -> {
            Random random = new Random(42);
            long[] lengths = {0, 1, 3, 63, 64, 65, 127, 4096, 9001, RING - 64, RING * 3 + 5};
            for (int round = 0; round < 40; round++) {
                long length = round < lengths.length ? lengths[round] : random.nextInt(3 * RING);
                byte[] data = new byte[(int) length];
                random.nextBytes(data);
                MemorySegment src = MemorySegment.ofArray(data);
                byte[] got = new byte[(int) length];
                long sent = 0;
                long received = 0;
                boolean headerWritten = false;
                boolean headerRead = false;
                // Interleave as two processes would: write what fits, read what is there.
                while (!headerRead || received < length) {
                    if (!headerWritten) headerWritten = producer.tryWriteHeader(header(round, length));
                    if (headerWritten && sent < length) {
                        sent += producer.writePayload(src, sent, length - sent, length - sent);
                    }
                    if (!headerRead && consumer.headerReadable()) {
                        assertEquals(header(round, length), consumer.readHeader());
                        headerRead = true;
                        if (length == 0) consumer.consume(0, true);
                    }
                    if (headerRead && received < length) {
                        long n = consumer.readablePiece(length - received);
                        if (n > 0) {
                            if (received + n < length) assertEquals(0, n % 64, "pieces but the last are whole lines");
                            MemorySegment.copy(consumer.piece(n), 0, MemorySegment.ofArray(got), received, n);
                            received += n;
                            consumer.consume(n, received == length);
                        }
                    }
                }
                assertArrayEquals(data, got, "frame " + round + " of " + length + " bytes");
            }
        });
    }

    @Test
    void theProducerWaitsForRoomAndNeverOverwritesUnreadData() {
        withRing(false, (arena, producer, consumer) -> {
            MemorySegment big = arena.allocate(2L * RING);
            for (long i = 0; i < big.byteSize(); i++) big.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            assertTrue(producer.tryWriteHeader(header(0, big.byteSize())));
            long sent = 0;
            long n;
            while ((n = producer.writePayload(big, sent, big.byteSize() - sent, big.byteSize() - sent)) > 0) sent += n;
            assertEquals(RING - 64, sent, "a full ring takes no more until the consumer gives room back");
            assertTrue(consumer.headerReadable());
            consumer.readHeader();
            long piece = consumer.readablePiece(big.byteSize());
            assertEquals((byte) 0, consumer.piece(piece).get(ValueLayout.JAVA_BYTE, 0));
            consumer.consume(piece, false);
            assertTrue(
                    producer.writePayload(big, sent, big.byteSize() - sent, big.byteSize() - sent) > 0, "room again");
        });
    }

    @Test
    void aSendWhoseDataIsNotReadyYetPublishesOnlyWholeLinesOfIt() {
        withRing(true, (arena, producer, consumer) -> {
            MemorySegment data = arena.allocate(1000);
            assertTrue(producer.tryWriteHeader(header(0, 1000)));
            assertEquals(0, producer.writePayload(data, 0, 40, 1000), "less than a line ready: nothing yet");
            assertEquals(128, producer.writePayload(data, 0, 130, 1000), "two whole lines of the 130 bytes ready");
            assertEquals(872, producer.writePayload(data, 128, 872, 872), "the rest, to the frame's end");
            assertTrue(consumer.headerReadable());
            consumer.readHeader();
            assertEquals(1000, consumer.readablePiece(1000));
        });
    }
}
