package dev.jccl.transport.shm;

/**
 * Where everything lies in the two kinds of shared-memory segment, as offset constants. Every
 * word that one process writes and another polls sits on a cache line of its own, so that a
 * writer never invalidates a line its reader polls for something else.
 *
 * <h2>Rank page: one per local rank, written by its owner, read by every local peer</h2>
 * <pre>
 *    0 +------------------------------------------------------------------+
 *      | magic "JCCLSHM1" | version u32 | llSlotBytes u32 | owner pid i64 |  header line
 *      | commId i64 | rank u32 | nRanks u32                               |
 *   64 | state i64 (INIT, READY, FAILED, ABORTED, CLOSED)                 |  owner
 *  128 | attached i64: local peers that mapped this page                  |  peers, atomic add
 *  192 | announced sequence i64 | announced descriptor i64 | count i64    |  owner, at op start
 *  256 | done i64: collectives this rank has finished                     |  owner
 *  320 | reason length u32 | reason UTF-8 (why the state is FAILED)       |  owner
 * 1024 | low-latency slot 0: flag i64 | descriptor i64 | length i64 | … |  owner (even sequences)
 *      |                     data (llSlotBytes), from the next cache line |
 *      | low-latency slot 1: the same, for odd sequences                  |
 *      +------------------------------------------------------------------+
 * </pre>
 * A slot's flag holds {@code sequence + 1} once its data is complete (0 = never written), so a
 * reader polls one word and then reads data the release of that word published.
 *
 * <h2>Pair segment: one per pair of local ranks that exchange data, made by the lower rank</h2>
 * <pre>
 *    0 +------------------------------------------------------------------+
 *      | magic "JCCLSHM1" | version u32 | ringBytes u32 | creator pid i64 |
 *      | commId i64 | low rank u32 | high rank u32                        |
 *   64 | ready i64 (creator: segment initialised)                         |
 *  128 | attached i64 (high rank: mapped; the creator then unlinks)       |
 *  256 | ring low→high: tail i64 (bytes written, by low)                  |
 *  320 |                head i64 (bytes consumed, by high)                |
 *  384 | ring high→low: tail i64 (by high)                                |
 *  448 |                head i64 (by low)                                 |
 * 4096 | ring low→high data (ringBytes)                                   |
 *      | ring high→low data (ringBytes)                                   |
 *      +------------------------------------------------------------------+
 * </pre>
 * A ring carries frames: a 64-byte line holding a {@code FrameHeader}, then the payload, padded
 * to a multiple of 64 bytes, so that every frame starts on a cache line and never splits its
 * header at the ring's end. Tail and head count bytes since the segment was made (they never
 * wrap); the free space is {@code ringBytes - (tail - head)}.
 */
final class ShmLayout {
    private ShmLayout() {}

    static final long MAGIC = 0x314D4853_4C43434AL; // "JCCLSHM1" read little-endian
    static final int VERSION = 1;
    static final int LINE = 64;
    static final int PAGE = 4096;

    // ---- header line, common to both kinds
    static final long MAGIC_OFFSET = 0;
    static final long VERSION_OFFSET = 8;
    /** Rank page: llSlotBytes; pair segment: ringBytes. */
    static final long SIZE_PARAM_OFFSET = 12;
    static final long PID_OFFSET = 16;
    static final long COMM_OFFSET = 24;
    /** Rank page: rank; pair segment: low rank. */
    static final long RANK_A_OFFSET = 32;
    /** Rank page: nRanks; pair segment: high rank. */
    static final long RANK_B_OFFSET = 36;

    // ---- rank page
    static final long STATE_OFFSET = 64;
    static final long ATTACHED_OFFSET = 128;
    static final long ANNOUNCE_SEQ_OFFSET = 192;
    static final long ANNOUNCE_DESC_OFFSET = 200;
    static final long ANNOUNCE_COUNT_OFFSET = 208;
    static final long DONE_OFFSET = 256;
    static final long REASON_LENGTH_OFFSET = 320;
    static final long REASON_OFFSET = 324;
    static final int REASON_MAX_BYTES = 1024 - 324;
    static final long LL_OFFSET = 1024;
    static final long LL_FLAG = 0;
    static final long LL_DESCRIPTOR = 8;
    static final long LL_COUNT = 16;
    static final long LL_LENGTH = 24;
    static final long LL_DATA = LINE;

    static final long STATE_INIT = 0;
    static final long STATE_READY = 1;
    static final long STATE_FAILED = 2;
    static final long STATE_ABORTED = 3;
    static final long STATE_CLOSED = 4;

    static long llSlotStride(int llSlotBytes) {
        return LINE + roundUp(llSlotBytes, LINE);
    }

    static long llSlotOffset(int llSlotBytes, int parity) {
        return LL_OFFSET + parity * llSlotStride(llSlotBytes);
    }

    static long rankPageBytes(int llSlotBytes) {
        return roundUp(LL_OFFSET + 2 * llSlotStride(llSlotBytes), PAGE);
    }

    // ---- pair segment
    static final long READY_OFFSET = 64;
    static final long PAIR_ATTACHED_OFFSET = 128;
    static final long RING_CONTROL_OFFSET = 256;
    static final long RING_CONTROL_STRIDE = 128;
    static final long TAIL = 0;
    static final long HEAD = 64;
    static final long RING_DATA_OFFSET = PAGE;

    /** Control lines of the ring that carries data from {@code fromLow ? low : high}. */
    static long ringControlOffset(boolean fromLow) {
        return RING_CONTROL_OFFSET + (fromLow ? 0 : RING_CONTROL_STRIDE);
    }

    static long ringDataOffset(int ringBytes, boolean fromLow) {
        return RING_DATA_OFFSET + (fromLow ? 0 : (long) ringBytes);
    }

    static long pairSegmentBytes(int ringBytes) {
        return RING_DATA_OFFSET + 2L * ringBytes;
    }

    /** Ring capacity for a requested buffer size: whole pages, at least four of them. */
    static int ringBytes(int requested) {
        return (int) Math.max(4L * PAGE, roundUp(requested, PAGE));
    }

    static long roundUp(long v, long to) {
        return (v + to - 1) / to * to;
    }
}
