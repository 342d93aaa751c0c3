package dev.jccl.cuda;

import dev.jccl.Communicator;
import dev.jccl.DataType;
import dev.jccl.JcclException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The ranks agree on one path, since NCCL must be used by all ranks or by none: each rank says what it asks for
 * ({@code JCCL_CUDA_PATH}), whether it can use NCCL (and why not), and which physical GPU it is on; one AllGather over
 * the host communicator, and every rank decides the same way. NCCL when every rank can load it and no two ranks share a
 * GPU (NCCL refuses that); staging otherwise, with the reason kept for {@code describePath()} and the tools.
 *
 * <pre>
 *  record per rank (512 bytes):  [0] request ordinal  [1] 1 if NCCL loads here
 *                                [2, 128) device key, UTF-8   [128, 512) why not NCCL, UTF-8
 * </pre>
 */
final class PathSelection {
    static final int RECORD = 512;
    private static final int KEY_AT = 2;
    private static final int KEY_BYTES = 126;
    private static final int REASON_AT = 128;
    private static final int REASON_BYTES = RECORD - REASON_AT;

    /** The agreed path, why, and (for NCCL) the library to use. */
    record Choice(DevicePath path, String reason, NcclApi nccl) {}

    private PathSelection() {}

    /**
     * Collective over {@code host}. {@code loadNccl} is only called when this rank may use NCCL; it throws
     * {@link NcclUnavailableException} to say why not.
     */
    static Choice choose(
            Communicator host, DeviceMemory memory, DevicePath.Request request, Supplier<NcclApi> loadNccl) {
        NcclApi nccl = null;
        String whyNot = null;
        if (request == DevicePath.Request.STAGED) {
            whyNot = DevicePath.VARIABLE + "=staged";
        } else {
            try {
                nccl = loadNccl.get();
            } catch (NcclUnavailableException e) {
                whyNot = e.getMessage();
            }
        }
        byte[] mine = new byte[RECORD];
        mine[0] = (byte) request.ordinal();
        mine[1] = (byte) (nccl != null ? 1 : 0);
        put(mine, KEY_AT, KEY_BYTES, memory.deviceKey());
        put(mine, REASON_AT, REASON_BYTES, whyNot == null ? "" : whyNot);
        byte[] all = new byte[RECORD * host.size()];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment send = arena.allocate(RECORD);
            MemorySegment recv = arena.allocate((long) RECORD * host.size());
            MemorySegment.copy(mine, 0, send, ValueLayout.JAVA_BYTE, 0, RECORD);
            host.allGather(send, recv, RECORD, DataType.UINT8);
            MemorySegment.copy(recv, ValueLayout.JAVA_BYTE, 0, all, 0, all.length);
        }
        return decide(host.rank(), host.size(), all, nccl);
    }

    /** The decision from every rank's record; the same on every rank, since every rank has every record. */
    static Choice decide(int rank, int size, byte[] all, NcclApi nccl) {
        DevicePath.Request first = DevicePath.Request.values()[all[0]];
        for (int r = 1; r < size; r++) {
            DevicePath.Request other = DevicePath.Request.values()[all[r * RECORD]];
            if (other != first) {
                throw new JcclException("rank " + rank + ": " + DevicePath.VARIABLE + " differs between ranks (rank 0: "
                        + first.spelling() + ", rank " + r + ": " + other.spelling()
                        + "); every rank must use the same path, so set it alike everywhere");
            }
        }
        if (first == DevicePath.Request.STAGED) {
            return new Choice(DevicePath.STAGED, DevicePath.VARIABLE + "=staged", null);
        }
        String reason = null;
        for (int r = 0; r < size && reason == null; r++) {
            if (all[r * RECORD + 1] == 0) {
                String why = get(all, r * RECORD + REASON_AT, REASON_BYTES);
                reason = size == 1 ? why : "rank " + r + " cannot use NCCL: " + why;
            }
        }
        Map<String, Integer> owner = new HashMap<>();
        for (int r = 0; r < size && reason == null; r++) {
            String key = get(all, r * RECORD + KEY_AT, KEY_BYTES);
            Integer before = owner.putIfAbsent(key, r);
            if (before != null) {
                reason = "ranks " + before + " and " + r + " share one GPU (" + key + "); NCCL needs a GPU per rank";
            }
        }
        if (reason == null) return new Choice(DevicePath.NCCL, "NCCL on every rank, a GPU per rank", nccl);
        if (first == DevicePath.Request.NCCL) {
            throw new JcclException("rank " + rank + ": " + DevicePath.VARIABLE + "=nccl, but NCCL cannot be used: "
                    + reason + ". Unset it (or set staged) to stage device buffers through host memory");
        }
        return new Choice(DevicePath.STAGED, reason, null);
    }

    private static void put(byte[] record, int at, int max, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, max);
        // Never cut a UTF-8 sequence in half.
        while (n > 0 && n < b.length && (b[n] & 0xC0) == 0x80) n--;
        System.arraycopy(b, 0, record, at, n);
    }

    private static String get(byte[] all, int at, int max) {
        int end = at;
        while (end < at + max && all[end] != 0) end++;
        return new String(Arrays.copyOfRange(all, at, end), StandardCharsets.UTF_8);
    }
}
