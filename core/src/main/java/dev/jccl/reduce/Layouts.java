package dev.jccl.reduce;

import java.lang.foreign.ValueLayout;

/**
 * The layouts that the loops over segments read and write elements with, under short names: unaligned, because a
 * segment may be at any byte offset (see {@link ReduceKernel}).
 */
final class Layouts {
    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private Layouts() {}
}
