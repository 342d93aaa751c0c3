package dev.jccl;

/**
 * Reduction operators, with NCCL's semantics.
 *
 * <ul>
 *   <li>Integer {@link #SUM} and {@link #PROD} wrap on overflow, as Java arithmetic does.
 *   <li>{@link #MIN} and {@link #MAX} compare the unsigned types as unsigned.
 *   <li>{@link #AVG} is the sum divided by the number of ranks: a floating-point division for the float types, a
 *       truncating integer division (signed or unsigned) of the wrapped sum for the integer types.
 *   <li>FLOAT16 and BFLOAT16 are reduced in {@code float} and rounded to nearest even.
 * </ul>
 */
public enum ReduceOp {
    /** The sum; integers wrap around on overflow, as in Java. */
    SUM("sum"),
    /** The product; integers wrap around on overflow, as in Java. */
    PROD("prod"),
    /** The largest value (unsigned types compared as unsigned). */
    MAX("max"),
    /** The smallest value (unsigned types compared as unsigned). */
    MIN("min"),
    /** The sum divided by the number of ranks; for integer types the wrapped sum, divided with truncation. */
    AVG("avg");

    private final String ncclTestsName;

    ReduceOp(String ncclTestsName) {
        this.ncclTestsName = ncclTestsName;
    }

    /** The name nccl-tests prints in its {@code redop} column. */
    public String ncclTestsName() {
        return ncclTestsName;
    }

    /** Parses an enum name or an nccl-tests name, case-insensitively. */
    public static ReduceOp parse(String name) {
        for (ReduceOp op : values()) {
            if (op.name().equalsIgnoreCase(name)) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown reduce op '" + name + "'; expected sum, prod, max, min or avg");
    }
}
