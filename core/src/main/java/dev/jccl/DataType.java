package dev.jccl;

/**
 * Element types a collective can move and reduce; the same ten types NCCL has.
 *
 * <p>Elements are stored in native byte order (little-endian on every platform Jccl targets). {@link #FLOAT16} is IEEE
 * 754 binary16 and {@link #BFLOAT16} is the upper half of a binary32; both are carried in Java {@code short}s and
 * reduced in {@code float}, rounded to nearest even. The unsigned types are carried in the signed Java type of the same
 * width and compared as unsigned by {@link ReduceOp#MIN}/{@link ReduceOp#MAX}.
 */
public enum DataType {
    /** Signed 8-bit integer, a Java {@code byte}. */
    INT8(1, "int8"),
    /** Unsigned 8-bit integer, carried in a {@code byte}. */
    UINT8(1, "uint8"),
    /** Signed 32-bit integer, a Java {@code int}. */
    INT32(4, "int32"),
    /** Unsigned 32-bit integer, carried in an {@code int}. */
    UINT32(4, "uint32"),
    /** Signed 64-bit integer, a Java {@code long}. */
    INT64(8, "int64"),
    /** Unsigned 64-bit integer, carried in a {@code long}. */
    UINT64(8, "uint64"),
    /** IEEE 754 binary16 ("half"), carried in a {@code short}. */
    FLOAT16(2, "half"),
    /** bfloat16: the upper 16 bits of a binary32, carried in a {@code short}. */
    BFLOAT16(2, "bfloat16"),
    /** IEEE 754 binary32, a Java {@code float}. */
    FLOAT32(4, "float"),
    /** IEEE 754 binary64, a Java {@code double}. */
    FLOAT64(8, "double");

    private final int byteSize;
    private final String ncclTestsName;

    DataType(int byteSize, String ncclTestsName) {
        this.byteSize = byteSize;
        this.ncclTestsName = ncclTestsName;
    }

    /** Size of one element in bytes. */
    public int byteSize() {
        return byteSize;
    }

    /** True for the four floating-point types. */
    public boolean isFloatingPoint() {
        return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
    }

    /** True for UINT8, UINT32 and UINT64. */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT32 || this == UINT64;
    }

    /** The name nccl-tests prints in its {@code type} column ({@code float}, {@code half}, …). */
    public String ncclTestsName() {
        return ncclTestsName;
    }

    /** Parses an enum name or an nccl-tests name, case-insensitively. */
    public static DataType parse(String name) {
        for (DataType t : values()) {
            if (t.name().equalsIgnoreCase(name) || t.ncclTestsName.equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException(
                "unknown data type '" + name + "'; expected one of " + java.util.Arrays.toString(values())
                        + " or an nccl-tests name (int8 uint8 int32 uint32 int64 uint64 half bfloat16 float double)");
    }
}
