package dev.jccl.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CrossMemory} on this process's own memory (the kernel checks the same permission as for a peer's) and on what
 * must fail: a process that is not there, an address that is not mapped. Between real peers it runs in every
 * shared-memory conformance battery (single copy is on there).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CrossMemoryTest {
    private static final long SELF = ProcessHandle.current().pid();

    @BeforeAll
    static void onLinux() {
        Assumptions.assumeTrue(
                CrossMemory.available(), () -> "no process_vm_readv: " + CrossMemory.unavailableReason());
    }

    @Test
    void copiesEveryByteOfARangeAtAnOffset() {
        try (Arena arena = Arena.ofConfined()) {
            byte[] data = new byte[300_007];
            new Random(7).nextBytes(data);
            MemorySegment src = arena.allocate(data.length);
            MemorySegment.copy(data, 0, src, ValueLayout.JAVA_BYTE, 0, data.length);
            MemorySegment dst = arena.allocate(data.length + 64);
            assertEquals(0, CrossMemory.read(SELF, dst, 64, src.address() + 5, data.length - 5));
            byte[] got = dst.asSlice(64, data.length - 5).toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < got.length; i++) assertEquals(data[i + 5], got[i], "byte " + i);
            assertEquals(0, dst.get(ValueLayout.JAVA_BYTE, 63), "nothing written before the offset");
        }
    }

    @Test
    void aProcessThatIsNotThereIsEsrch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(8);
            // Above the largest pid Linux hands out (4194304).
            assertEquals(CrossMemory.ESRCH, CrossMemory.read(4_194_305, word, 0, word.address(), 8));
        }
    }

    @Test
    void anUnmappedAddressIsEfaultAndNamedSo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(8);
            int errno = CrossMemory.read(SELF, word, 0, 8, 8); // page 0 is never mapped
            assertEquals(CrossMemory.EFAULT, errno);
            assertTrue(CrossMemory.errorName(errno).contains("not mapped"), CrossMemory.errorName(errno));
        }
    }
}
