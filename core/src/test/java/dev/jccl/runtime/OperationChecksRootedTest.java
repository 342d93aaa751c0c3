package dev.jccl.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Broadcast's send and Reduce's recv, which only the root uses: what each rank may pass for them, and which buffers the
 * checked operation then carries.
 */
class OperationChecksRootedTest {
    private static final int COUNT = 4;
    private static final long BYTES = COUNT * 4L;

    private final OperationChecks root = new OperationChecks(0, 2);
    private final OperationChecks other = new OperationChecks(1, 2);

    private static MemorySegment buffer(long bytes) {
        return MemorySegment.ofArray(new byte[(int) bytes]);
    }

    @Test
    void aNonRootMayPassNoRootOnlyBufferAndGetsTheOtherInItsPlace() {
        MemorySegment recv = buffer(BYTES + 8);
        Operation b = other.broadcast(null, recv, COUNT, DataType.INT32, 0);
        assertEquals(BYTES, b.recv().byteSize());
        assertTrue(b.inPlace(), "Broadcast at a non-root without send: " + b);
        MemorySegment send = buffer(BYTES + 8);
        Operation r = other.reduce(send, null, COUNT, DataType.INT32, ReduceOp.SUM, 0);
        assertEquals(BYTES, r.send().byteSize());
        assertTrue(r.inPlace(), "Reduce at a non-root without recv: " + r);
    }

    @Test
    void theRootMustPassItsRootOnlyBuffer() {
        IllegalArgumentException b = assertThrows(
                IllegalArgumentException.class, () -> root.broadcast(null, buffer(BYTES), COUNT, DataType.INT32, 0));
        assertTrue(b.getMessage().contains("send"), b.getMessage());
        IllegalArgumentException r = assertThrows(
                IllegalArgumentException.class,
                () -> root.reduce(buffer(BYTES), null, COUNT, DataType.INT32, ReduceOp.SUM, 0));
        assertTrue(r.getMessage().contains("recv"), r.getMessage());
    }

    @Test
    void aPassedRootOnlyBufferIsCheckedOnEveryRank() {
        IllegalArgumentException b = assertThrows(
                IllegalArgumentException.class,
                () -> other.broadcast(buffer(BYTES - 1), buffer(BYTES), COUNT, DataType.INT32, 0));
        assertTrue(b.getMessage().contains("send"), b.getMessage());
        IllegalArgumentException r = assertThrows(
                IllegalArgumentException.class,
                () -> other.reduce(buffer(BYTES), buffer(BYTES - 1), COUNT, DataType.INT32, ReduceOp.SUM, 0));
        assertTrue(r.getMessage().contains("recv"), r.getMessage());
    }

    @Test
    void theBufferEveryRankUsesIsCheckedFirst() {
        IllegalArgumentException b = assertThrows(
                IllegalArgumentException.class,
                () -> root.broadcast(buffer(BYTES - 1), buffer(BYTES - 1), COUNT, DataType.INT32, 0));
        assertTrue(b.getMessage().contains("recv"), b.getMessage());
        IllegalArgumentException r = assertThrows(
                IllegalArgumentException.class,
                () -> root.reduce(buffer(BYTES - 1), buffer(BYTES - 1), COUNT, DataType.INT32, ReduceOp.SUM, 0));
        assertTrue(r.getMessage().contains("send"), r.getMessage());
    }

    @Test
    void theOperationCarriesWhatEachRankReadsAndWrites() {
        MemorySegment send = buffer(BYTES);
        MemorySegment recv = buffer(BYTES);
        assertTrue(within(root.broadcast(send, recv, COUNT, DataType.INT32, 0).send(), send));
        assertTrue(
                within(other.broadcast(send, recv, COUNT, DataType.INT32, 0).send(), recv), "a non-root sends nothing");
        assertTrue(within(
                root.reduce(send, recv, COUNT, DataType.INT32, ReduceOp.SUM, 0).recv(), recv));
        assertTrue(
                within(
                        other.reduce(send, recv, COUNT, DataType.INT32, ReduceOp.SUM, 0)
                                .recv(),
                        send),
                "a non-root writes nothing");
    }

    /** True if {@code slice} is memory of the heap buffer {@code buffer}. */
    private static boolean within(MemorySegment slice, MemorySegment buffer) {
        return slice.heapBase().orElseThrow() == buffer.heapBase().orElseThrow();
    }

    @Test
    void partlyOverlappingBuffersAreRefusedWherePassed() {
        MemorySegment wide = buffer(BYTES + 4);
        MemorySegment a = wide.asSlice(0, BYTES);
        MemorySegment shifted = wide.asSlice(4, BYTES);
        assertThrows(IllegalArgumentException.class, () -> other.broadcast(a, shifted, COUNT, DataType.INT32, 0));
        assertThrows(
                IllegalArgumentException.class, () -> other.reduce(a, shifted, COUNT, DataType.INT32, ReduceOp.SUM, 0));
        assertTrue(other.broadcast(a, a, COUNT, DataType.INT32, 0).inPlace());
    }
}
