package dev.jccl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The array forms: one overload per operation for every primitive array, with the MemorySegment forms' semantics, and
 * clear refusals.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrayFormsTest {
    private static final int RANKS = 3;

    @Test
    void everyPrimitiveArrayRunsEveryOperation() throws Exception {
        List<Object> results = TestRanks.run(RANKS, TestRanks.loopback(Duration.ofSeconds(20)), (rank, comm) -> {
            int n = comm.size();
            int me = rank + 1;
            int sum = n * (n + 1) / 2;

            byte[] b = {(byte) me, (byte) (2 * me)};
            comm.allReduce(b, ReduceOp.SUM);
            assertArrayEquals(new byte[] {(byte) sum, (byte) (2 * sum)}, b);

            int[] unsigned = {-me}; // read as UINT32: the largest is the one closest to 2^32, -1
            comm.allReduce(unsigned, DataType.UINT32, ReduceOp.MAX);
            assertArrayEquals(new int[] {-1}, unsigned);

            long[] l = {me, Long.MAX_VALUE / 8 * me};
            comm.allReduceAsync(l, ReduceOp.SUM).get(20, TimeUnit.SECONDS);
            assertArrayEquals(new long[] {sum, Long.MAX_VALUE / 8 * sum}, l);

            short[] bf16 = {BFloat16Bits.of(me)};
            comm.allReduce(bf16, DataType.BFLOAT16, ReduceOp.SUM);
            assertEquals(BFloat16Bits.of(sum), bf16[0]);

            double[] d = {rank == 1 ? 2.5 : -1};
            comm.broadcast(d, 1);
            assertArrayEquals(new double[] {2.5}, d);

            float[] f = {me, me};
            comm.reduce(f, DataType.FLOAT32, ReduceOp.PROD, 0);
            if (rank == 0) assertArrayEquals(new float[] {6, 6}, f);
            else assertArrayEquals(new float[] {me, me}, f, "a non-root's array is not written");

            int[] gathered = new int[2 * n];
            comm.allGather(new int[] {me, -me}, gathered);
            assertArrayEquals(new int[] {1, -1, 2, -2, 3, -3}, gathered);

            long[] scattered = new long[1];
            long[] all = new long[n];
            Arrays.fill(all, me);
            comm.reduceScatter(all, scattered, DataType.INT64, ReduceOp.SUM);
            assertArrayEquals(new long[] {sum}, scattered);

            short[] out = new short[n];
            short[] in = new short[n];
            for (int j = 0; j < n; j++) out[j] = (short) (10 * rank + j);
            comm.allToAll(out, in);
            for (int j = 0; j < n; j++) assertEquals((short) (10 * j + rank), in[j]);

            byte[] ring = {(byte) rank, 7};
            byte[] fromPrev = new byte[2];
            comm.sendRecv(ring, (rank + 1) % n, fromPrev, (rank + n - 1) % n);
            assertArrayEquals(new byte[] {(byte) ((rank + n - 1) % n), 7}, fromPrev);

            double[] message = {rank * 1.5};
            if (rank == 0) comm.send(message, 1);
            else if (rank == 1) {
                comm.recv(message, 0);
                assertArrayEquals(new double[] {0}, message);
            }
            return "ok";
        });
        for (Object o : results) {
            if (o instanceof Throwable t) throw new AssertionError(t);
        }
    }

    @Test
    void whatIsNotAPrimitiveArrayIsRefusedWithTheReason() throws Exception {
        Object result = TestRanks.run(1, TestRanks.loopback(Duration.ofSeconds(20)), (rank, comm) -> {
                    assertEquals(
                            "AllReduce takes a primitive array (byte[], short[], int[], long[], float[] "
                                    + "or double[]) in its array form, got a "
                                    + "java.lang.String; pass MemorySegments to the other form for anything else",
                            assertThrows(IllegalArgumentException.class, () -> comm.allReduce("1 2 3", ReduceOp.SUM))
                                    .getMessage());
                    assertEquals(
                            "AllReduce: a short[] may hold FLOAT16 or BFLOAT16 bits; name the type "
                                    + "(allReduce(array, DataType.BFLOAT16, op))",
                            assertThrows(
                                            IllegalArgumentException.class,
                                            () -> comm.allReduce(new short[4], ReduceOp.SUM))
                                    .getMessage());
                    assertEquals(
                            "AllReduce: a int[] holds 4-byte elements but FLOAT64 needs 8-byte ones; "
                                    + "pick an array of that width",
                            assertThrows(
                                            IllegalArgumentException.class,
                                            () -> comm.allReduce(new int[4], DataType.FLOAT64, ReduceOp.SUM))
                                    .getMessage());
                    assertEquals(
                            "AllGather: send is a int[] but recv a float[]; pass arrays of one element type",
                            assertThrows(IllegalArgumentException.class, () -> comm.allGather(new int[1], new float[1]))
                                    .getMessage());
                    assertEquals(
                            "Broadcast: the array is null",
                            assertThrows(IllegalArgumentException.class, () -> comm.broadcast(null, 0))
                                    .getMessage());
                    assertEquals(
                            "SendRecv arrays differ in length: send holds 2 elements, recv 3; pass "
                                    + "arrays of the same length (or one array, in place)",
                            assertThrows(
                                            IllegalArgumentException.class,
                                            () -> comm.sendRecv(new int[2], 0, new int[3], 0))
                                    .getMessage());
                    int[] still = {5};
                    comm.allReduce(still, ReduceOp.SUM);
                    assertArrayEquals(new int[] {5}, still, "the communicator is still usable");
                    return "ok";
                })
                .getFirst();
        if (result instanceof Throwable t) throw new AssertionError(t);
    }

    /** bfloat16 bits of small integers (exact). */
    private static final class BFloat16Bits {
        static short of(int value) {
            return (short) (Float.floatToRawIntBits(value) >>> 16);
        }
    }
}
