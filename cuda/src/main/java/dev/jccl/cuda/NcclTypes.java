package dev.jccl.cuda;

import dev.jccl.DataType;
import dev.jccl.ReduceOp;

/**
 * Jccl's types and operators as NCCL's enum values ({@code nccl.h}), and NCCL's result codes in words. NCCL has all ten
 * of Jccl's types and all five operators; {@code ncclBfloat16} and {@code ncclAvg} came with NCCL 2.10, so an older
 * NCCL refuses them here with a sentence rather than with {@code ncclInvalidArgument} from inside NCCL.
 */
public final class NcclTypes {
    private NcclTypes() {}

    /** NCCL 2.10.0 in NCCL's version code: the first with ncclBfloat16 and ncclAvg. */
    public static final int VERSION_2_10 = 21000;

    /** {@code ncclDataType_t} of {@code type}. */
    public static int dataType(DataType type, int ncclVersion) {
        return switch (type) {
            case INT8 -> 0; // ncclInt8 (ncclChar)
            case UINT8 -> 1; // ncclUint8
            case INT32 -> 2; // ncclInt32 (ncclInt)
            case UINT32 -> 3; // ncclUint32
            case INT64 -> 4; // ncclInt64
            case UINT64 -> 5; // ncclUint64
            case FLOAT16 -> 6; // ncclFloat16 (ncclHalf)
            case FLOAT32 -> 7; // ncclFloat32 (ncclFloat)
            case FLOAT64 -> 8; // ncclFloat64 (ncclDouble)
            case BFLOAT16 -> { // ncclBfloat16
                if (ncclVersion < VERSION_2_10) throw tooOld("BFLOAT16 (ncclBfloat16)", ncclVersion);
                yield 9;
            }
        };
    }

    /** {@code ncclRedOp_t} of {@code op}. */
    public static int redOp(ReduceOp op, int ncclVersion) {
        return switch (op) {
            case SUM -> 0; // ncclSum
            case PROD -> 1; // ncclProd
            case MAX -> 2; // ncclMax
            case MIN -> 3; // ncclMin
            case AVG -> { // ncclAvg
                if (ncclVersion < VERSION_2_10) throw tooOld("AVG (ncclAvg)", ncclVersion);
                yield 4;
            }
        };
    }

    private static IllegalArgumentException tooOld(String what, int version) {
        return new IllegalArgumentException(
                "NCCL " + version(version) + " has no " + what + ": it came with NCCL 2.10. Update NCCL "
                        + "(JCCL_NCCL_LIB can name a newer libnccl.so.2, e.g. the one in PyTorch's "
                        + "wheels), or stage through host memory "
                        + "with JCCL_CUDA_PATH=staged");
    }

    /**
     * NCCL's version code as text: {@code 22105} → {@code 2.21.5}; codes before 2.9 were {@code 1000 × major + 100 ×
     * minor + patch}.
     */
    public static String version(int code) {
        if (code >= 10000) return code / 10000 + "." + (code % 10000) / 100 + "." + code % 100;
        return code / 1000 + "." + (code % 1000) / 100 + "." + code % 100;
    }

    /** The enum name of an {@code ncclResult_t}. */
    public static String resultName(int result) {
        return switch (result) {
            case 0 -> "ncclSuccess";
            case 1 -> "ncclUnhandledCudaError";
            case 2 -> "ncclSystemError";
            case 3 -> "ncclInternalError";
            case 4 -> "ncclInvalidArgument";
            case 5 -> "ncclInvalidUsage";
            case 6 -> "ncclRemoteError";
            case 7 -> "ncclInProgress";
            default -> "ncclResult " + result;
        };
    }

    static final int SUCCESS = 0;
    static final int IN_PROGRESS = 7;
    /** {@code NCCL_UNIQUE_ID_BYTES}. */
    public static final int UNIQUE_ID_BYTES = 128;
}
