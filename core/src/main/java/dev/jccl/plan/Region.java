package dev.jccl.plan;

/** {@code count} elements starting at element {@code offset} of one of the operation's buffers. */
public record Region(BufferRole buffer, long offset, long count) {
    public Region {
        if (offset < 0 || count < 0) {
            throw new IllegalArgumentException("negative offset or count: " + offset + ", " + count);
        }
    }

    public static Region send(long offset, long count) {
        return new Region(BufferRole.SEND, offset, count);
    }

    public static Region recv(long offset, long count) {
        return new Region(BufferRole.RECV, offset, count);
    }

    public static Region scratch(long offset, long count) {
        return new Region(BufferRole.SCRATCH, offset, count);
    }

    /** {@code count} elements from {@code offset} elements into this region, in the same buffer. */
    public Region slice(long offset, long count) {
        if (offset + count > this.count) {
            throw new IllegalArgumentException(
                    "slice [" + offset + ", +" + count + ") of a region of " + this.count + " elements");
        }
        return new Region(buffer, this.offset + offset, count);
    }

    /** The same elements of another buffer. */
    public Region in(BufferRole role) {
        return new Region(role, offset, count);
    }
}
