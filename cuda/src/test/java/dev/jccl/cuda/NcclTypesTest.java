package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Jccl's types and operators against the values in nccl.h, and what an NCCL older than 2.10 cannot do. */
@Timeout(10)
class NcclTypesTest {
    private static final int NCCL_2_21_5 = 22105;
    private static final int NCCL_2_8_4 = 2804;

    @Test
    void everyDataTypeHasNcclsValue() {
        Map<DataType, Integer> nccl = new EnumMap<>(DataType.class);
        nccl.put(DataType.INT8, 0); // ncclInt8
        nccl.put(DataType.UINT8, 1); // ncclUint8
        nccl.put(DataType.INT32, 2); // ncclInt32
        nccl.put(DataType.UINT32, 3); // ncclUint32
        nccl.put(DataType.INT64, 4); // ncclInt64
        nccl.put(DataType.UINT64, 5); // ncclUint64
        nccl.put(DataType.FLOAT16, 6); // ncclFloat16
        nccl.put(DataType.FLOAT32, 7); // ncclFloat32
        nccl.put(DataType.FLOAT64, 8); // ncclFloat64
        nccl.put(DataType.BFLOAT16, 9); // ncclBfloat16
        assertEquals(DataType.values().length, nccl.size());
        for (DataType t : DataType.values()) assertEquals(nccl.get(t), NcclTypes.dataType(t, NCCL_2_21_5), t.name());
    }

    @Test
    void everyReduceOpHasNcclsValue() {
        int[] expected = {0, 1, 2, 3, 4}; // ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg
        ReduceOp[] ops = {ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.AVG};
        assertEquals(ReduceOp.values().length, ops.length);
        for (int i = 0; i < ops.length; i++) {
            assertEquals(expected[i], NcclTypes.redOp(ops[i], NCCL_2_21_5), ops[i].name());
        }
    }

    @Test
    void bfloat16AndAvgNeedNccl210() {
        for (DataType t : DataType.values()) {
            if (t != DataType.BFLOAT16) NcclTypes.dataType(t, NCCL_2_8_4);
        }
        IllegalArgumentException bf16 =
                assertThrows(IllegalArgumentException.class, () -> NcclTypes.dataType(DataType.BFLOAT16, NCCL_2_8_4));
        assertTrue(
                bf16.getMessage().startsWith("NCCL 2.8.4 has no BFLOAT16 (ncclBfloat16): it came with NCCL 2.10."),
                bf16.getMessage());
        assertTrue(bf16.getMessage().contains("JCCL_CUDA_PATH=staged"), bf16.getMessage());
        IllegalArgumentException avg =
                assertThrows(IllegalArgumentException.class, () -> NcclTypes.redOp(ReduceOp.AVG, 20900));
        assertTrue(avg.getMessage().startsWith("NCCL 2.9.0 has no AVG (ncclAvg)"), avg.getMessage());
        assertEquals(9, NcclTypes.dataType(DataType.BFLOAT16, NcclTypes.VERSION_2_10));
        assertEquals(4, NcclTypes.redOp(ReduceOp.AVG, NcclTypes.VERSION_2_10));
    }

    @Test
    void versionCodesInBothEncodings() {
        assertEquals("2.21.5", NcclTypes.version(22105));
        assertEquals("2.10.3", NcclTypes.version(21003));
        assertEquals("2.8.4", NcclTypes.version(2804));
        assertEquals("2.7.8", NcclTypes.version(2708));
        assertEquals("ncclRemoteError", NcclTypes.resultName(6));
        assertEquals("ncclInProgress", NcclTypes.resultName(7));
        assertEquals("ncclResult 42", NcclTypes.resultName(42));
    }
}
