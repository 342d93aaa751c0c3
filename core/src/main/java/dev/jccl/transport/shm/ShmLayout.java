package dev.jccl.transport.shm;

/**
 * Where everything lies in the two kinds of shared-memory segment, as offset constants. Every word that one process
 * writes and another polls sits on a cache line of its own, so that a writer never invalidates a line its reader polls
 * for something else.
 *
 * <h2>Rank page: one per local rank, written by its owner, read by every local peer</h2>
 *
 * <pre>
 *    0 +------------------------------------------------------------------+
 *      | magic "JCCLSHM1" | version u32 | slotBytes u32 | owner pid i64   |  header line
 *      | commId i64 | rank u32 | nRanks u32 | slots u32 |                 |
 *      | page address i64 (where the owner maps this page)                |
 *      | single copy i64: can the owner read every local peer's memory?   |
 *   64 | state i64 (INIT, READY, FAILED, ABORTED, CLOSED)                 |  owner
 *  128 | attached i64: local peers that mapped this page                  |  peers, atomic add
 *  192 | announced sequence i64 | announced descriptor i64 | count i64    |  owner, at op start
 *  256 | done i64: collectives this rank has finished                     |  owner
 *  320 | reason length u32 | reason UTF-8 (why the state is FAILED)       |  owner
 * 1024 | doorbell i32: peers add 1 and wake the owner's futex             |  peers, atomic add
 * 1088 | sleeping i32: 1 while the owner may sleep on its doorbell        |  owner; the peer that
 *      |                                                                  |  rings lowers it (CAS)
 * 1152 | consumed[w] i64, one line per rank w: how many of w's outbox     |  owner (as a reader)
 *      | chunks this rank has finished with                               |
 *    C | outbox slot 0: flag i64 | sequence | descriptor | count |        |  owner (as a writer)
 *      |                inline data (up to 32 bytes), or, for a longer     |
 *      |                chunk, the address of its data in the owner's      |
 *      |                memory (0: the data follows)                       |
 *      |                data (slotBytes), from the next cache line        |
 *      | outbox slot 1 … slot (slots-1): the same                         |
 *    T | small record 0: flag i64 | digest i64 of the operation |        |  owner (as a writer)
 *      |                 data (up to 16 bytes)                            |
 *      | small record 1 … record (SMALL_RECORDS-1): the same, 2 per line  |
 *      +------------------------------------------------------------------+
 * </pre>
 *
 * The outbox is a ring of {@code slots} chunks that every local rank reads in place: the owner's chunk number g
 * (counted over the communicator's life) goes to slot {@code g % slots}, and its flag then holds {@code g + 1}. The
 * owner may reuse a slot only once every peer's {@code consumed[owner]} says it is done with the chunk that was there.
 * A chunk of at most {@link #SLOT_INLINE_BYTES} bytes lies in its slot's header line, beside the flag: a reader then
 * takes the flag and the data in one cache-line transfer instead of two (the whole of an 8-byte AllReduce). A chunk's
 * length is not stored: every reader computes it from the operation, whose descriptor and count the header carries.
 *
 * <p>A chunk longer than that may instead be published <em>by reference</em>: its slot's header line then holds, in
 * place of inline data, the address of the chunk in the writer's own buffer, and readers copy it from there with one
 * system call ({@code CrossMemory}), taking every consecutive chunk published so far in the same call. The writer does
 * this only where every peer's page says it could read the writer's page that way at start-up ({@code single copy}
 * YES), and it then returns only once every reader has consumed the chunks, since they read its caller's buffer.
 *
 * <p>In a Broadcast or a Reduce, a chunk of at most {@link #SMALL_RECORD_BYTES} bytes goes instead to small record
 * {@code g % SMALL_RECORDS}, 32 bytes, two to a cache line: its flag ({@code g + 1}), a 64-bit digest of the operation
 * (sequence, descriptor, count) in place of the header, and the data. A root that runs ahead of its reader in a loop of
 * 8-byte Broadcasts then takes back a line from the reader every other call, not every call, and the reader takes in
 * two calls per line crossing. Measured 2026-11-28 on 2 ranks in the VM's slow phase (see {@code bench/core_probe.c}),
 * against 0.24 µs a call: 16-byte records, four to a line, 0.15-0.21 µs; 32-byte records 0.17-0.25; no change in the
 * fast phase. The 16-byte form had room only for the low 32 bits of the chunk number beside a 32-bit digest, and a
 * record left alone for 2^32 chunks (about 15 minutes of small AllReduces) could then pass for a new one. Not in the
 * collectives whose ranks all wait for each other (AllReduce and the rest): there the writer of the next chunk takes
 * the line back while its peers still read this one, and an 8-byte AllReduce went from 0.59 to 0.70 µs in the slow
 * phase.
 *
 * <p>The small records are a ring of their own, {@link #SMALL_RECORDS} deep against the slots' 32: a writer may reuse
 * record {@code g % SMALL_RECORDS} once every peer is done with chunk {@code g - SMALL_RECORDS}, and slot {@code g %
 * slots} once every peer is done with chunk {@code g - slots}, both read from the same {@code consumed} counters. A
 * root that runs further ahead of readers that share its CPUs lets each of them, once scheduled, take more calls per
 * time slice: 4 ranks on 2 CPUs, Broadcast of 8 B, 0.43-0.47 µs a call with 32 records, 0.30-0.31 with 128, 0.27-0.30
 * with 512 (Open MPI 0.30-0.37, same rounds, the VM's slow phase, 2026-11-28). 256 records take 8 KiB.
 *
 * <h2>Pair segment: one per pair of local ranks that exchange data, made by the lower rank</h2>
 *
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
 *
 * A ring carries frames: a 64-byte line holding a {@code FrameHeader}, then the payload, padded to a multiple of 64
 * bytes, so that every frame starts on a cache line and never splits its header at the ring's end. Tail and head count
 * bytes since the segment was made (they never wrap); the free space is {@code ringBytes - (tail - head)}.
 */
