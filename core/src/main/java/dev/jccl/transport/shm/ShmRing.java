package dev.jccl.transport.shm;

import dev.jccl.transport.FrameHeader;
import java.lang.foreign.MemorySegment;

/**
 * One direction of a pair segment (see {@link ShmLayout}): a single-producer, single-consumer ring of frames. The
 * producer and the consumer each hold their own {@code ShmRing} over the same memory and use only their half of the
 * methods.
 *
 * <p>Pieces: the producer publishes its tail after every piece it copies in (at most {@link #MAX_PIECE} bytes), so the
 * consumer can start on a large frame long before it is all there; every piece but a frame's last is a multiple of 64
 * bytes. Since frames start on 64-byte lines, every piece the consumer sees is a whole number of elements of any type.
 */
final class ShmRing {
    /** Largest piece published or consumed at once: small enough to pipeline, large enough to amortise the signal. */
    static final long MAX_PIECE = 64 * 1024;

    private final MemorySegment seg;
    private final long tailAt;
    private final long headAt;
    private final long dataAt;
    private final long capacity;

    /** Producer: bytes published; consumer: bytes consumed. */
    private long position;
    /** Producer: the consumer's head as last read; consumer: the producer's tail as last read. */
    private long otherSeen;

    ShmRing(MemorySegment pairSegment, int ringBytes, boolean fromLow) {
        this.seg = pairSegment;
        long control = ShmLayout.ringControlOffset(fromLow);
        this.tailAt = control + ShmLayout.TAIL;
        this.headAt = control + ShmLayout.HEAD;
        this.dataAt = ShmLayout.ringDataOffset(ringBytes, fromLow);
        this.capacity = ringBytes;
    }

    // ---------------------------------------------------------------- producer

    /** Writes a frame's header line if there is room; true once written. */
    boolean tryWriteHeader(FrameHeader header) {
        if (free() < ShmLayout.LINE) return false;
        header.encode(seg, dataAt + position % capacity);
        position += ShmLayout.LINE;
        SharedWords.release(seg, tailAt, position);
        return true;
    }

    /**
     * Copies up to {@code ready} bytes of a frame's payload from {@code src}, as room allows, and publishes them;
     * returns how many. {@code frameRemaining} is what the frame still lacks: when this piece completes it, the tail is
     * padded to the next line.
     */
    long writePayload(MemorySegment src, long srcOffset, long ready, long frameRemaining) {
        long want = ready < frameRemaining ? ready & -ShmLayout.LINE : frameRemaining;
        if (want == 0) return 0;
        long n = Math.min(Math.min(want, MAX_PIECE), Math.min(free(), capacity - position % capacity));
        if (n < frameRemaining) n &= -ShmLayout.LINE;
        if (n <= 0) return 0;
        MemorySegment.copy(src, srcOffset, seg, dataAt + position % capacity, n);
        position += n;
        if (n == frameRemaining) position = ShmLayout.roundUp(position, ShmLayout.LINE);
        SharedWords.release(seg, tailAt, position);
        return n;
    }

    /** Room for the producer now, re-reading the consumer's head only when the cached value says there is none. */
    private long free() {
        long free = capacity - (position - otherSeen);
        if (free < MAX_PIECE) {
            otherSeen = SharedWords.acquire(seg, headAt);
            free = capacity - (position - otherSeen);
        }
        return free;
    }

    /** True if the consumer has given room back since the producer last looked (or there is room). */
    boolean roomNow() {
        return capacity - (position - SharedWords.acquire(seg, headAt)) > 0;
    }

    // ---------------------------------------------------------------- consumer

    /** True if the producer has published bytes the consumer has not taken yet. */
    boolean dataNow() {
        return SharedWords.acquire(seg, tailAt) > position;
    }

    /** Bytes published and not yet consumed, re-reading the tail when the cached value shows none. */
    private long readable() {
        long n = otherSeen - position;
        if (n <= 0) {
            otherSeen = SharedWords.acquire(seg, tailAt);
            n = otherSeen - position;
        }
        return n;
    }

    /** True if a whole header line is there to read. */
    boolean headerReadable() {
        return readable() >= ShmLayout.LINE;
    }

    /** Reads and consumes the header line ({@link #headerReadable} first); null if it is not a frame header. */
    FrameHeader readHeader() {
        FrameHeader h = FrameHeader.decode(seg, dataAt + position % capacity);
        position += ShmLayout.LINE;
        return h;
    }

    /** How many payload bytes can be read in one contiguous piece now, at most {@code frameRemaining}. */
    long readablePiece(long frameRemaining) {
        long n = Math.min(readable(), frameRemaining);
        return Math.min(Math.min(n, MAX_PIECE), capacity - position % capacity);
    }

    /** The next {@code bytes} of payload, in place in the ring (valid until {@link #consume}). */
    MemorySegment piece(long bytes) {
        return seg.asSlice(dataAt + position % capacity, bytes);
    }

    /** Gives {@code bytes} back to the producer; at a frame's end also the padding after it. */
    void consume(long bytes, boolean frameDone) {
        position += bytes;
        if (frameDone) position = ShmLayout.roundUp(position, ShmLayout.LINE);
        SharedWords.release(seg, headAt, position);
    }

    /** Producer and consumer positions, for timeout messages. */
    String describe() {
        return "tail " + SharedWords.acquire(seg, tailAt) + ", head " + SharedWords.acquire(seg, headAt) + " of a "
                + capacity + "-byte ring";
    }
}
