package dev.jccl.tools.doctor;

/**
 * Size of the /dev/shm file system.
 *
 * @param bytes total size, or -1 when it cannot be known
 * @param source where the number comes from ({@code statvfs(/dev/shm)}, {@code /proc/self/mountinfo})
 * @param detail how it was derived, e.g. {@code size=65536k}
 */
record ShmCapacity(long bytes, String source, String detail) {
    static ShmCapacity unknown(String why) {
        return new ShmCapacity(-1, "/dev/shm", why);
    }

    boolean known() {
        return bytes >= 0;
    }
}
