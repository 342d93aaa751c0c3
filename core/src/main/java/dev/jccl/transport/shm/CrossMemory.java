package dev.jccl.transport.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads another process's memory in one copy, with Linux's cross-memory attach ({@code process_vm_readv}, "CMA"): the
 * kernel copies straight from the peer's buffer into this process's, where the outbox path copies twice (the writer
 * into shared memory, the reader out of it). Open MPI's shared-memory BTL does the same above its eager limit
 * ({@code btl_vader_single_copy_mechanism cma}).
 *
 * <p>What it costs and buys on the project's 2-vCPU VM (PTI on, no PCID, so every system call flushes the TLB): 1.5 µs
 * a call whatever its size (4 KiB reads at 2.7 GB/s), 5.9 µs for 64 KiB in one call and 7.3 in two calls of 32 KiB
 * ({@code bench/cma_probe.c}). What it buys is not speed in the VM's fast phase but immunity to its slow one (see
 * {@code bench/core_probe.c}): a reader that copies from a buffer its peer did not write since the last call finds the
 * lines in its own cache, where a shared-memory outbox is rewritten every call and every line crosses between cores.
 * Open MPI, Broadcast of 64 KiB on 2 ranks, 2026-11-28: 7.5 µs a call with CMA and 33 without it in the slow phase,
 * 6.4-6.7 and 9.0-9.2 in the fast one.
 *
 * <p>The kernel allows it where the reader may ptrace the writer: same user, and Yama's {@code ptrace_scope} 0 (1, the
 * default of several distributions, allows it only to ancestors). A container's seccomp profile may refuse the call
 * too. Callers therefore try it on each peer once ({@link ShmTransport}) and copy through shared memory where it fails.
 */
final class CrossMemory {
    private static final MethodHandle READV;
    private static final String UNAVAILABLE;
    private static final StructLayout CAPTURED = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURED.varHandle(MemoryLayout.PathElement.groupElement("errno")).withInvokeExactBehavior();

    static {
        MethodHandle handle = null;
        String why = null;
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            why = "not Linux";
        } else {
            try {
                Linker linker = Linker.nativeLinker();
                Optional<MemorySegment> readv = linker.defaultLookup().find("process_vm_readv");
                if (readv.isEmpty()) {
                    why = "libc has no process_vm_readv";
                } else {
                    // ssize_t process_vm_readv(pid_t pid, const struct iovec *local_iov, unsigned long liovcnt,
                    //                          const struct iovec *remote_iov, unsigned long riovcnt,
                    //                          unsigned long flags)
                    handle = linker.downcallHandle(
                            readv.get(),
                            FunctionDescriptor.of(
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_INT,
                                    ValueLayout.ADDRESS,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.ADDRESS,
                                    ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_LONG),
                            Linker.Option.captureCallState("errno"));
                }
            } catch (IllegalCallerException | UnsupportedOperationException e) {
                why = "native access refused (" + e.getMessage() + ")";
            }
        }
        READV = handle;
        UNAVAILABLE = handle == null ? why : null;
    }

    /** Per thread: two iovecs (local, remote) and the captured errno, so a read allocates nothing. */
    private static final ThreadLocal<MemorySegment[]> SCRATCH = ThreadLocal.withInitial(() -> {
        Arena arena = Arena.ofAuto();
        return new MemorySegment[] {arena.allocate(32, 8), arena.allocate(CAPTURED)};
    });

    private CrossMemory() {}

    static boolean available() {
        return READV != null;
    }

    /** Why cross-memory reads cannot be used here, or null. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Copies {@code bytes} from address {@code remote} of process {@code pid} into {@code local} at {@code offset}.
     * Returns 0 when all were copied, else the error number ({@code EPERM}, {@code ESRCH}, {@code EFAULT}...); a short
     * copy (the range ends in unmapped memory) counts as {@code EFAULT}.
     */
    static int read(long pid, MemorySegment local, long offset, long remote, long bytes) {
        MemorySegment[] s = SCRATCH.get();
        MemorySegment iov = s[0];
        MemorySegment errno = s[1];
        long done = 0;
        while (done < bytes) {
            iov.set(ValueLayout.JAVA_LONG, 0, local.address() + offset + done);
            iov.set(ValueLayout.JAVA_LONG, 8, bytes - done);
            iov.set(ValueLayout.JAVA_LONG, 16, remote + done);
            iov.set(ValueLayout.JAVA_LONG, 24, bytes - done);
            long n;
            try {
                n = (long) READV.invokeExact(errno, (int) pid, iov, 1L, iov.asSlice(16), 1L, 0L);
            } catch (Throwable t) {
                throw new IllegalStateException("process_vm_readv failed", t);
            }
            if (n < 0) return (int) ERRNO.get(errno, 0L);
            if (n == 0) return EFAULT;
            done += n;
        }
        return 0;
    }

    static final int EPERM = 1;
    static final int ESRCH = 3;
    static final int EFAULT = 14;
    static final int ENOSYS = 38;

    /** The name of a Linux error number this class returns, for messages. */
    static String errorName(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM (not allowed to read that process: another user, Yama ptrace_scope, or seccomp)";
            case ESRCH -> "ESRCH (no such process)";
            case EFAULT -> "EFAULT (the address range is not mapped)";
            case ENOSYS -> "ENOSYS (the kernel has no process_vm_readv)";
            default -> "errno " + errno;
        };
    }
}
