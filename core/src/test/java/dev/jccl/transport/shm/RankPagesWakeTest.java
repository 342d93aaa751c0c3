package dev.jccl.transport.shm;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doorbell handshake between a rank that may sleep and the peers that make work for it, on two real mapped pages:
 * the first peer to find the owner's "may sleep" flag raised lowers it and rings once, so the wakers after it make no
 * system call, and a sleeper is woken, not left to sleep out its time.
 */
@Timeout(60)
class RankPagesWakeTest {
    private static final int SLOT_BYTES = 256;
    private static final int SLOTS = 4;

    @TempDir
    Path dir;

    /** The mapped pages, closed after each test (both views share them). */
    private ShmSegment[] segments;

    @AfterEach
    void unmap() {
        if (segments == null) return;
        for (ShmSegment s : segments) s.close();
    }

    /** Rank 0's and rank 1's views of the same two pages. */
    private RankPages[] views() throws Exception {
        long bytes = ShmLayout.rankPageBytes(2, SLOT_BYTES, SLOTS);
        segments = new ShmSegment[] {
            ShmSegment.create(dir.resolve("page0"), bytes), ShmSegment.create(dir.resolve("page1"), bytes)
        };
        return new RankPages[] {
            new RankPages(0, SLOT_BYTES, SLOTS, segments), new RankPages(1, SLOT_BYTES, SLOTS, segments)
        };
    }

    private static int doorbellOf(RankPages pages, int r) {
        return SharedWords.acquireInt(pages.page(r), ShmLayout.DOORBELL_OFFSET);
    }

    private static int sleepingFlagOf(RankPages pages, int r) {
        return SharedWords.acquireInt(pages.page(r), ShmLayout.SLEEPING_OFFSET);
    }

    @Test
    void theFirstWakerLowersTheFlagAndRingsOnce() throws Exception {
        RankPages[] v = views();
        RankPages owner = v[0];
        RankPages peer = v[1];
        int before = owner.doorbell();
        owner.sleeping(true);

        peer.wake(0, true);
        assertEquals(0, sleepingFlagOf(peer, 0), "the waker that rang lowers the flag");
        assertEquals(before + 1, doorbellOf(peer, 0));

        peer.wake(0, true);
        peer.wake(0, false);
        assertEquals(before + 1, doorbellOf(peer, 0), "wakers after the first find the flag lowered and do not ring");
    }

    @Test
    void aPeerDoesNotRingAnOwnerThatSaidItIsAwake() throws Exception {
        RankPages[] v = views();
        int before = v[0].doorbell();
        v[0].sleeping(false);
        v[1].wake(0, true);
        assertEquals(before, doorbellOf(v[1], 0));
    }

    @Test
    void aSleepingOwnerIsWokenByTheRing() throws Exception {
        assumeFutexes();
        RankPages[] v = views();
        RankPages owner = v[0];
        int doorbell = owner.doorbell();
        owner.sleeping(true);
        long sleepNanos = TimeUnit.SECONDS.toNanos(30);
        CompletableFuture<Void> slept = CompletableFuture.runAsync(() -> {
            owner.sleep(doorbell, sleepNanos);
            owner.sleeping(false);
        });
        // Rung before or after the sleeper reaches its futex: either way it returns at once, not after 30 s.
        v[1].wake(0, true);
        slept.get(20, TimeUnit.SECONDS);
        assertEquals(doorbell + 1, owner.doorbell());
        assertEquals(0, sleepingFlagOf(owner, 0));
    }

    private static void assumeFutexes() {
        Assumptions.assumeTrue(Futex.available(), Futex::unavailableReason);
    }
}
