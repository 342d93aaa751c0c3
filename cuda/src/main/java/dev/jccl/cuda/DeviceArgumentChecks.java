package dev.jccl.cuda;

import dev.jccl.runtime.ArgumentChecks;

/**
 * Checks a device call's arguments on the calling thread before anything is queued, so a bad call
 * throws {@link IllegalArgumentException} at once, on the rank that made it, and the communicator
 * stays usable. Same rules and wording as the host path's checks.
 */
final class DeviceArgumentChecks extends ArgumentChecks {
    private final int device;

    DeviceArgumentChecks(String collective, int rank, int device) {
        super(collective, rank);
        this.device = device;
    }

    /** Present, on this communicator's device, and at least {@code bytes} long. */
    void buffer(DeviceBuffer b, long bytes, String name, String shape) {
        if (b == null) throw bad(name + " buffer is null");
        if (b.device() != device) throw bad(name + " buffer is on cuda:" + b.device() + " but this communicator works on cuda:" + device);
        if (b.byteSize() < bytes) throw bad(name + " buffer holds " + b.byteSize() + " bytes but " + shape + " needs " + bytes);
    }

    /** The used ranges are the same memory (in place) or disjoint, nothing in between. */
    void inPlaceOrDisjoint(DeviceBuffer send, long sendBytes, DeviceBuffer recv, long recvBytes, boolean inPlace) {
        if (inPlace || send == null || recv == null) return;
        if (send.slice(0, sendBytes).overlaps(recv.slice(0, recvBytes))) {
            throw bad("send and recv buffers overlap without being in place; use the same memory for in-place, or separate buffers");
        }
    }
}