final class ShmLayout {
    private ShmLayout() {}

    static final long MAGIC = 0x314D4853_4C43434AL; // "JCCLSHM1" read little-endian
    static final int VERSION = 6;
    static final int LINE = 64;
    static final int PAGE = 4096;

    // ---- header line, common to both kinds
    static final long MAGIC_OFFSET = 0;
    static final long VERSION_OFFSET = 8;
    /** Rank page: slotBytes; pair segment: ringBytes. */
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
    static final long SLOTS_OFFSET = 40;
    /** Where the owner has its own page mapped: peers that read its memory by single copy test that on this page. */
    static final long PAGE_ADDRESS_OFFSET = 48;
    /** The owner's verdict, as a reader, on single copy: {@link #SINGLE_COPY_UNKNOWN} until it has tried. */
    static final long SINGLE_COPY_OFFSET = 56;

    static final long SINGLE_COPY_UNKNOWN = 0;
    /** The owner read every local peer's page through {@code CrossMemory}: writers may publish by reference. */
    static final long SINGLE_COPY_YES = 1;
    /** It could not (or single copy is off): writers copy their chunks into the outbox for it. */
    static final long SINGLE_COPY_NO = 2;

    static final long DOORBELL_OFFSET = 1024;
    static final long SLEEPING_OFFSET = 1088;
    static final long CONSUMED_OFFSET = 1152;
    static final long SLOT_FLAG = 0;
    static final long SLOT_SEQUENCE = 8;
    static final long SLOT_DESCRIPTOR = 16;
    static final long SLOT_COUNT = 24;
    static final long SLOT_INLINE = 32;
    static final int SLOT_INLINE_BYTES = LINE - (int) SLOT_INLINE;
    /**
     * A chunk longer than {@link #SLOT_INLINE_BYTES}: the address of its data in the writer's memory, which readers
     * copy with {@code CrossMemory}; 0 when the data lies in the slot.
     */
    static final long SLOT_REFERENCE = SLOT_INLINE;

    static final long SLOT_DATA = LINE;

    static final int SMALL_RECORD = 32;
    static final long SMALL_RECORD_FLAG = 0;
    static final long SMALL_RECORD_DIGEST = 8;
    static final long SMALL_RECORD_DATA = 16;
    static final int SMALL_RECORD_BYTES = SMALL_RECORD - (int) SMALL_RECORD_DATA;
    /** How many small records a rank page holds (a power of two): see the class comment. */
    static final int SMALL_RECORDS = 256;

    static final long STATE_INIT = 0;
    static final long STATE_READY = 1;
    static final long STATE_FAILED = 2;
    static final long STATE_ABORTED = 3;
    static final long STATE_CLOSED = 4;

    static long consumedOffset(int writer) {
        return CONSUMED_OFFSET + (long) writer * LINE;
    }

    static long outboxOffset(int nRanks) {
        return consumedOffset(nRanks);
    }

    static long slotStride(int slotBytes) {
        return LINE + roundUp(slotBytes, LINE);
    }

    static long slotOffset(int nRanks, int slotBytes, int slot) {
        return outboxOffset(nRanks) + slot * slotStride(slotBytes);
    }

    /** Where the small records start: after the last slot. */
    static long smallRecordsOffset(int nRanks, int slotBytes, int slots) {
        return slotOffset(nRanks, slotBytes, slots);
    }

    static long rankPageBytes(int nRanks, int slotBytes, int slots) {
        return roundUp(smallRecordsOffset(nRanks, slotBytes, slots) + (long) SMALL_RECORDS * SMALL_RECORD, PAGE);
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
