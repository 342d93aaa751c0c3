package dev.jccl;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * A bounded mutation fuzzer for the decoders of bytes that come from outside: each input is a valid seed with a few
 * mutations (bit flips, interesting bytes and ints such as 2^31 or -1 at random places, truncation, extension, repeated
 * pieces), or plain random bytes. A target returns whether it decoded the input or refused it with the exception it
 * documents; anything else it throws, or an input that makes it allocate more than the target's bound, fails the run
 * with the seed and the input in hex, so the case can be replayed.
 *
 * <p>The allocation bound holds after the first {@value #WARM_UP_INPUTS} inputs, which load classes.
 *
 * <p>Budget: {@code -Djccl.fuzz.seconds} per target (default 3) and a cap on inputs; seed: {@code -Djccl.fuzz.seed}
 * (default random, printed).
 */
public final class Fuzz {
    /** One decoder under test. */
    public interface Target {
        /** True if {@code input} decoded, false if it was refused the documented way. */
        boolean accept(byte[] input) throws Exception;
    }

    /** What a run tried. */
    public record Report(String name, long inputs, long decoded, long refused, double seconds, long seed) {
        @Override
        public String toString() {
            return String.format(
                    "fuzz %s: %d inputs in %.1f s (%d decoded, %d refused), seed %d",
                    name, inputs, seconds, decoded, refused, seed);
        }
    }

    private static final int[] INTERESTING_INTS = {0, 1, -1, 0x7FFFFFFF, 0x80000000, 0xFFFF, 0x10000, 40, 12};
    private static final byte[] INTERESTING_BYTES = {0, 1, -1, 0x7F, (byte) 0x80, (byte) 0xFE};
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static final int WARM_UP_INPUTS = 5_000;

    private Fuzz() {}

    public static Report run(String name, List<byte[]> seeds, long maxAllocatedBytesPerInput, Target target) {
        double seconds = Double.parseDouble(System.getProperty("jccl.fuzz.seconds", "3"));
        long seed = Long.getLong("jccl.fuzz.seed", new Random().nextLong());
        return run(
                name,
                seeds,
                maxAllocatedBytesPerInput,
                Duration.ofMillis((long) (seconds * 1000)),
                2_000_000,
                seed,
                target);
    }

    public static Report run(
            String name,
            List<byte[]> seeds,
            long maxAllocatedBytesPerInput,
            Duration budget,
            long maxInputs,
            long seed,
            Target target) {
        Random random = new Random(seed);
        long start = System.nanoTime();
        long end = start + budget.toNanos();
        long inputs = 0, decoded = 0, refused = 0;
        long thread = Thread.currentThread().threadId();
        while (inputs < maxInputs && ((inputs & 255) != 0 || System.nanoTime() < end)) {
            byte[] input = random.nextInt(10) == 0
                    ? randomBytes(random)
                    : mutate(seeds.get(random.nextInt(seeds.size())), random);
            inputs++;
            long before = THREADS.getThreadAllocatedBytes(thread);
            boolean ok;
            try {
                ok = target.accept(input);
            } catch (Throwable t) {
                throw new AssertionError(name + " threw " + t + " on input " + hex(input) + " (seed " + seed + ")", t);
            }
            long allocated = THREADS.getThreadAllocatedBytes(thread) - before;
            // The first inputs load classes and fill caches; the bound is for the decoder's own allocation.
            if (inputs > WARM_UP_INPUTS && allocated > maxAllocatedBytesPerInput) {
                throw new AssertionError(name + " allocated " + allocated + " bytes (bound " + maxAllocatedBytesPerInput
                        + ") for the " + input.length + "-byte input " + hex(input) + " (seed " + seed + ")");
            }
            if (ok) decoded++;
            else refused++;
        }
        Report report = new Report(name, inputs, decoded, refused, (System.nanoTime() - start) / 1e9, seed);
        System.out.println(report);
        return report;
    }

    static byte[] randomBytes(Random random) {
        byte[] b = new byte[random.nextInt(200)];
        random.nextBytes(b);
        return b;
    }

    static byte[] mutate(byte[] seed, Random random) {
        byte[] b = seed.clone();
        int mutations = 1 + random.nextInt(4);
        for (int i = 0; i < mutations; i++) {
            switch (random.nextInt(7)) {
                case 0 -> { // flip a bit
                    if (b.length > 0) b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
                }
                case 1 -> { // an interesting byte
                    if (b.length > 0) {
                        b[random.nextInt(b.length)] = INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
                    }
                }
                case 2 -> { // an interesting big-endian or little-endian int, e.g. a length of 2^31
                    if (b.length >= 4) {
                        int at = random.nextInt(b.length - 3);
                        int v = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
                        if (random.nextBoolean()) v = Integer.reverseBytes(v);
                        for (int k = 0; k < 4; k++) b[at + k] = (byte) (v >>> (24 - 8 * k));
                    }
                }
                case 3 -> b = Arrays.copyOf(b, b.length == 0 ? 0 : random.nextInt(b.length)); // truncate
                case 4 -> { // extend with random bytes
                    int old = b.length;
                    b = Arrays.copyOf(b, old + 1 + random.nextInt(64));
                    for (int k = old; k < b.length; k++) b[k] = (byte) random.nextInt();
                }
                case 5 -> { // repeat a piece
                    if (b.length > 1) {
                        int from = random.nextInt(b.length);
                        int len = 1 + random.nextInt(Math.min(32, b.length - from));
                        byte[] out = Arrays.copyOf(b, b.length + len);
                        System.arraycopy(b, from, out, b.length, len);
                        b = out;
                    }
                }
                default -> { // overwrite a random byte
                    if (b.length > 0) b[random.nextInt(b.length)] = (byte) random.nextInt();
                }
            }
        }
        return b;
    }

    static String hex(byte[] b) {
        String h = HexFormat.of().formatHex(b, 0, Math.min(b.length, 256));
        return b.length > 256 ? h + "…(" + b.length + " bytes)" : h;
    }
}
