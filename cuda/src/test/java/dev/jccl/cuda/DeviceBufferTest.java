package dev.jccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DeviceBufferTest {
    @Test
    void validatesItsParts() {
        assertEquals(
                "device buffer length must be >= 0, got -1",
                assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(16, -1, 0))
                        .getMessage());
        assertEquals(
                "device ordinal must be >= 0, got -2",
                assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(16, 1, -2))
                        .getMessage());
        assertEquals(
                "device buffer of 8 bytes at address 0 (null)",
                assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(0, 8, 0))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DeviceBuffer(-4, 8, 0), "wraps around");
        assertEquals(0, new DeviceBuffer(0, 0, 0).byteSize(), "an empty buffer may be null");
    }

    @Test
    void slicesStayInside() {
        DeviceBuffer b = new DeviceBuffer(0x1000, 256, 1);
        assertEquals(new DeviceBuffer(0x1010, 32, 1), b.slice(16, 32));
        assertEquals(new DeviceBuffer(0x1100, 0, 1), b.slice(256, 0));
        assertEquals(new DeviceBuffer(0x10f0, 16, 1), b.slice(240));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(250, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> b.slice(-1, 8));
        assertEquals("cuda:1 0x1000 (256 B)", b.toString());
    }

    @Test
    void overlapIsPerDevice() {
        DeviceBuffer b = new DeviceBuffer(0x1000, 256, 0);
        assertTrue(b.overlaps(new DeviceBuffer(0x10ff, 1, 0)));
        assertFalse(b.overlaps(new DeviceBuffer(0x1100, 16, 0)), "adjacent is not overlapping");
        assertFalse(b.overlaps(new DeviceBuffer(0x1010, 16, 1)), "another device's address space");
        assertFalse(b.overlaps(new DeviceBuffer(0x1010, 0, 0)), "an empty range overlaps nothing");
    }
}
