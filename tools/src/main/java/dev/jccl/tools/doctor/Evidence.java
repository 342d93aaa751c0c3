package dev.jccl.tools.doctor;

/**
 * One fact a verdict rests on.
 *
 * @param source where it was read: a path ({@code /sys/class/infiniband/mlx5_0/ports/1/state}), {@code env NAME}, or a
 *     named probe ({@code interfaces}, {@code statvfs(/dev/shm)})
 * @param value what was found there, or {@code (absent)}
 */
record Evidence(String source, String value) {
    static final String ABSENT = "(absent)";
}
