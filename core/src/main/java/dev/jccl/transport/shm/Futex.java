package dev.jccl.transport.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * Linux futexes on 32-bit words in shared memory, through the Foreign Function API: a waiter sleeps in the kernel until
 * another process changes the word and wakes it. This is what lets a rank that waits for a peer give its core away and
 * still wake within microseconds of the peer's signal; a timed park would oversleep by the timer's slack (~50 µs), and
 * {@code sched_yield} under Linux's CFS does not reliably hand the core to the peer that needs it (both measured: 4
 * ranks on 2 cores ran a 1 MiB AllGather 3 to 4 times slower either way).
 *
 * <p>Where futexes are not there (another OS) or native access is refused ({@code --illegal-native-access=deny}),
 * {@link #available()} is false and callers park briefly instead. Calling into the kernel is a restricted operation:
 * without {@code --enable-native-access=ALL-UNNAMED} the JVM prints a one-time warning.
 */
final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final MethodHandle SYSCALL;
    private static final long SYS_FUTEX;
    private static final String UNAVAILABLE;

    static {
        MethodHandle handle = null;
        long number = -1;
        String why = null;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux")) {
            why = "not Linux";
        } else if (arch.equals("amd64") || arch.equals("x86_64")) {
            number = 202;
        } else if (arch.equals("aarch64") || arch.equals("arm64")) {
            number = 98;
        } else {
            why = "no futex system call number known for " + arch;
        }
        if (why == null) {
            try {
                Linker linker = Linker.nativeLinker();
                Optional<MemorySegment> syscall = linker.defaultLookup().find("syscall");
                if (syscall.isEmpty()) {
                    why = "libc has no syscall()";
                } else {
                    // long syscall(long number, int *uaddr, int op, int val, const struct timespec *timeout, int
                    // *uaddr2, int val3)
                    handle = linker.downcallHandle(
                            syscall.get(),
                            FunctionDescriptor.of(
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_INT,
                                    ValueLayout.JAVA_INT,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_INT),
                            Linker.Option.firstVariadicArg(1));
                }
            } catch (IllegalCallerException | UnsupportedOperationException e) {
                why = "native access refused (" + e.getMessage() + ")";
            }
        }
        SYSCALL = handle;
        SYS_FUTEX = number;
        UNAVAILABLE = handle == null ? why : null;
    }

    private Futex() {}

    static boolean available() {
        return SYSCALL != null;
    }

    /** Why futexes cannot be used here, or null. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** A timespec per thread, so waiting allocates nothing. */
    private static final ThreadLocal<MemorySegment> TIMESPEC =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    /**
     * Sleeps while the 32-bit word at {@code offset} of {@code segment} (shared memory) still holds {@code expected},
     * for at most {@code maxNanos}; returns at once if it does not, and may return early for no reason (callers
     * re-check what they wait for).
     */
    static void await(MemorySegment segment, long offset, int expected, long maxNanos) {
        MemorySegment ts = TIMESPEC.get();
        ts.set(ValueLayout.JAVA_LONG, 0, maxNanos / 1_000_000_000L);
        ts.set(ValueLayout.JAVA_LONG, 8, maxNanos % 1_000_000_000L);
        try {
            long unused = (long) SYSCALL.invokeExact(
                    SYS_FUTEX, segment.address() + offset, FUTEX_WAIT, expected, ts.address(), 0L, 0);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wait failed", t);
        }
    }

    /** Wakes every process sleeping on the word at {@code offset} of {@code segment}. */
    static void wakeAll(MemorySegment segment, long offset) {
        try {
            long unused = (long) SYSCALL.invokeExact(
                    SYS_FUTEX, segment.address() + offset, FUTEX_WAKE, Integer.MAX_VALUE, 0L, 0L, 0);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wake failed", t);
        }
    }
}
